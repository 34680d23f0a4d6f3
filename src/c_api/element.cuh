// Maps a rowwise_dtype code to its C++ element type, for the C ABI's entry points.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <new>

#include "rowwise_c.h"

namespace rowwise_c {

template <class T> struct Type { using type = T; };

// Returns f(Type<T>{}) for the element type T (float, double, __half, __nv_bfloat16) of `dtype`, or
// ROWWISE_ERROR_DTYPE for any other code. No exception crosses the C ABI: the library's per-context
// caches (std::map, std::mutex) may throw, which a C caller could not catch.
template <class F> int visit_element(rowwise_dtype dtype, F&& f) noexcept {
  try {
    switch (dtype) {
      case ROWWISE_F32: return f(Type<float>{});
      case ROWWISE_F64: return f(Type<double>{});
      case ROWWISE_F16: return f(Type<__half>{});
      case ROWWISE_BF16: return f(Type<__nv_bfloat16>{});
      default: return ROWWISE_ERROR_DTYPE;
    }
  } catch (const std::bad_alloc&) {
    return cudaErrorMemoryAllocation;
  } catch (...) {
    return cudaErrorUnknown;
  }
}

}  // namespace rowwise_c
