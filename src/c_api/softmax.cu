// The C ABI's softmax family: dtype codes to the precompiled rowwise templates.
#include <rowwise/rowwise.cuh>

#include "element.cuh"
#include "options.cuh"
#include "rowwise_c.h"

using rowwise_c::to_options;
using rowwise_c::visit_element;

extern "C" int rowwise_softmax(rowwise_dtype dtype, const void* x, void* y, int64_t rows, int64_t cols,
                               int64_t x_row_stride, int64_t y_row_stride, void* stream,
                               const rowwise_options* options) {
  return visit_element(dtype, [&](auto type) -> int {
    using T = typename decltype(type)::type;
    return rowwise::softmax(static_cast<const T*>(x), static_cast<T*>(y), rows, cols, x_row_stride, y_row_stride,
                            static_cast<cudaStream_t>(stream), to_options(options));
  });
}

extern "C" int rowwise_log_softmax(rowwise_dtype dtype, const void* x, void* y, int64_t rows, int64_t cols,
                                   int64_t x_row_stride, int64_t y_row_stride, void* stream,
                                   const rowwise_options* options) {
  return visit_element(dtype, [&](auto type) -> int {
    using T = typename decltype(type)::type;
    return rowwise::log_softmax(static_cast<const T*>(x), static_cast<T*>(y), rows, cols, x_row_stride,
                                y_row_stride, static_cast<cudaStream_t>(stream), to_options(options));
  });
}

extern "C" int rowwise_softmax_backward(rowwise_dtype dtype, const void* y, const void* dy, void* dx, int64_t rows,
                                        int64_t cols, int64_t y_row_stride, int64_t dy_row_stride,
                                        int64_t dx_row_stride, void* stream, const rowwise_options* options) {
  return visit_element(dtype, [&](auto type) -> int {
    using T = typename decltype(type)::type;
    return rowwise::softmax_backward(static_cast<const T*>(y), static_cast<const T*>(dy), static_cast<T*>(dx), rows,
                                     cols, y_row_stride, dy_row_stride, dx_row_stride,
                                     static_cast<cudaStream_t>(stream), to_options(options));
  });
}

extern "C" int rowwise_log_softmax_backward(rowwise_dtype dtype, const void* y, const void* dy, void* dx,
                                            int64_t rows, int64_t cols, int64_t y_row_stride,
                                            int64_t dy_row_stride, int64_t dx_row_stride, void* stream,
                                            const rowwise_options* options) {
  return visit_element(dtype, [&](auto type) -> int {
    using T = typename decltype(type)::type;
    return rowwise::log_softmax_backward(static_cast<const T*>(y), static_cast<const T*>(dy), static_cast<T*>(dx),
                                         rows, cols, y_row_stride, dy_row_stride, dx_row_stride,
                                         static_cast<cudaStream_t>(stream), to_options(options));
  });
}
