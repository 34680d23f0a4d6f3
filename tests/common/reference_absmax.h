// float64 reference of abs-max scaling from the dtype-rounded inputs: the row scale, the real value
// each output approximates, and the rules a quantized output must meet.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "quant.h"

namespace rowwise_test {

// max |x| over the row; NaN if the row holds one.
inline double row_absmax(const double* x, int64_t cols) {
  double m = 0;
  for (int64_t c = 0; c < cols; ++c) {
    if (std::isnan(x[c])) return std::numeric_limits<double>::quiet_NaN();
    m = std::max(m, std::fabs(x[c]));
  }
  return m;
}

// What y approximates before rounding to the output type: x·qmax/absmax, 0 in a zero row. An inf
// in the row gives ±0 for finite x and NaN for the inf itself.
inline double scaled_value(double x, double absmax, Quant q) { return absmax == 0 ? 0.0 : x * qmax_of(q) / absmax; }

// row_scale as the kernel writes it: the float nearest absmax / qmax.
inline double reference_scale(double absmax, Quant q) { return static_cast<float>(absmax / qmax_of(q)); }

// The scale is exact for same-type scaling (absmax is an input value); /qmax may differ by rounding.
inline bool scale_close(double got, double absmax, Quant q) {
  const double want = reference_scale(absmax, q);
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want) || q == Quant::kNone) return got == want;
  return std::fabs(got - want) <= 1e-6 * std::fabs(want);
}

// Where the output must equal the rounded reference exactly: the kernel's x·(qmax/absmax) is exact
// (absmax == qmax makes the factor 1, so ties are real ties and the rounding rule shows), lands on
// ±qmax (the row's max, within an ulp of it), or is 0 or NaN (zeros, zero rows, NaN rows, x/inf).
inline bool quantization_exact(double x, double absmax, Quant q) {
  const double v = scaled_value(x, absmax, q);
  return absmax == qmax_of(q) || std::fabs(x) == absmax || v == 0 || !std::isfinite(v);
}

// "" or what is wrong with a quantized output: NaN exactly where the reference is NaN, never beyond
// ±qmax, at most one grid step from the rounded reference (none where quantization_exact).
inline std::string check_quantized(Quant q, double got, double x, double absmax) {
  const double v = scaled_value(x, absmax, q), want = quantize(q, v);
  const bool exact = quantization_exact(x, absmax, q);
  const double steps = std::fabs(grid_position(q, got) - grid_position(q, want));
  const bool ok = std::isnan(want) ? std::isnan(got)
                                   : std::fabs(got) <= qmax_of(q) && steps <= (exact ? 0 : 1);  // NaN steps fail
  if (ok) return {};
  std::ostringstream s;
  s.precision(9);
  s << "got " << got << " want " << want << (exact ? " exactly" : " within one step") << " (x=" << x
    << ", absmax=" << absmax << ", x*qmax/absmax=" << v << ")";
  return s.str();
}

}  // namespace rowwise_test
