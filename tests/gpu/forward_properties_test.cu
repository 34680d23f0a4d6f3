// Properties and interfaces beyond the reference sweep: rows sum to 1, exp(log_softmax) = softmax,
// 64-bit row offsets, fused Load/Store functors, error returns on a real device.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../common/gpu_check.h"
#include "../common/gpu_skip.h"

namespace rowwise_test {
namespace {

std::vector<float> random_floats(size_t n, uint64_t seed, float scale) {
  std::mt19937_64 rng(seed);
  return rowwise_test::random_floats(n, rng, scale);
}

TEST(ForwardProperties, SoftmaxRowsSumToOneAndMatchExpLogSoftmax) {
  RW_REQUIRE_GPU();
  const uint64_t seed = std::random_device{}();
  for (int64_t cols : {5, 96, 1000, 4099, 30000}) {
    const int64_t rows = 64;
    const auto x = random_floats(rows * cols, seed + cols, 3.f);
    DeviceBuffer<float> xd, sd, ld;
    ASSERT_EQ(xd.allocate(rows * cols), cudaSuccess);
    ASSERT_EQ(sd.allocate(rows * cols), cudaSuccess);
    ASSERT_EQ(ld.allocate(rows * cols), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(xd.ptr, x.data(), x.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(rowwise::softmax(xd.ptr, sd.ptr, rows, cols), cudaSuccess);
    ASSERT_EQ(rowwise::log_softmax(xd.ptr, ld.ptr, rows, cols), cudaSuccess);
    std::vector<float> s(x.size()), l(x.size());
    ASSERT_EQ(cudaMemcpy(s.data(), sd.ptr, s.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(l.data(), ld.ptr, l.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c) {
        sum += s[r * cols + c];
        ASSERT_NEAR(std::exp(double(l[r * cols + c])), s[r * cols + c], 1e-6 + 2e-5 * s[r * cols + c])
            << "seed " << seed << " cols " << cols << " row " << r << " col " << c;
      }
      ASSERT_NEAR(sum, 1.0, 1e-4) << "seed " << seed << " cols " << cols << " row " << r;
    }
  }
}

// Row 1 starts 2^31 + 8 elements after row 0: offsets must not wrap in 32 bits.
TEST(ForwardProperties, RowOffsetsBeyond32Bits) {
  RW_REQUIRE_GPU();
  using T = __nv_bfloat16;
  const int64_t cols = 1000, stride = (int64_t(1) << 31) + 8, rows = 2;
  const int64_t len = stride + cols;
  DeviceBuffer<T> buf;
  ASSERT_EQ(buf.allocate(len), cudaSuccess);
  const auto x = random_floats(rows * cols, 7, 1.f);
  std::vector<T> xt(rows * cols);
  std::vector<double> xr(rows * cols);
  for (size_t i = 0; i < xt.size(); ++i) {
    xt[i] = __float2bfloat16_rn(x[i]);
    xr[i] = __bfloat162float(xt[i]);
  }
  for (int64_t r = 0; r < rows; ++r)
    ASSERT_EQ(cudaMemcpy(buf.ptr + r * stride, &xt[r * cols], cols * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(rowwise::softmax(buf.ptr, buf.ptr, rows, cols, stride, stride), cudaSuccess);
  const auto ref = reference_rows(Op::kSoftmax, xr, rows, cols);
  std::vector<T> y(cols);
  for (int64_t r = 0; r < rows; ++r) {
    ASSERT_EQ(cudaMemcpy(y.data(), buf.ptr + r * stride, cols * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int64_t c = 0; c < cols; ++c)
      ASSERT_TRUE(close_enough(__bfloat162float(y[c]), ref[r * cols + c], 8e-3, 1.6e-2)) << "row " << r << " col " << c;
  }
}

// Temperature scaling fused through the functor interface: softmax(x / t) without a second kernel.
struct ScaledLoad {
  const float* x;
  int64_t cols;
  float inv_t;
  template <int N> __device__ void load(float* dst, int64_t row, int64_t col) const {
    for (int i = 0; i < N; ++i) dst[i] = x[row * cols + col + i] * inv_t;
  }
};
struct PlainStore {
  float* y;
  int64_t cols;
  template <int N> __device__ void store(const float* src, int64_t row, int64_t col) const {
    for (int i = 0; i < N; ++i) y[row * cols + col + i] = src[i];
  }
};

TEST(ForwardProperties, FusedLoadStoreFunctors) {
  RW_REQUIRE_GPU();
  const float t = 0.7f;
  for (int64_t cols : {200, 777}) {
    const int64_t rows = 33;
    const auto x = random_floats(rows * cols, 11 + cols, 1.f);
    DeviceBuffer<float> xd, yd;
    ASSERT_EQ(xd.allocate(rows * cols), cudaSuccess);
    ASSERT_EQ(yd.allocate(rows * cols), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(xd.ptr, x.data(), x.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    std::vector<double> xs(x.size());
    for (size_t i = 0; i < x.size(); ++i) xs[i] = double(x[i] * (1.f / t));
    const auto ref = reference_rows(Op::kLogSoftmax, xs, rows, cols);
    for (int pack : {1, 2, 4, 8}) {  // float packs of 4 to 32 bytes; 777 columns end ragged
      for (rowwise::Strategy s : rowwise::kStrategies) {
        const std::string what = std::string(rowwise::strategy_name(s)) + " cols " + std::to_string(cols) +
                                 " pack " + std::to_string(pack);
        ASSERT_EQ(cudaMemset(yd.ptr, 0xFF, rows * cols * 4), cudaSuccess);
        const cudaError_t e = rowwise::log_softmax<float>(ScaledLoad{xd.ptr, cols, 1.f / t}, PlainStore{yd.ptr, cols},
                                                          rows, cols, pack, 0, {s});
        // Functors give no addresses to stage (tile). Scalar ones: a warp holds at most 256 elements of a
        // row; wider packs may hold more, or be refused.
        const bool long_for_a_warp = s == rowwise::Strategy::kWarp && cols > 256;
        if (long_for_a_warp && pack > 1 && e == cudaErrorInvalidValue) continue;
        const bool fits = s != rowwise::Strategy::kTile && !(long_for_a_warp && pack == 1);
        ASSERT_EQ(e, fits ? cudaSuccess : cudaErrorInvalidValue) << what;
        if (!fits) continue;
        std::vector<float> y(x.size());
        ASSERT_EQ(cudaMemcpy(y.data(), yd.ptr, y.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        for (size_t i = 0; i < y.size(); ++i) ASSERT_TRUE(close_enough(y[i], ref[i], 1e-6, 1e-5)) << what << " element " << i;
      }
    }
  }
}

TEST(ForwardProperties, BadArgumentsOnADevice) {
  RW_REQUIRE_GPU();
  DeviceBuffer<float> buf;
  ASSERT_EQ(buf.allocate(1024), cudaSuccess);
  EXPECT_EQ(rowwise::softmax(buf.ptr, buf.ptr, 4, 100, 100, 50), cudaErrorInvalidValue);  // stride < cols
  EXPECT_EQ(rowwise::softmax(buf.ptr, buf.ptr + 512, 4, 100, 100, 101), cudaSuccess);
  EXPECT_EQ(rowwise::softmax(buf.ptr, buf.ptr, 4, 100, 100, 101), cudaErrorInvalidValue);  // in-place, two layouts
  EXPECT_EQ(rowwise::softmax(buf.ptr, buf.ptr, 1, 100000, 100000, 100000, 0, {rowwise::Strategy::kWarp}),
            cudaErrorInvalidValue);  // forced strategy that cannot hold the row
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// Clusters need sm_90: dispatch refuses a forced cluster below it.
bool device_has_clusters() {
  int device = 0, major = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major >= 9;
}

// A call returns its own error, not an earlier failed runtime call's still in the thread's last error
// (the caller's own, or one of rowwise's: a workspace allocation out of memory had failed every later
// call). Every launch path: warp, block, block_smem, tile, cluster, split, two_launch.
TEST(ForwardProperties, AnEarlierFailedCallIsNotReported) {
  RW_REQUIRE_GPU();
  const int64_t rows = 4, cols = 70000;
  DeviceBuffer<float> buf;
  ASSERT_EQ(buf.allocate(rows * cols), cudaSuccess);
  ASSERT_EQ(cudaMemset(buf.ptr, 0, rows * cols * sizeof(float)), cudaSuccess);
  struct Forced {
    rowwise::Strategy strategy;
    int64_t cols;
  };
  const Forced cases[] = {{rowwise::Strategy::kWarp, 100},       {rowwise::Strategy::kBlock, 3000},
                          {rowwise::Strategy::kBlockSmem, 20000}, {rowwise::Strategy::kTile, 33},
                          {rowwise::Strategy::kCluster, 70000},   {rowwise::Strategy::kSplit, 70000},
                          {rowwise::Strategy::kTwoLaunch, 70000}};
  for (const Forced& f : cases) {
    if (f.strategy == rowwise::Strategy::kCluster && !device_has_clusters()) continue;
    void* never = nullptr;
    ASSERT_NE(cudaMalloc(&never, size_t{1} << 62), cudaSuccess);
    ASSERT_NE(cudaPeekAtLastError(), cudaSuccess);  // the failure waits in the thread's last error
    EXPECT_EQ(rowwise::softmax(buf.ptr, buf.ptr, rows, f.cols, f.cols, f.cols, 0, {f.strategy}), cudaSuccess)
        << rowwise::strategy_name(f.strategy);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << rowwise::strategy_name(f.strategy);
    cudaGetLastError();
  }
}

// What rowwise sets on its kernels (shared-memory opt-in, non-portable cluster sizes) lives in the
// context, which cudaDeviceReset replaces: strategies that need it must set it again after a reset.
// fp32 rows of 20000 columns (80 KB, beyond the 48 KB default), one row of 65536 (a 16-CTA cluster),
// 33 columns (tiles).
TEST(ForwardProperties, StrategiesRunAfterADeviceReset) {
  RW_REQUIRE_GPU();
  struct Forced {
    rowwise::Strategy strategy;
    int64_t rows, cols;
  };
  const Forced cases[] = {{rowwise::Strategy::kBlockSmem, 3, 20000},
                          {rowwise::Strategy::kSplit, 3, 20000},
                          {rowwise::Strategy::kCluster, 1, 65536},
                          {rowwise::Strategy::kTile, 300, 33}};
  for (int round = 0; round < 2; ++round) {
    for (const Forced& f : cases) {
      if (f.strategy == rowwise::Strategy::kCluster && !device_has_clusters()) continue;
      const CaseReport r = check_forward_case<float>(Op::kSoftmax, f.rows, f.cols, Values::kNormal, forward_layouts()[0],
                                                     {f.strategy}, 17 + f.cols);
      EXPECT_TRUE(r.ok()) << rowwise::strategy_name(f.strategy) << (round ? " after" : " before")
                          << " the reset: " << r.summary();
    }
    ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  }
}

// Tiles of 16-bit rows keep each run's values (softmax: exps) for the map (kernels/tile_rows.cuh):
// rows of one run in every tile kernel, of 2-4 runs in a kernel of their own, longer rows read again.
// Every length through 64 columns, so that every last run (8, 6, 4 or 2 long; full or one short)
// meets each kernel; then ragged rows of up to 149 columns, a thread each in tiles of up to 74.8 KB, and
// of up to 297 a pair of threads each (softmax through dispatch up to 167, log_softmax 195; forced to
// 298), the output over the input's plane (x and y start at one offset from 16 bytes in all three layouts;
// the sweeps' misaligned-x and misaligned-y-by-4 layouts and int8 / fp8 outputs take a plane of their
// own).
template <class T> void check_short_rows_in_tiles() {
  const char* layouts[] = {"contiguous", "misaligned-both", "in-place"};
  std::vector<int64_t> lengths;
  for (int64_t cols = 1; cols <= 64; ++cols) lengths.push_back(cols);
  for (int64_t cols : {65, 79, 97, 103, 105, 127, 129, 137, 149, 151, 167, 195, 199, 255, 263, 297})
    lengths.push_back(cols);
  for (int64_t cols : lengths) {
    for (int i = 0; i < 3; ++i) {
      const Values values = (cols + i) % 2 ? Values::kSpecialRows : Values::kLarge;
      for (Op op : {Op::kSoftmax, Op::kLogSoftmax}) {
        for (rowwise::Strategy s : {rowwise::Strategy::kAuto, rowwise::Strategy::kTile}) {
          const CaseReport r =
              check_forward_case<T>(op, 515, cols, values, forward_layout(layouts[i]), {s}, cols * 7 + i);
          EXPECT_TRUE(r.ok()) << op_name(op) << " " << rowwise::strategy_name(s) << " cols " << cols << " "
                              << layouts[i] << " " << values_name(values) << ": " << r.summary();
        }
      }
    }
  }
}

TEST(ForwardProperties, ShortForwardRowsInTilesOfEveryLength) {
  RW_REQUIRE_GPU();
  check_short_rows_in_tiles<__nv_bfloat16>();
  check_short_rows_in_tiles<__half>();
}

}  // namespace
}  // namespace rowwise_test
