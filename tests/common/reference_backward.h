// float64 reference of the backward ops, row by row, from the dtype-rounded y and dy, and the
// tolerance their outputs are held to.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "element.h"
#include "reference.h"

namespace rowwise_test {

enum class GradOp { kSoftmaxBackward, kLogSoftmaxBackward };

inline const char* grad_op_name(GradOp op) {
  return op == GradOp::kSoftmaxBackward ? "softmax_backward" : "log_softmax_backward";
}

// The forward op whose output the gradient op takes as y.
inline Op forward_of(GradOp op) { return op == GradOp::kSoftmaxBackward ? Op::kSoftmax : Op::kLogSoftmax; }

struct GradReference {
  std::vector<double> dx;
  // Size of the terms dx is the difference of: y·|dy| + y·Σ|y·dy| (softmax), |dy| + e^y·Σ|dy|
  // (log-softmax). Rounding in the row sum and the subtraction scales with it, not with |dx|, which
  // cancellation can make far smaller.
  std::vector<double> magnitude;
};

// softmax: dx = y·(dy - Σ y·dy); log-softmax: dx = dy - e^y·Σ dy. NaN anywhere gives a NaN row.
inline void reference_backward_row(GradOp op, const double* y, const double* dy, double* dx, double* magnitude,
                                   int64_t cols) {
  const bool softmax = op == GradOp::kSoftmaxBackward;
  long double sum = 0, abs_sum = 0;  // 64-bit mantissa: the reference's own sum error stays negligible
  for (int64_t c = 0; c < cols; ++c) {
    const double term = softmax ? y[c] * dy[c] : dy[c];
    sum += term;
    abs_sum += std::fabs(term);
  }
  const double s = static_cast<double>(sum), a = static_cast<double>(abs_sum);
  for (int64_t c = 0; c < cols; ++c) {
    if (softmax) {
      dx[c] = y[c] * (dy[c] - s);
      magnitude[c] = std::fabs(y[c]) * (std::fabs(dy[c]) + a);
    } else {
      const double e = std::exp(y[c]);
      dx[c] = dy[c] - e * s;
      magnitude[c] = std::fabs(dy[c]) + e * a;
    }
  }
}

inline GradReference reference_backward_rows(GradOp op, const std::vector<double>& y, const std::vector<double>& dy,
                                             int64_t rows, int64_t cols) {
  GradReference ref{std::vector<double>(y.size()), std::vector<double>(y.size())};
  for (int64_t r = 0; r < rows; ++r)
    reference_backward_row(op, &y[r * cols], &dy[r * cols], &ref.dx[r * cols], &ref.magnitude[r * cols], cols);
  return ref;
}

// The forward tolerance scaled to gradients: the kernels compute in float (double for double) from
// the exact T inputs, so the rounding of the result to T is T's relative tolerance of |dx|, and the
// accumulation error is the accumulation type's relative tolerance of the terms' magnitude (forward
// outputs need no such term: they are well conditioned, of size about 1). kUnderflow covers results
// flushed or rounded to T's subnormals.
template <class T> bool gradient_close(double got, double want, double magnitude) {
  using E = Element<T>;
  return close_enough(got, want, E::kAccRtol * magnitude + E::kUnderflow, E::kRtol);
}

}  // namespace rowwise_test
