// Inputs for abs-max scaling: make_values' kinds, with special rows of its own for what scaling must
// get exactly right (zero rows, NaN, inf, ties, saturation at ±qmax).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "inputs.h"
#include "quant.h"

namespace rowwise_test {

inline constexpr int kAbsmaxRowKinds = 9;

// absmax = qmax, so the kernel's factor qmax/absmax is exactly 1: every other column a tie of the
// output grid (k + 1/2 in int8, the midpoint of two e4m3 neighbours), the rest anywhere in ±qmax.
inline void fill_exact_row(std::vector<double>& row, Quant q, std::mt19937_64& rng) {
  const double qmax = qmax_of(q);
  std::uniform_real_distribution<double> anywhere(-qmax, qmax);
  std::uniform_int_distribution<int> k_int8(-127, 126), k_fp8(0, int(e4m3_grid().size()) - 2);
  for (size_t c = 0; c < row.size(); ++c) {
    if (c % 2 == 1 || q == Quant::kNone) {
      row[c] = anywhere(rng);
    } else if (q == Quant::kInt8) {
      row[c] = k_int8(rng) + 0.5;
    } else {
      const int k = k_fp8(rng);
      row[c] = (rng() % 2 ? -0.5 : 0.5) * (e4m3_grid()[k] + e4m3_grid()[k + 1]);
    }
  }
  row[std::uniform_int_distribution<size_t>(0, row.size() - 1)(rng)] = rng() % 2 ? -qmax : qmax;
}

// Row kinds cycled by kSpecialRows; `kind` in [0, kAbsmaxRowKinds).
inline void fill_absmax_special_row(std::vector<double>& row, int kind, Quant q, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, row.size() - 1);
  const double inf = std::numeric_limits<double>::infinity();
  for (double& v : row) v = near_normal(rng);
  switch (kind) {
    case 0: break;
    case 1: for (size_t c = 0; c < row.size(); ++c) row[c] = c % 2 ? -0.0 : 0.0; break;  // zeros: scale 0
    case 2: row[pick(rng)] = std::copysign(std::numeric_limits<double>::quiet_NaN(), rng() % 2 ? 1.0 : -1.0); break;  // NaN row, either sign
    case 3: row[pick(rng)] = rng() % 2 ? inf : -inf; break;                             // scale inf, x / inf
    case 4: fill_exact_row(row, q, rng); break;
    case 5: for (double& v : row) v *= 1e-3; row[pick(rng)] = 1e3; break;  // outlier: the rest near 0, fp8 subnormals
    case 6: for (double& v : row) v = -3.25; break;                        // constant: all -qmax
    // Tiny rows, where qmax / absmax overflows the accumulator: fp32 and bf16 denormals (zeros in fp16),
    // and fp64 denormals (zeros in the other types).
    case 7: for (double& v : row) v *= 1e-40; break;
    case 8: for (double& v : row) v *= 1e-310; break;
  }
}

// rows × cols values for abs-max scaling to q. Special rows are rotated by the seed so that shapes
// with few rows still meet every kind across a sweep.
inline std::vector<double> make_absmax_values(Values kind, Quant q, int64_t rows, int64_t cols, uint64_t seed) {
  if (kind != Values::kSpecialRows) return make_values(kind, rows, cols, seed);
  std::mt19937_64 rng(seed);
  std::vector<double> x(rows * cols), row(cols);
  for (int64_t r = 0; r < rows; ++r) {
    fill_absmax_special_row(row, static_cast<int>((r + seed) % kAbsmaxRowKinds), q, rng);
    std::copy(row.begin(), row.end(), x.begin() + r * cols);
  }
  return x;
}

}  // namespace rowwise_test
