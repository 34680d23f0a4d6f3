// rowwise_options as the C++ API's rowwise::Options, for the C ABI's entry points. Its values are checked
// where the C++ API checks them (a negative max_ctas: cudaErrorInvalidValue).
#pragma once
#include <rowwise/api.cuh>

#include "rowwise_c.h"

namespace rowwise_c {

// NULL: the defaults.
inline rowwise::Options to_options(const rowwise_options* options) {
  rowwise::Options cpp_options;
  if (options != nullptr) {
    cpp_options.max_ctas = options->max_ctas;
    cpp_options.programmatic_launch = options->programmatic_launch != 0;
  }
  return cpp_options;
}

}  // namespace rowwise_c
