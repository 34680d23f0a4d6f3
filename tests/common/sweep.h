// The shape sweep every op's GPU test runs: odd column counts around every warp, pack and block
// boundary, layouts and value kinds rotating over the shapes, one strategy forced (or dispatch).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "gpu_check.h"

namespace rowwise_test {

inline const std::vector<int64_t>& sweep_cols() {
  // 197: 16-bit warp rows of 3 packs a lane, two a group with their edges, or one for softmax and
  // log_softmax where memory outpaces the SMs (129 / 255: 2 / 4 packs; 41 / 75: fp64 / fp32 rows of
  // 3); 40 / 72: fp32 / 16-bit rows of 10 / 9 whole packs, 3 packs a lane for two rows (softmax,
  // log_softmax), 5 lanes of 2 / 3 lanes of 3 (int8 / fp8 outputs);
  // 12 / 20 / 24 / 40: fp32 rows of 3 / 5 and 16-bit rows of 3 / 5 whole packs,
  // in groups of as many lanes; 144: 16-bit rows of 18 whole packs in 6 lanes of 3; 136 / 200: 16-bit
  // rows of 17 / 25 whole packs, 8 lanes of 3 / 4 (without the edge code for ops of one operand where
  // memory outpaces the SMs); 150 / 70: ragged 16-bit / fp32 rows of 18 / 17 whole packs, 6 lanes
  // of 3 with the edge for softmax and log_softmax there;
  // 101 / 139 / 265 / 1041: ragged rows whose last whole packs go with the edge where memory outpaces the
  // SMs (fp32 exp ops at 3 packs a lane, two rows a group; int8 / fp8 outputs of 16-bit rows at 2; exp ops'
  // rows at 4, 16-bit and fp32; 16-bit exp ops' rows two packs past 32 lanes of 4);
  // 520 / 1064: 16-bit rows of 65 / 133 whole packs, the last 1 / 5 with the edge where memory outpaces
  // the SMs (16 / 32 lanes of 4); 297 / 777: ragged 16-bit warp rows of 5 / 7 packs a lane, softmax
  // keeping its exps there; 500 / 513 / 1000 / 1024: 16-bit softmax rows in 16 / 32 lanes of 4 packs where
  // memory outpaces the SMs (8 / 16 of 8 elsewhere);
  // 580 / 768 / 800: warp rows of 5 / 6 / 7 packs a lane (fp32; fp32 outputs of 500 / 580 columns take
  // one-warp block rows of 4 / 7 packs a thread where memory outpaces the SMs); 1152 / 1280: 16-bit warp
  // rows of 5 packs of 8; 1399: 16-bit one-warp block rows of 6 packs a thread with the row's edge there;
  // 2199 / 2304 / 2560 / 2711: 16-bit block rows of 9 / 9 / 10 / 11 packs a thread there (11 elsewhere),
  // 2199 and 2711 with the row's edge; 12345: 16-bit block rows with the row's edge.
  static const std::vector<int64_t> cols = {1,    2,    3,    7,    12,   20,   24,   31,    32,    33,    40,   41,
                                            63,   65,   70,   72,   75,   101,  127,  129,   136,   139,   144,  150,
                                            197,  200,  255,  257,  265,  297,  500,  511,   513,   520,   580,  768,
                                            777,  800,  1000, 1023, 1024, 1025, 1041, 1064,  1152,  1280,  1399, 2049,
                                            2199, 2304, 2560, 2711, 4097, 8191, 12345, 16385, 65537};
  return cols;
}

// Rows per cols: many tiny rows, fewer long ones, always including a single row.
inline std::vector<int64_t> sweep_rows(int64_t cols) {
  if (cols <= 65) return {1, 3, 4097};
  if (cols <= 1025) return {2, 199};
  if (cols <= 16385) return {1, 37};
  return {3};
}

// Dispatch and every strategy forced: the sweeps' strategy axis.
inline const std::vector<rowwise::Strategy>& sweep_strategies() {
  static const std::vector<rowwise::Strategy> strategies(std::begin(rowwise::kStrategies),
                                                         std::end(rowwise::kStrategies));
  return strategies;
}

// A forced strategy may refuse a row it cannot hold (cudaErrorInvalidValue): such a case is skipped,
// not failed.
inline bool refused_as_forced(rowwise::Strategy strategy, const CaseReport& report) {
  return strategy != rowwise::Strategy::kAuto && report.status == cudaErrorInvalidValue;
}

struct Case {
  int64_t rows, cols;
  Values values;
  const Layout* layout;
  rowwise::Options options;
  uint64_t seed;
  int index;  // position in the sweep, for choices a check varies case by case
};

inline std::string describe(const Case& c) {
  const std::string bound = c.options.max_ctas > 0 ? " max_ctas " + std::to_string(c.options.max_ctas) : "";
  return "rows " + std::to_string(c.rows) + " cols " + std::to_string(c.cols) + " " + c.layout->name + " " +
         values_name(c.values) + bound;
}

// Options of a sweep's case: the strategy, and for two cases in three a bound of 1 or 3 CTAs per 256
// rows, so that every strategy's CTAs loop over rows (their second iterations reuse shared memory and
// counters); unbounded, block kernels loop only past 2^31 rows. Per 256 rows: one CTA looping over
// 4097 rows takes 4–36 ms on the long-row strategies, and GPU time is what the suite's processes
// queue for, one context at a time.
inline rowwise::Options sweep_options(rowwise::Strategy strategy, int index, int64_t rows) {
  rowwise::Options options{strategy};
  options.max_ctas = std::array<int64_t, 3>{0, 1, 3}[index % 3] * ((rows + 255) / 256);
  return options;
}

// Runs check(Case) -> CaseReport for every shape with `per_shape` layouts each (rotating, so every
// layout meets many shapes; all of them when per_shape is the list's size). A forced strategy skips
// the shapes it cannot hold (cudaErrorInvalidValue) but must run some.
template <class Check>
void sweep(const std::string& what, rowwise::Strategy strategy, const std::vector<Layout>& layouts, size_t per_shape,
           Check&& check) {
  int index = 0, shape = 0, checked = 0;
  for (int64_t cols : sweep_cols()) {
    for (int64_t rows : sweep_rows(cols)) {
      for (size_t i = 0; i < per_shape; ++i) {
        const Layout& layout = layouts[(shape * per_shape + i) % layouts.size()];
        const Case c{rows, cols, static_cast<Values>(index % 5), &layout, sweep_options(strategy, index, rows),
                     1000003ull * cols + rows, index};
        ++index;
        const CaseReport rep = check(c);
        if (refused_as_forced(strategy, rep)) continue;
        ++checked;
        EXPECT_TRUE(rep.ok()) << what << " strategy " << rowwise::strategy_name(strategy) << " " << describe(c)
                              << ": " << rep.summary();
      }
      ++shape;
    }
  }
  EXPECT_GT(checked, 0) << what << ": the strategy ran no shape";
}

// A random case through dispatch, for fuzz tests: up to 2^15 + 1 cols, about 200k elements at most.
inline Case random_case(std::mt19937_64& rng, const std::vector<Layout>& layouts, int index) {
  std::uniform_int_distribution<int> log_cols(0, 15), pick_layout(0, int(layouts.size()) - 1), pick_values(0, 4);
  const int64_t cols = 1 + std::uniform_int_distribution<int64_t>(0, (int64_t(1) << log_cols(rng)))(rng);
  const int64_t rows = 1 + std::uniform_int_distribution<int64_t>(0, std::max<int64_t>(1, 200000 / cols))(rng);
  const Layout* layout = &layouts[pick_layout(rng)];
  const Values values = static_cast<Values>(pick_values(rng));
  return {rows, cols, values, layout, {}, rng(), index};
}

// Dtypes the fuzz tests draw from (double is slow on most GPUs and covered by the sweeps).
inline Dtype random_fuzz_dtype(std::mt19937_64& rng) {
  static constexpr Dtype kDtypes[] = {Dtype::kF32, Dtype::kF16, Dtype::kBF16};
  return kDtypes[std::uniform_int_distribution<int>(0, 2)(rng)];
}

}  // namespace rowwise_test
