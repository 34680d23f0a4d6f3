// softmax and log_softmax on the GPU against the float64 reference: every dtype, every strategy
// forced and through dispatch, odd shapes, strided and misaligned rows, in-place, special values.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../common/gpu_check.h"
#include "../common/gpu_skip.h"

namespace rowwise_test {
namespace {

using rowwise::Strategy;

const std::vector<int64_t> kCols = {1,    2,    3,    7,    31,   32,   33,   63,   65,   127,  129,
                                    255,  257,  500,  511,  513,  1000, 1023, 1024, 1025, 2049, 4097,
                                    8191, 16385, 65537};

// Rows per cols: many tiny rows, fewer long ones, always including a single row.
std::vector<int64_t> rows_for(int64_t cols) {
  if (cols <= 65) return {1, 3, 4097};
  if (cols <= 1025) return {2, 199};
  if (cols <= 16385) return {1, 37};
  return {3};
}

using Param = std::tuple<Dtype, Op, Strategy>;

class ForwardOps : public ::testing::TestWithParam<Param> {};

template <class T> void run_sweep(Op op, Strategy strategy) {
  int shape_index = 0, checked = 0;
  for (int64_t cols : kCols) {
    for (int64_t rows : rows_for(cols)) {
      for (const Layout& layout : all_layouts()) {
        const Values values = static_cast<Values>(shape_index++ % 5);
        const uint64_t seed = 1000003ull * cols + rows;
        const CaseReport rep = check_forward_case<T>(op, rows, cols, values, layout, {strategy}, seed);
        if (strategy != Strategy::kAuto && rep.status == cudaErrorInvalidValue) continue;  // row does not fit
        ++checked;
        EXPECT_TRUE(rep.ok()) << op_name(op) << " " << dtype_name(Element<T>::kDtype) << " strategy "
                              << rowwise::strategy_name(strategy) << " rows " << rows << " cols " << cols << " "
                              << layout.name << " " << values_name(values) << ": " << rep.mismatches
                              << " mismatches, " << rep.unwritten << " unwritten, " << rep.stray_writes
                              << " stray writes; first: " << rep.first_problem;
      }
    }
  }
  EXPECT_GT(checked, 0) << "the strategy ran no shape";
}

TEST_P(ForwardOps, MatchesFloat64Reference) {
  RW_REQUIRE_GPU();
  const auto [dtype, op, strategy] = GetParam();
  switch (dtype) {
    case Dtype::kF32: return run_sweep<float>(op, strategy);
    case Dtype::kF64: return run_sweep<double>(op, strategy);
    case Dtype::kF16: return run_sweep<__half>(op, strategy);
    case Dtype::kBF16: return run_sweep<__nv_bfloat16>(op, strategy);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllStrategies, ForwardOps,
    ::testing::Combine(::testing::Values(Dtype::kF32, Dtype::kF64, Dtype::kF16, Dtype::kBF16),
                       ::testing::Values(Op::kSoftmax, Op::kLogSoftmax),
                       ::testing::Values(Strategy::kAuto, Strategy::kWarp, Strategy::kBlock, Strategy::kBlockSmem,
                                         Strategy::kTwoPass)),
    [](const ::testing::TestParamInfo<Param>& info) {
      return std::string(dtype_name(std::get<0>(info.param))) + "_" + op_name(std::get<1>(info.param)) + "_" +
             rowwise::strategy_name(std::get<2>(info.param));
    });

// Fresh random shapes, layouts and values on every run; the seed is printed to replay a failure.
TEST(ForwardOpsFuzz, RandomShapesThroughDispatch) {
  RW_REQUIRE_GPU();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> log_cols(0, 15), pick_layout(0, int(all_layouts().size()) - 1),
      pick_values(0, 4), pick_op(0, 1), pick_dtype(0, 2);
  for (int i = 0; i < 60; ++i) {
    const int64_t cols = 1 + std::uniform_int_distribution<int64_t>(0, (int64_t(1) << log_cols(rng)))(rng);
    const int64_t rows = 1 + std::uniform_int_distribution<int64_t>(0, std::max<int64_t>(1, 200000 / cols))(rng);
    const Layout& layout = all_layouts()[pick_layout(rng)];
    const Values values = static_cast<Values>(pick_values(rng));
    const Op op = static_cast<Op>(pick_op(rng));
    const uint64_t case_seed = rng();
    CaseReport rep;
    switch (pick_dtype(rng)) {
      case 0: rep = check_forward_case<float>(op, rows, cols, values, layout, {}, case_seed); break;
      case 1: rep = check_forward_case<__half>(op, rows, cols, values, layout, {}, case_seed); break;
      default: rep = check_forward_case<__nv_bfloat16>(op, rows, cols, values, layout, {}, case_seed); break;
    }
    EXPECT_TRUE(rep.ok()) << "seed " << seed << " case " << i << ": " << op_name(op) << " rows " << rows << " cols "
                          << cols << " " << layout.name << " " << values_name(values) << ": " << rep.first_problem;
  }
}

}  // namespace
}  // namespace rowwise_test
