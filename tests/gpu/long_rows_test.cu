// Rows longer than one CTA holds (the cluster, cluster_smem, split and two_launch strategies, and
// block_smem's rows longer than its buffer, the rest streamed) and whole-tensor softmax: 36001 to 2.5M
// columns in 1-8 rows, every op family and dtype, forced and through dispatch; 160 rows of ~400 KB
// through dispatch;
// rows on register clusters, one more than SMs (clusters that loop over rows), in every op family; as many
// rows of 1-2 MB (tail slices on an H200);
// tensor_softmax and tensor_log_softmax on odd n with both workspace kinds, including sizes past what
// the GPU holds, and one row of more than 2^31 elements.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "../common/gpu_check.h"
#include "../common/gpu_check_absmax.h"
#include "../common/gpu_check_backward.h"
#include "../common/gpu_skip.h"
#include "../common/sweep.h"

namespace rowwise_test {
namespace {

using rowwise::Strategy;

// 36001: fp64 rows and fp32 gradients longer than block_smem's buffer; 65537: fp32 rows and 16-bit
// gradients; 131072: 16-bit rows; 2500001: more than split's resident CTAs hold of a row (~2.2M fp32
// elements of one operand on an H200): split's streamed tails in every op.
const std::vector<int64_t> kLongCols = {36001, 65537, 131072, 262144, 1 << 20, 2500001};

// One row of rotating values, and eight special rows (every kind, -inf slices and the max in the
// last slice among them) on at most 3 CTAs (rounded up to one row's cluster or split CTAs), so that
// CTAs loop over rows.
struct LongCase {
  int64_t rows;
  Values values;
  int64_t max_ctas;
};
std::vector<LongCase> long_cases(int64_t cols) {
  return {{1, static_cast<Values>(cols % 4), 0}, {8, Values::kSpecialRows, 3}};
}

using Param = std::tuple<Dtype, Strategy>;
class LongRows : public ::testing::TestWithParam<Param> {};

TEST_P(LongRows, EveryOpMatchesFloat64Reference) {
  RW_REQUIRE_GPU();
  const Dtype dtype = std::get<0>(GetParam());
  const Strategy strategy = std::get<1>(GetParam());
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    int index = 0, checked = 0;
    auto expect_ok = [&](const CaseReport& r, const std::string& what) {
      if (refused_as_forced(strategy, r)) return;  // past 16 CTAs' worth, or block_smem's buffer
      ++checked;
      EXPECT_TRUE(r.ok()) << what << ": " << r.summary();
    };
    for (int64_t cols : kLongCols) {
      for (const LongCase& lc : long_cases(cols)) {
        rowwise::Options options{strategy};
        options.max_ctas = lc.max_ctas;
        const uint64_t seed = 7919ull * cols + lc.rows;
        const std::string what = std::string(dtype_name(dtype)) + " " + rowwise::strategy_name(strategy) + " rows " +
                                 std::to_string(lc.rows) + " cols " + std::to_string(cols) + " max_ctas " +
                                 std::to_string(lc.max_ctas) + " ";
        const Layout& fl = forward_layouts()[index % forward_layouts().size()];
        const Layout& bl = backward_layouts()[index % backward_layouts().size()];
        const Layout& al = absmax_layouts<T, T>()[index % absmax_layouts<T, T>().size()];
        ++index;
        for (Op op : {Op::kSoftmax, Op::kLogSoftmax}) {
          expect_ok(check_forward_case<T>(op, lc.rows, cols, lc.values, fl, options, seed),
                    what + op_name(op) + " " + fl.name);
        }
        for (GradOp op : {GradOp::kSoftmaxBackward, GradOp::kLogSoftmaxBackward}) {
          expect_ok(check_backward_case<T>(op, lc.rows, cols, lc.values, bl, options, seed),
                    what + grad_op_name(op) + " " + bl.name);
        }
        expect_ok(check_absmax_case<T, T>(lc.rows, cols, lc.values, al, true, options, seed),
                  what + "absmax_scale " + al.name);
        expect_ok(check_absmax_case<T, int8_t>(lc.rows, cols, lc.values, forward_layouts()[0], true, options, seed),
                  what + "absmax_int8");
      }
    }
    EXPECT_GT(checked, 0) << "the strategy ran no shape";
  });
}

INSTANTIATE_TEST_SUITE_P(
    LongStrategies, LongRows,
    ::testing::Combine(::testing::Values(Dtype::kF32, Dtype::kF64, Dtype::kF16, Dtype::kBF16),
                       ::testing::Values(Strategy::kAuto, Strategy::kSplit, Strategy::kTwoLaunch, Strategy::kCluster,
                                         Strategy::kClusterSmem, Strategy::kBlockSmem)),
    [](const ::testing::TestParamInfo<Param>& info) {
      return std::string(dtype_name(std::get<0>(info.param))) + "_" + rowwise::strategy_name(std::get<1>(info.param));
    });

// More rows than an H100 or H200 has SMs, each longer than block_smem takes (~400 KB of one operand
// on chip, 16-bit softmax rows of 336 KB too; gradients of ~400, 512 and ~800 KB): through dispatch,
// clusters for fp32 and 16-bit rows up to 1 MB (more rows than the GPU holds clusters at once; the ragged
// one-operand rows' and 16-bit softmax rows' slices in shared memory and the 16-bit gradients' dense
// slices on an H200), split for doubles. Contiguous and misaligned-strided in-place rows.
class ManyLongRows : public ::testing::TestWithParam<Dtype> {};

TEST_P(ManyLongRows, EveryOpMatchesFloat64Reference) {
  RW_REQUIRE_GPU();
  visit_dtype(GetParam(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t rows = 160;
    const int64_t cols = 409600 / static_cast<int64_t>(sizeof(T)) + 3;
    uint64_t seed = 104729ull * cols;
    for (const Layout& layout : {forward_layout("contiguous"), forward_layout("in-place-misaligned-strided")}) {
      ++seed;
      const std::string what = std::string(dtype_name(GetParam())) + " " + layout.name + " ";
      for (Op op : {Op::kSoftmax, Op::kLogSoftmax}) {
        const CaseReport r = check_forward_case<T>(op, rows, cols, Values::kSpecialRows, layout, {}, seed);
        EXPECT_TRUE(r.ok()) << what << op_name(op) << ": " << r.summary();
      }
      const CaseReport absmax = check_absmax_case<T, T>(rows, cols, Values::kSpecialRows, layout, true, {}, seed);
      EXPECT_TRUE(absmax.ok()) << what << "absmax_scale: " << absmax.summary();
      // 16-bit softmax rows of whole packs (336 KB): slices in shared memory, clusters of 3 on an H200
      if constexpr (sizeof(T) == 2) {
        for (Op op : {Op::kSoftmax, Op::kLogSoftmax}) {
          const CaseReport r = check_forward_case<T>(op, rows, 168000, Values::kSpecialRows, layout, {}, seed);
          EXPECT_TRUE(r.ok()) << what << op_name(op) << " cols 168000: " << r.summary();
        }
      }
    }
    // y and dy: ~400 and ~800 KB, ragged, and 512 KB of whole packs (clusters; 16-bit ones in dense slices
    // on an H200)
    for (int64_t grad_cols : {cols / 2, cols, 262144 / static_cast<int64_t>(sizeof(T))}) {
      for (GradOp op : {GradOp::kSoftmaxBackward, GradOp::kLogSoftmaxBackward}) {
        const CaseReport r = check_backward_case<T>(op, rows, grad_cols, Values::kSpecialRows, backward_layouts()[0], {}, 7);
        EXPECT_TRUE(r.ok()) << grad_op_name(op) << " cols " << grad_cols << ": " << r.summary();
      }
    }
    const CaseReport int8 = check_absmax_case<T, int8_t>(rows, cols, Values::kSpecialRows, forward_layout("contiguous"), true, {}, 11);
    EXPECT_TRUE(int8.ok()) << "absmax_int8: " << int8.summary();
  });
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ManyLongRows, ::testing::Values(Dtype::kF32, Dtype::kF64, Dtype::kF16, Dtype::kBF16),
                         [](const ::testing::TestParamInfo<Dtype>& info) { return std::string(dtype_name(info.param)); });

// Rows on register cluster slices, 40 (more than the clusters held at once, most clusters taking one) and
// one more than SMs: where memory outpaces the SMs (an H200) a grid of the clusters held at once loops
// over them, pushing its states (dispatch/block_plan.cuh: clusters_loop_over_rows; not 16-bit softmax),
// elsewhere a cluster takes each. Every op family; 512 KB rows of whole packs (16-bit one-operand rows:
// 1 MB), strided rows of the packs' phase, out of place and in place; fp32 gradients of partial packs too,
// and 16-bit ones over dy.
class ManyRowsOnLoopingClusters : public ::testing::TestWithParam<Dtype> {};

TEST_P(ManyRowsOnLoopingClusters, EveryOpMatchesFloat64Reference) {
  RW_REQUIRE_GPU();
  rowwise::DeviceInfo dev;
  ASSERT_EQ(rowwise::current_device_info(&dev), cudaSuccess);
  for (const int64_t rows : {int64_t{40}, int64_t{dev.sm_count} + 1}) visit_dtype(GetParam(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t cols = sizeof(T) == 4 ? 131080 : 262152;
    uint64_t seed = 31 + static_cast<uint64_t>(rows);
    for (const char* name : {"contiguous", "strided-same-phase", "in-place"}) {
      const Layout& layout = forward_layout(name);
      for (Op op : {Op::kSoftmax, Op::kLogSoftmax}) {
        const CaseReport r = check_forward_case<T>(op, rows, cols, Values::kSpecialRows, layout, {}, ++seed);
        EXPECT_TRUE(r.ok()) << rows << " rows, " << op_name(op) << " " << name << ": " << r.summary();
      }
      const CaseReport absmax = check_absmax_case<T, T>(rows, cols, Values::kSpecialRows, layout, true, {}, ++seed);
      EXPECT_TRUE(absmax.ok()) << rows << " rows, absmax_scale " << name << ": " << absmax.summary();
    }
    const CaseReport int8 = check_absmax_case<T, int8_t>(rows, cols, Values::kSpecialRows, forward_layout("contiguous"), true, {}, ++seed);
    EXPECT_TRUE(int8.ok()) << rows << " rows, absmax_int8: " << int8.summary();
    const int64_t grad_cols = sizeof(T) == 4 ? 100003 : 131080;  // fp32: partial packs
    for (const Layout& layout : backward_layouts()) {
      if (std::string(layout.name) != "contiguous" && std::string(layout.name) != "dx-over-dy") continue;
      for (GradOp op : {GradOp::kSoftmaxBackward, GradOp::kLogSoftmaxBackward}) {
        const CaseReport r = check_backward_case<T>(op, rows, grad_cols, Values::kSpecialRows, layout, {}, ++seed);
        EXPECT_TRUE(r.ok()) << rows << " rows, " << grad_op_name(op) << " " << layout.name << ": " << r.summary();
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ManyRowsOnLoopingClusters, ::testing::Values(Dtype::kF32, Dtype::kF16, Dtype::kBF16),
                         [](const ::testing::TestParamInfo<Dtype>& info) { return std::string(dtype_name(info.param)); });

// One more row than SMs of 1-2 MB on chip: where memory outpaces the SMs (an H200) clusters of tail
// slices, their last packs in shared memory (dispatch/block_plan.cuh: plan_tail_cluster), elsewhere split.
// fp32 rows of one operand (1.2 MB, partial packs: strided and in place too), fp32 gradients of 2 MB (the
// tails fill 64 KB) and 1.6 MB with partial packs, over dy too, and bf16 gradients of 1.6 MB.
TEST(ManyRowsOnTailSlices, EveryOpMatchesFloat64Reference) {
  RW_REQUIRE_GPU();
  rowwise::DeviceInfo dev;
  ASSERT_EQ(rowwise::current_device_info(&dev), cudaSuccess);
  const int64_t rows = int64_t{dev.sm_count} + 1;
  uint64_t seed = 71;
  for (const char* name : {"contiguous", "strided-same-phase", "in-place"}) {
    for (Op op : {Op::kSoftmax, Op::kLogSoftmax}) {
      const CaseReport r = check_forward_case<float>(op, rows, 300001, Values::kSpecialRows, forward_layout(name), {}, ++seed);
      EXPECT_TRUE(r.ok()) << op_name(op) << " " << name << ": " << r.summary();
    }
  }
  const CaseReport absmax = check_absmax_case<float, float>(rows, 300001, Values::kSpecialRows, forward_layout("contiguous"), true, {}, ++seed);
  EXPECT_TRUE(absmax.ok()) << "absmax_scale: " << absmax.summary();
  const CaseReport int8 = check_absmax_case<float, int8_t>(rows, 300001, Values::kSpecialRows, forward_layout("contiguous"), true, {}, ++seed);
  EXPECT_TRUE(int8.ok()) << "absmax_int8: " << int8.summary();
  for (const Layout& layout : backward_layouts()) {
    if (std::string(layout.name) != "contiguous" && std::string(layout.name) != "dx-over-dy") continue;
    for (GradOp op : {GradOp::kSoftmaxBackward, GradOp::kLogSoftmaxBackward}) {
      for (int64_t cols : {262144, 200003}) {
        const CaseReport r = check_backward_case<float>(op, rows, cols, Values::kSpecialRows, layout, {}, ++seed);
        EXPECT_TRUE(r.ok()) << grad_op_name(op) << " fp32 " << cols << " " << layout.name << ": " << r.summary();
      }
      const CaseReport bf16 = check_backward_case<__nv_bfloat16>(op, rows, 400000, Values::kSpecialRows, layout, {}, ++seed);
      EXPECT_TRUE(bf16.ok()) << grad_op_name(op) << " bf16 " << layout.name << ": " << bf16.summary();
    }
  }
}

// Odd sizes: tiny, one cluster's worth, past the on-chip capacity of an H200 (~30 MB) in every dtype,
// and past 128 MB of fp32 and fp64 (two_launch; its kernels in every dtype: LongRows).
const std::vector<int64_t> kTensorSizes = {1, 4097, 1000003, (int64_t{1} << 23) + 5, 9 * (int64_t{1} << 20) + 3,
                                           33 * (int64_t{1} << 20) + 1};

template <class T>
cudaError_t call_tensor(Op op, const T* x, T* y, int64_t n, void* workspace, size_t bytes) {
  if (workspace == nullptr)
    return op == Op::kSoftmax ? rowwise::tensor_softmax(x, y, n) : rowwise::tensor_log_softmax(x, y, n);
  return op == Op::kSoftmax ? rowwise::tensor_softmax(x, y, n, workspace, bytes)
                            : rowwise::tensor_log_softmax(x, y, n, workspace, bytes);
}

class TensorSoftmax : public ::testing::TestWithParam<Dtype> {};

TEST_P(TensorSoftmax, MatchesFloat64ReferenceWithBothWorkspaces) {
  RW_REQUIRE_GPU();
  visit_dtype(GetParam(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    size_t bytes = 0;
    ASSERT_EQ(rowwise::tensor_softmax_workspace_bytes<T>(&bytes), cudaSuccess);
    DeviceBuffer<unsigned char> workspace;
    ASSERT_EQ(workspace.allocate(bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(workspace.ptr, 0, bytes), cudaSuccess);
    int index = 0;
    for (int64_t n : kTensorSizes) {
      for (Op op : {Op::kSoftmax, Op::kLogSoftmax}) {
        for (void* ws : {static_cast<void*>(nullptr), static_cast<void*>(workspace.ptr)}) {
          // One row of special values, of the kind the seed picks (the max at the end, -inf over the first
          // three quarters, all -inf, a NaN, an outlier, ...).
          const Values values = index % 3 == 0 ? Values::kNormal : Values::kSpecialRows;
          const Layout& layout = forward_layouts()[index % forward_layouts().size()];
          const uint64_t seed = 104729ull * n + index;
          const CaseReport r = check_forward_launch<T>(op, 1, n, values, layout, seed, [&](const T* x, T* y, int64_t, int64_t) {
            return call_tensor(op, x, y, n, ws, bytes);
          });
          EXPECT_TRUE(r.ok()) << op_name(op) << " n " << n << " " << layout.name << (ws ? " caller workspace" : " pool")
                              << ": " << r.summary();
          ++index;
        }
      }
    }
    unsigned counters[2] = {1, 1};  // the one row's arrival and departure counts lead the workspace
    ASSERT_EQ(cudaMemcpy(counters, workspace.ptr, sizeof(counters), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(counters[0], 0u) << "workspace left armed";
    EXPECT_EQ(counters[1], 0u) << "workspace left armed";
  });
}

INSTANTIATE_TEST_SUITE_P(Dtypes, TensorSoftmax, ::testing::Values(Dtype::kF32, Dtype::kF64, Dtype::kF16, Dtype::kBF16),
                         [](const ::testing::TestParamInfo<Dtype>& info) { return dtype_name(info.param); });

// x[i] = (i % kResidues) / 128, exact in fp32: the softmax of such a row has a closed form.
constexpr int64_t kResidues = 1021;
__global__ void fill_residues(float* x, int64_t n) {
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x)
    x[i] = static_cast<float>(i % kResidues) / 128.f;
}

// One row of 2^31 + 17 fp32 elements (8 GB), in place: whole-tensor softmax (two_launch) and split
// forced, indices past 2^31 included. Each residue k appears n / kResidues times, once more for the
// first n % kResidues, so sum exp(x - max) is a sum over the residues. The kernels' fp32 sums run over
// ~16K elements a thread: held to 1e-3 relative, which a wrong index misses by far.
TEST(TensorSoftmaxBeyond32Bits, RowOfMoreThan2To31Elements) {
  RW_REQUIRE_GPU();
  const int64_t n = (int64_t{1} << 31) + 17;
  DeviceBuffer<float> buf;
  ASSERT_EQ(buf.allocate(n), cudaSuccess);
  const double max = (kResidues - 1) / 128.0;
  double sum = 0;
  for (int64_t k = 0; k < kResidues; ++k)
    sum += static_cast<double>(n / kResidues + (k < n % kResidues)) * std::exp(k / 128.0 - max);
  const std::vector<int64_t> probes = {0, 1, kResidues, (int64_t{1} << 31) - 1, int64_t{1} << 31,
                                       (int64_t{1} << 31) + 1, n - 2, n - 1};
  for (int run = 0; run < 3; ++run) {  // tensor_softmax, tensor_log_softmax, softmax forced to split
    fill_residues<<<1024, 256>>>(buf.ptr, n);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    const bool log = run == 1;
    const cudaError_t e = run == 0   ? rowwise::tensor_softmax(buf.ptr, buf.ptr, n)
                          : run == 1 ? rowwise::tensor_log_softmax(buf.ptr, buf.ptr, n)
                                     : rowwise::softmax(buf.ptr, buf.ptr, 1, n, n, n, 0, {Strategy::kSplit});
    ASSERT_EQ(e, cudaSuccess) << "run " << run;
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "run " << run;
    for (int64_t i : probes) {
      float got = 0;
      ASSERT_EQ(cudaMemcpy(&got, buf.ptr + i, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess)
          << "run " << run << " element " << i;
      const double x = static_cast<double>(i % kResidues) / 128.0;
      const double want = log ? x - max - std::log(sum) : std::exp(x - max) / sum;
      EXPECT_NEAR(got, want, 1e-3 * std::fabs(want)) << "run " << run << " element " << i;
    }
  }
}

TEST(TensorSoftmaxArguments, RefusedBeforeAnyLaunch) {
  RW_REQUIRE_GPU();
  size_t bytes = 0;
  ASSERT_EQ(rowwise::tensor_softmax_workspace_bytes<float>(&bytes), cudaSuccess);
  EXPECT_GT(bytes, 0u);
  EXPECT_EQ(rowwise::tensor_softmax_workspace_bytes<float>(nullptr), cudaErrorInvalidValue);
  DeviceBuffer<float> buf;
  DeviceBuffer<unsigned char> workspace;
  ASSERT_EQ(buf.allocate(1 << 20), cudaSuccess);
  ASSERT_EQ(workspace.allocate(bytes), cudaSuccess);
  EXPECT_EQ(rowwise::tensor_softmax(buf.ptr, buf.ptr, 1 << 20, workspace.ptr, bytes - 1), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax(buf.ptr, buf.ptr, 1 << 20, nullptr, bytes), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_log_softmax(buf.ptr, buf.ptr, -1), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax<float>(nullptr, buf.ptr, 100), cudaErrorInvalidValue);
  EXPECT_EQ(rowwise::tensor_softmax(buf.ptr, buf.ptr, 0), cudaSuccess);  // empty tensor: nothing to do
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
}  // namespace rowwise_test
