// absmax_scale on the GPU against the float64 reference: every input dtype to the same type, int8
// and fp8 e4m3, every strategy, odd shapes, strides, misalignment, in place, null row_scale; exact
// scales, quantized values within one step (exact where the rounding rule alone decides), zero and
// NaN rows. Then dequantization (y · row_scale) recovering x within half a step.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../common/gpu_check_absmax.h"
#include "../common/gpu_skip.h"
#include "../common/sweep.h"

namespace rowwise_test {
namespace {

using rowwise::Strategy;

using Param = std::tuple<Dtype, Quant, Strategy>;

class AbsmaxScale : public ::testing::TestWithParam<Param> {};

std::string op_label(Dtype dtype, Quant q) {
  return std::string("absmax_scale ") + dtype_name(dtype) + "->" + quant_name(q);
}

// Every fourth case passes a null row_scale (then nothing may be written there).
bool with_scale(const Case& c) { return c.index % 4 != 3; }

// Two layouts per shape: every layout still meets every strategy on many shapes.
TEST_P(AbsmaxScale, MatchesFloat64Reference) {
  RW_REQUIRE_GPU();
  const Dtype dtype = std::get<0>(GetParam());
  const Quant quant = std::get<1>(GetParam());
  const Strategy strategy = std::get<2>(GetParam());
  visit_dtype(dtype, [&](auto in_tag) {
    using T = typename decltype(in_tag)::type;
    visit_output<T>(quant, [&](auto out_tag) {
      using U = typename decltype(out_tag)::type;
      sweep(op_label(dtype, quant), strategy, absmax_layouts<T, U>(), 2, [&](const Case& c) {
        return check_absmax_case<T, U>(c.rows, c.cols, c.values, *c.layout, with_scale(c), c.options, c.seed);
      });
    });
  });
}

INSTANTIATE_TEST_SUITE_P(
    AllStrategies, AbsmaxScale,
    ::testing::Combine(::testing::Values(Dtype::kF32, Dtype::kF64, Dtype::kF16, Dtype::kBF16),
                       ::testing::Values(Quant::kNone, Quant::kInt8, Quant::kFp8E4M3),
                       ::testing::ValuesIn(sweep_strategies())),
    [](const ::testing::TestParamInfo<Param>& info) {
      return std::string(dtype_name(std::get<0>(info.param))) + "_" + quant_name(std::get<1>(info.param)) + "_" +
             rowwise::strategy_name(std::get<2>(info.param));
    });

// Fresh random shapes, layouts and values on every run; the seed is printed to replay a failure.
TEST(AbsmaxScaleFuzz, RandomShapesThroughDispatch) {
  RW_REQUIRE_GPU();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 40; ++i) {
    const Quant quant = static_cast<Quant>(std::uniform_int_distribution<int>(0, 2)(rng));
    const Dtype dtype = random_fuzz_dtype(rng);
    visit_dtype(dtype, [&](auto in_tag) {
      using T = typename decltype(in_tag)::type;
      visit_output<T>(quant, [&](auto out_tag) {
        using U = typename decltype(out_tag)::type;
        const Case c = random_case(rng, absmax_layouts<T, U>(), i);
        const CaseReport rep =
            check_absmax_case<T, U>(c.rows, c.cols, c.values, *c.layout, with_scale(c), {}, c.seed);
        EXPECT_TRUE(rep.ok()) << "seed " << seed << " case " << i << ": " << op_label(dtype, quant) << " "
                              << describe(c) << ": " << rep.first_problem;
      });
    });
  }
}

// Largest |x / row_scale - y| rounding to the output grid leaves at v = x / row_scale: half an int8
// step; half an e4m3 step (2^-4 of |v| in the normals, 2^-10 among the subnormals); none for the
// same type beyond its own rounding.
double half_step(Quant q, double v) {
  if (q == Quant::kInt8) return 0.5;
  if (q == Quant::kFp8E4M3) return std::max(std::fabs(v) * 0x1p-4, 0x1p-10);
  return 0;
}

// The dequantization contract, through the contiguous overload: x ≈ y · row_scale.
TEST(AbsmaxProperties, DequantizationRecoversTheInput) {
  RW_REQUIRE_GPU();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  for (Quant quant : {Quant::kNone, Quant::kInt8, Quant::kFp8E4M3}) {
    visit_output<float>(quant, [&](auto out_tag) {
      using U = typename decltype(out_tag)::type;
      for (int64_t cols : {5, 1000, 4099, 30000}) {
        const int64_t rows = 32, n = rows * cols;
        std::vector<float> x(n);
        std::normal_distribution<float> normal(0.f, 3.f);
        for (float& v : x) v = normal(rng);
        DeviceBuffer<float> xd, sd;
        DeviceBuffer<U> yd;
        ASSERT_EQ(xd.allocate(n), cudaSuccess);
        ASSERT_EQ(yd.allocate(n), cudaSuccess);
        ASSERT_EQ(sd.allocate(rows), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(xd.ptr, x.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(rowwise::absmax_scale(xd.ptr, yd.ptr, sd.ptr, rows, cols), cudaSuccess);
        std::vector<U> y(n);
        std::vector<float> scale(rows);
        ASSERT_EQ(cudaMemcpy(y.data(), yd.ptr, n * sizeof(U), cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(scale.data(), sd.ptr, rows * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int64_t i = 0; i < n; ++i) {
          const double s = scale[i / cols], got = output_to_double(y[i]) * s;
          // float products: a few ulp of x on top of the rounding to the grid
          const double bound = half_step(quant, x[i] / s) * s * (1 + 1e-5) + 1e-6 * std::fabs(x[i]);
          ASSERT_LE(std::fabs(got - x[i]), bound) << op_label(Dtype::kF32, quant) << " seed " << seed << " cols "
                                                  << cols << " element " << i << " x " << x[i] << " scale " << s;
        }
      }
    });
  }
}

}  // namespace
}  // namespace rowwise_test
