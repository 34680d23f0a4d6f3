// Calls the library op named by the test's Op or GradOp enum.
#pragma once
#include <rowwise/rowwise.cuh>

#include "reference.h"
#include "reference_backward.h"

namespace rowwise_test {

template <class T>
cudaError_t call_forward(Op op, const T* x, T* y, int64_t rows, int64_t cols, int64_t xs, int64_t ys,
                         rowwise::Options options, cudaStream_t stream = 0) {
  switch (op) {
    case Op::kSoftmax: return rowwise::softmax(x, y, rows, cols, xs, ys, stream, options);
    case Op::kLogSoftmax: return rowwise::log_softmax(x, y, rows, cols, xs, ys, stream, options);
  }
  return cudaErrorInvalidValue;
}

template <class T>
cudaError_t call_backward(GradOp op, const T* y, const T* dy, T* dx, int64_t rows, int64_t cols, int64_t ys,
                          int64_t dys, int64_t dxs, rowwise::Options options, cudaStream_t stream = 0) {
  switch (op) {
    case GradOp::kSoftmaxBackward:
      return rowwise::softmax_backward(y, dy, dx, rows, cols, ys, dys, dxs, stream, options);
    case GradOp::kLogSoftmaxBackward:
      return rowwise::log_softmax_backward(y, dy, dx, rows, cols, ys, dys, dxs, stream, options);
  }
  return cudaErrorInvalidValue;
}

}  // namespace rowwise_test
