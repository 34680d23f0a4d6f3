// The C ABI's abs-max scaling: (input, output) dtype codes to the precompiled rowwise templates.
#include <cuda_fp8.h>

#include <rowwise/rowwise.cuh>

#include "element.cuh"
#include "options.cuh"
#include "rowwise_c.h"

namespace {

template <class T, class U>
int absmax_scale(const void* x, void* y, float* row_scale, int64_t rows, int64_t cols, int64_t x_row_stride,
                 int64_t y_row_stride, void* stream, const rowwise_options* options) {
  return rowwise::absmax_scale(static_cast<const T*>(x), static_cast<U*>(y), row_scale, rows, cols, x_row_stride,
                               y_row_stride, static_cast<cudaStream_t>(stream), rowwise_c::to_options(options));
}

}  // namespace

extern "C" int rowwise_absmax_scale(rowwise_dtype x_dtype, rowwise_dtype y_dtype, const void* x, void* y,
                                    float* row_scale, int64_t rows, int64_t cols, int64_t x_row_stride,
                                    int64_t y_row_stride, void* stream, const rowwise_options* options) {
  return rowwise_c::visit_element(x_dtype, [&](auto type) -> int {
    using T = typename decltype(type)::type;
    if (y_dtype == x_dtype)
      return absmax_scale<T, T>(x, y, row_scale, rows, cols, x_row_stride, y_row_stride, stream, options);
    if (y_dtype == ROWWISE_I8)
      return absmax_scale<T, int8_t>(x, y, row_scale, rows, cols, x_row_stride, y_row_stride, stream, options);
    if (y_dtype == ROWWISE_FP8_E4M3)
      return absmax_scale<T, __nv_fp8_e4m3>(x, y, row_scale, rows, cols, x_row_stride, y_row_stride, stream,
                                            options);
    return ROWWISE_ERROR_DTYPE;
  });
}
