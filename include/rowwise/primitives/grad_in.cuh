// The two inputs of a gradient element (forward output y and incoming gradient dy).
#pragma once

namespace rowwise {

template <class A> struct GradIn {
  A y, dy;
};

}  // namespace rowwise
