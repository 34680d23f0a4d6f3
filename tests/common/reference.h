// float64 CPU reference of every op, row by row, from the dtype-rounded inputs.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace rowwise_test {

enum class Op { kSoftmax, kLogSoftmax };

inline const char* op_name(Op op) {
  switch (op) {
    case Op::kSoftmax: return "softmax";
    case Op::kLogSoftmax: return "log_softmax";
  }
  return "?";
}

// One row: out[c] for c < cols. NaN anywhere gives a NaN row; an all -inf row gives NaN (as PyTorch).
inline void reference_row(Op op, const double* x, double* out, int64_t cols) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  double m = -std::numeric_limits<double>::infinity();
  bool has_nan = false;
  for (int64_t c = 0; c < cols; ++c) {
    has_nan = has_nan || std::isnan(x[c]);
    m = std::max(m, x[c]);
  }
  if (has_nan || m == -std::numeric_limits<double>::infinity()) {
    for (int64_t c = 0; c < cols; ++c) out[c] = nan;
    return;
  }
  double s = 0;
  for (int64_t c = 0; c < cols; ++c) s += std::exp(x[c] - m);
  const double log_s = std::log(s);
  for (int64_t c = 0; c < cols; ++c) out[c] = op == Op::kSoftmax ? std::exp(x[c] - m) / s : (x[c] - m) - log_s;
}

// Dense rows × cols reference.
inline std::vector<double> reference_rows(Op op, const std::vector<double>& x, int64_t rows, int64_t cols) {
  std::vector<double> out(x.size());
  for (int64_t r = 0; r < rows; ++r) reference_row(op, &x[r * cols], &out[r * cols], cols);
  return out;
}

// |got - ref| <= atol + rtol * |ref|; NaN must meet NaN, infinities must match exactly.
inline bool close_enough(double got, double ref, double atol, double rtol) {
  if (std::isnan(ref)) return std::isnan(got);
  if (std::isinf(ref)) return got == ref;
  return std::fabs(got - ref) <= atol + rtol * std::fabs(ref);
}

}  // namespace rowwise_test
