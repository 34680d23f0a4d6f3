// softmax_backward and log_softmax_backward on the GPU against the float64 reference (the forward
// sweep's rigor: every dtype and strategy, odd shapes, strides, misalignment, dx over dy or y), and
// gradient rows summing to 0 along the real forward-then-backward path.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../common/gpu_check_backward.h"
#include "../common/gpu_skip.h"
#include "../common/sweep.h"

namespace rowwise_test {
namespace {

using rowwise::Strategy;

using Param = std::tuple<Dtype, GradOp, Strategy>;

class BackwardOps : public ::testing::TestWithParam<Param> {};

// Three of the nine layouts per shape: every layout still meets every strategy on many shapes, at a
// third of the runtime.
TEST_P(BackwardOps, MatchesFloat64Reference) {
  RW_REQUIRE_GPU();
  const Dtype dtype = std::get<0>(GetParam());
  const GradOp op = std::get<1>(GetParam());
  const Strategy strategy = std::get<2>(GetParam());
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::string what = std::string(grad_op_name(op)) + " " + dtype_name(dtype);
    sweep(what, strategy, backward_layouts(), 3, [&](const Case& c) {
      return check_backward_case<T>(op, c.rows, c.cols, c.values, *c.layout, c.options, c.seed);
    });
  });
}

INSTANTIATE_TEST_SUITE_P(
    AllStrategies, BackwardOps,
    ::testing::Combine(::testing::Values(Dtype::kF32, Dtype::kF64, Dtype::kF16, Dtype::kBF16),
                       ::testing::Values(GradOp::kSoftmaxBackward, GradOp::kLogSoftmaxBackward),
                       ::testing::ValuesIn(sweep_strategies())),
    [](const ::testing::TestParamInfo<Param>& info) {
      return std::string(dtype_name(std::get<0>(info.param))) + "_" + grad_op_name(std::get<1>(info.param)) + "_" +
             rowwise::strategy_name(std::get<2>(info.param));
    });

// Fresh random shapes, layouts and values on every run; the seed is printed to replay a failure.
TEST(BackwardOpsFuzz, RandomShapesThroughDispatch) {
  RW_REQUIRE_GPU();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 40; ++i) {
    const Case c = random_case(rng, backward_layouts(), i);
    const GradOp op = static_cast<GradOp>(std::uniform_int_distribution<int>(0, 1)(rng));
    visit_dtype(random_fuzz_dtype(rng), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const CaseReport rep = check_backward_case<T>(op, c.rows, c.cols, c.values, *c.layout, {}, c.seed);
      EXPECT_TRUE(rep.ok()) << "seed " << seed << " case " << i << ": " << grad_op_name(op) << " "
                            << dtype_name(Element<T>::kDtype) << " " << describe(c) << ": " << rep.first_problem;
    });
  }
}

// The training path in fp32: y from the library's own forward, dx from the contiguous overloads.
// Σ dx = Σ y·dy - Σy·Σ y·dy (softmax) or Σ dy - Σ e^y·Σ dy (log-softmax) is 0 where y sums to 1;
// what is left is y's rounding and the float sums, a few ulp of the terms' size, bounded at 1e-5.
TEST(BackwardProperties, GradientRowsSumToZero) {
  RW_REQUIRE_GPU();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  for (GradOp op : {GradOp::kSoftmaxBackward, GradOp::kLogSoftmaxBackward}) {
    for (int64_t cols : {5, 96, 1000, 4099, 30000}) {
      const int64_t rows = 64, n = rows * cols;
      const auto x = random_floats(n, rng, 3.f), dy = random_floats(n, rng, 1.f);
      DeviceBuffer<float> xd, yd, dyd, dxd;
      for (DeviceBuffer<float>* b : {&xd, &yd, &dyd, &dxd}) ASSERT_EQ(b->allocate(n), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(xd.ptr, x.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(dyd.ptr, dy.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
      if (op == GradOp::kSoftmaxBackward) {
        ASSERT_EQ(rowwise::softmax(xd.ptr, yd.ptr, rows, cols), cudaSuccess);
        ASSERT_EQ(rowwise::softmax_backward(yd.ptr, dyd.ptr, dxd.ptr, rows, cols), cudaSuccess);
      } else {
        ASSERT_EQ(rowwise::log_softmax(xd.ptr, yd.ptr, rows, cols), cudaSuccess);
        ASSERT_EQ(rowwise::log_softmax_backward(yd.ptr, dyd.ptr, dxd.ptr, rows, cols), cudaSuccess);
      }
      std::vector<float> y(n), dx(n);
      ASSERT_EQ(cudaMemcpy(y.data(), yd.ptr, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(dx.data(), dxd.ptr, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      for (int64_t r = 0; r < rows; ++r) {
        std::vector<double> yr(y.begin() + r * cols, y.begin() + (r + 1) * cols);
        std::vector<double> dyr(dy.begin() + r * cols, dy.begin() + (r + 1) * cols), unused(cols), magnitude(cols);
        reference_backward_row(op, yr.data(), dyr.data(), unused.data(), magnitude.data(), cols);
        double sum = 0, size = 0;
        for (int64_t c = 0; c < cols; ++c) sum += dx[r * cols + c], size += magnitude[c];
        ASSERT_LE(std::fabs(sum), 1e-5 * size)
            << grad_op_name(op) << " seed " << seed << " cols " << cols << " row " << r;
      }
    }
  }
}

}  // namespace
}  // namespace rowwise_test
