// The output grids of abs-max scaling, from their definitions (not from CUDA's conversions, which
// the CPU tests check against them): int8 and fp8 e4m3, rounding to nearest, ties to even, saturated.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace rowwise_test {

// kNone: y in the input type, qmax 1 (y = x / absmax).
enum class Quant { kNone, kInt8, kFp8E4M3 };

inline const char* quant_name(Quant q) {
  switch (q) {
    case Quant::kNone: return "same";
    case Quant::kInt8: return "int8";
    case Quant::kFp8E4M3: return "fp8e4m3";
  }
  return "?";
}

inline double qmax_of(Quant q) { return q == Quant::kInt8 ? 127.0 : q == Quant::kFp8E4M3 ? 448.0 : 1.0; }

// Non-negative finite e4m3 values in code order (code = 8·exponent + mantissa, bias 7): subnormals
// m·2^-9, normals (1 + m/8)·2^(e-7), up to 448 at code 0x7E (0x7F is NaN).
inline const std::vector<double>& e4m3_grid() {
  static const std::vector<double> grid = [] {
    std::vector<double> g;
    for (int code = 0; code < 0x7F; ++code) {
      const int e = code >> 3, m = code & 7;
      g.push_back(e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10));
    }
    return g;
  }();
  return grid;
}

// Nearest e4m3 value, ties to the even code; beyond ±448 (infinities too) saturates; NaN stays NaN.
inline double round_to_e4m3(double v) {
  if (std::isnan(v)) return v;
  const std::vector<double>& g = e4m3_grid();
  const double a = std::fabs(v);
  if (a >= g.back()) return std::copysign(g.back(), v);
  const size_t hi = std::lower_bound(g.begin(), g.end(), a) - g.begin();  // g[hi] >= a > g[hi - 1]
  size_t k = hi;
  if (g[hi] != a) {
    const double below = a - g[hi - 1], above = g[hi] - a;
    k = below < above || (below == above && (hi - 1) % 2 == 0) ? hi - 1 : hi;
  }
  return std::copysign(g[k], v);
}

// y = round(v) in the output grid, saturated at ±qmax: int8 maps NaN to 0 (it has no NaN); kNone
// leaves v as is (the rounding to T is judged by T's tolerance).
inline double quantize(Quant q, double v) {
  switch (q) {
    case Quant::kNone: return v;
    case Quant::kInt8: return std::isnan(v) ? 0.0 : std::nearbyint(std::clamp(v, -127.0, 127.0));  // ties to even
    case Quant::kFp8E4M3: return round_to_e4m3(v);
  }
  return v;
}

// Position of a finite grid value on its grid (neighbours differ by 1, ±0 is 0); NaN off the grid.
inline double grid_position(Quant q, double v) {
  if (q != Quant::kFp8E4M3) return v;
  const std::vector<double>& g = e4m3_grid();
  const auto it = std::lower_bound(g.begin(), g.end(), std::fabs(v));
  if (it == g.end() || *it != std::fabs(v)) return std::numeric_limits<double>::quiet_NaN();
  return std::copysign(static_cast<double>(it - g.begin()), v);
}

}  // namespace rowwise_test
