// softmax and log_softmax on the GPU against the float64 reference: every dtype, every strategy
// forced and through dispatch, odd shapes, strided and misaligned rows, in-place, special values.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../common/gpu_check.h"
#include "../common/gpu_skip.h"
#include "../common/sweep.h"

namespace rowwise_test {
namespace {

using rowwise::Strategy;

using Param = std::tuple<Dtype, Op, Strategy>;

class ForwardOps : public ::testing::TestWithParam<Param> {};

TEST_P(ForwardOps, MatchesFloat64Reference) {
  RW_REQUIRE_GPU();
  const Dtype dtype = std::get<0>(GetParam());
  const Op op = std::get<1>(GetParam());
  const Strategy strategy = std::get<2>(GetParam());
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::string what = std::string(op_name(op)) + " " + dtype_name(dtype);
    sweep(what, strategy, forward_layouts(), forward_layouts().size(), [&](const Case& c) {
      return check_forward_case<T>(op, c.rows, c.cols, c.values, *c.layout, c.options, c.seed);
    });
  });
}

INSTANTIATE_TEST_SUITE_P(
    AllStrategies, ForwardOps,
    ::testing::Combine(::testing::Values(Dtype::kF32, Dtype::kF64, Dtype::kF16, Dtype::kBF16),
                       ::testing::Values(Op::kSoftmax, Op::kLogSoftmax),
                       ::testing::ValuesIn(sweep_strategies())),
    [](const ::testing::TestParamInfo<Param>& info) {
      return std::string(dtype_name(std::get<0>(info.param))) + "_" + op_name(std::get<1>(info.param)) + "_" +
             rowwise::strategy_name(std::get<2>(info.param));
    });

// Fresh random shapes, layouts and values on every run; the seed is printed to replay a failure.
TEST(ForwardOpsFuzz, RandomShapesThroughDispatch) {
  RW_REQUIRE_GPU();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 60; ++i) {
    const Case c = random_case(rng, forward_layouts(), i);
    const Op op = static_cast<Op>(std::uniform_int_distribution<int>(0, 1)(rng));
    visit_dtype(random_fuzz_dtype(rng), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const CaseReport rep = check_forward_case<T>(op, c.rows, c.cols, c.values, *c.layout, {}, c.seed);
      EXPECT_TRUE(rep.ok()) << "seed " << seed << " case " << i << ": " << op_name(op) << " "
                            << dtype_name(Element<T>::kDtype) << " " << describe(c) << ": " << rep.first_problem;
    });
  }
}

}  // namespace
}  // namespace rowwise_test
