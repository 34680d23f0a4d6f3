// Seeded test inputs that break assumptions: scales, shifts, outliers, constant rows, -inf and NaN.
#pragma once
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace rowwise_test {

enum class Values { kNormal, kSmall, kLarge, kShifted, kSpecialRows };

inline const char* values_name(Values v) {
  switch (v) {
    case Values::kNormal: return "randn";
    case Values::kSmall: return "randn*0.1";
    case Values::kLarge: return "randn*10";
    case Values::kShifted: return "randn+100";
    case Values::kSpecialRows: return "special-rows";
  }
  return "?";
}

// A near-normal draw of mean 0 and variance 1: the sum of four uniforms (the four 16-bit parts of one
// draw), centred and scaled. Why not std::normal_distribution: the GPU sweeps draw about 10^9 values,
// and this is three times as fast; its tails stop at ±2√3, where the special rows' outliers take over.
inline double near_normal(std::mt19937_64& rng) {
  const uint64_t b = rng();
  const double sum = double(b & 0xffff) + double((b >> 16) & 0xffff) + double((b >> 32) & 0xffff) + double(b >> 48);
  return ((sum + 2.0) / 65536.0 - 2.0) * 1.7320508075688772;  // each part as (k + 0.5) / 65536: mean 1/2
}

// Row kinds cycled by kSpecialRows: what a row of kind r % 8 holds.
inline void fill_special_row(std::vector<double>& row, int64_t r, std::mt19937_64& rng) {
  const double inf = std::numeric_limits<double>::infinity();
  std::uniform_int_distribution<size_t> pick(0, row.size() - 1);
  for (double& v : row) v = near_normal(rng);
  switch (r % 8) {
    case 0: break;
    case 1: for (double& v : row) v = -inf; break;                                    // all -inf
    case 2: row[pick(rng)] = std::numeric_limits<double>::quiet_NaN(); break;          // one NaN
    case 3: for (size_t c = 0; c < row.size(); c += 2) row[c] = -inf; break;          // half -inf
    case 4: for (double& v : row) v = 3.25; break;                                    // constant
    case 5: row[pick(rng)] = 60.0; break;                                             // outlier
    case 6: row[row.size() - 1] = 30.0; break;                                        // max at the end
    case 7: std::fill(row.begin(), row.begin() + row.size() * 3 / 4, -inf); break;    // -inf slices
  }
}

// rows × cols values (dense), then rounded to T by the caller. Special rows are rotated by the seed (row
// r is of kind r + seed), so that shapes of one or few rows still meet every kind across a sweep.
inline std::vector<double> make_values(Values kind, int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> x(rows * cols);
  if (kind == Values::kSpecialRows) {
    std::vector<double> row(cols);
    for (int64_t r = 0; r < rows; ++r) {
      fill_special_row(row, r + static_cast<int64_t>(seed % 8), rng);
      std::copy(row.begin(), row.end(), x.begin() + r * cols);
    }
    return x;
  }
  const double scale = kind == Values::kSmall ? 0.1 : kind == Values::kLarge ? 10.0 : 1.0;
  const double shift = kind == Values::kShifted ? 100.0 : 0.0;
  for (double& v : x) v = near_normal(rng) * scale + shift;
  return x;
}

// n normal floats with standard deviation `scale`, drawn from rng.
inline std::vector<float> random_floats(size_t n, std::mt19937_64& rng, float scale) {
  std::normal_distribution<float> normal(0.f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

}  // namespace rowwise_test
