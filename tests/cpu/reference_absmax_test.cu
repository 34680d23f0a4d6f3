// The abs-max reference: the output grids against CUDA's own conversions, rounding and saturation
// rules, the check's exact and one-step cases, and the kernels' float arithmetic emulated on the
// host passing it on every input kind.
#include <gtest/gtest.h>
#include <rowwise/ops/absmax.cuh>
#include <rowwise/primitives/numeric.cuh>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "../common/element.h"
#include "../common/inputs_absmax.h"
#include "../common/reference.h"
#include "../common/reference_absmax.h"

namespace rowwise_test {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN(), kInf = std::numeric_limits<double>::infinity();

double fp8_to_double(unsigned char code) {
  __nv_fp8_e4m3 v;
  v.__x = code;
  return static_cast<float>(v);
}

TEST(ReferenceAbsmax, E4m3GridIsCudasEncoding) {
  ASSERT_EQ(e4m3_grid().size(), 127u);
  for (int code = 0; code < 127; ++code) {
    EXPECT_EQ(e4m3_grid()[code], fp8_to_double(code)) << "code " << code;
    EXPECT_EQ(-e4m3_grid()[code], fp8_to_double(code | 0x80)) << "code " << code;
  }
  EXPECT_TRUE(std::isnan(fp8_to_double(0x7F)));
  EXPECT_EQ(e4m3_grid().back(), 448.0);
  EXPECT_EQ(e4m3_grid()[1], std::ldexp(1.0, -9));
}

// Grid values, every midpoint (ties), points a hair either side, random magnitudes, out of range.
TEST(ReferenceAbsmax, RoundToE4m3MatchesCudasSaturatingConversion) {
  std::vector<double> probes = {0.0, 448.0, 460.0, 464.0, 500.0, 1e6, kInf};
  const auto& g = e4m3_grid();
  for (size_t k = 0; k + 1 < g.size(); ++k) {
    const double mid = (g[k] + g[k + 1]) / 2;
    const float m = static_cast<float>(mid);  // exact: a 4-bit significand
    probes.insert(probes.end(), {g[k], mid, std::nextafter(m, 0.f), std::nextafter(m, 1e9f)});
  }
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> log2_size(-12, 9.5);
  for (int i = 0; i < 20000; ++i) probes.push_back(std::exp2(log2_size(rng)));
  for (double p : probes)
    for (double v : {p, -p}) {
      const float f = static_cast<float>(v);
      EXPECT_EQ(round_to_e4m3(f), static_cast<float>(__nv_fp8_e4m3(f))) << "v = " << f;
    }
  EXPECT_TRUE(std::isnan(round_to_e4m3(kNaN)));
}

TEST(ReferenceAbsmax, Int8RoundsHalfToEvenAndSaturates) {
  const double cases[][2] = {{0.5, 0},    {1.5, 2},      {2.5, 2},     {-2.5, -2},  {126.5, 126}, {-125.5, -126},
                             {0.49, 0},   {127.4, 127},  {127.6, 127}, {300, 127},  {-300, -127}, {-kInf, -127},
                             {kNaN, 0}};
  for (const auto& c : cases) EXPECT_EQ(quantize(Quant::kInt8, c[0]), c[1]) << "v = " << c[0];
}

// The rule the reference states is the library's own float conversion.
TEST(ReferenceAbsmax, Int8MatchesTheLibrarysFloatConversion) {
  std::mt19937_64 rng(6);
  std::uniform_real_distribution<double> v(-140, 140);
  for (int i = 0; i < 20000; ++i) {
    const float f = i % 2 ? std::round(v(rng) * 2) / 2 : static_cast<float>(v(rng));  // half of them ties
    EXPECT_EQ(quantize(Quant::kInt8, f), rowwise::store_as<int8_t>(f)) << "v = " << f;
  }
}

TEST(ReferenceAbsmax, GridPositionsAreConsecutive) {
  EXPECT_EQ(grid_position(Quant::kInt8, -7), -7);
  EXPECT_EQ(grid_position(Quant::kFp8E4M3, 0.0), 0);
  EXPECT_EQ(grid_position(Quant::kFp8E4M3, -0.0), 0);
  EXPECT_EQ(grid_position(Quant::kFp8E4M3, 448.0), 126);
  EXPECT_EQ(grid_position(Quant::kFp8E4M3, -416.0), -125);
  EXPECT_TRUE(std::isnan(grid_position(Quant::kFp8E4M3, 449.0)));
}

TEST(ReferenceAbsmax, RowScaleAndScaledValues) {
  const std::vector<double> zeros = {0.0, -0.0, 0.0}, with_nan = {1.0, kNaN, -3.0}, with_inf = {1.0, -kInf};
  EXPECT_EQ(row_absmax(zeros.data(), 3), 0.0);
  EXPECT_TRUE(std::isnan(row_absmax(with_nan.data(), 3)));
  EXPECT_EQ(row_absmax(with_inf.data(), 2), kInf);
  EXPECT_EQ(scaled_value(-0.0, 0.0, Quant::kInt8), 0.0) << "zero row: zeros, not 0/0";
  EXPECT_EQ(scaled_value(1.0, kInf, Quant::kInt8), 0.0);
  EXPECT_TRUE(std::isnan(scaled_value(-kInf, kInf, Quant::kInt8)));
  EXPECT_EQ(scaled_value(-2.0, 4.0, Quant::kFp8E4M3), -224.0);
  EXPECT_EQ(reference_scale(254.0, Quant::kInt8), 2.0);
  EXPECT_TRUE(scale_close(3.25, 3.25, Quant::kNone));
  EXPECT_FALSE(scale_close(std::nextafter(3.25f, 4.f), 3.25, Quant::kNone)) << "same-type scales are exact";
  EXPECT_TRUE(scale_close(std::nextafter(float(1.0 / 127), 1.f), 1.0, Quant::kInt8)) << "an ulp off /qmax";
  EXPECT_FALSE(scale_close(0.0, kNaN, Quant::kInt8));
  EXPECT_TRUE(scale_close(kNaN, kNaN, Quant::kFp8E4M3));
}

TEST(ReferenceAbsmax, QuantizedCheckAllowsOneStepExceptWhereExact) {
  // absmax 100: v = x·1.27, not exact: one step allowed, two not, never past ±qmax.
  EXPECT_EQ(check_quantized(Quant::kInt8, 13, 10.0, 100.0), "");
  EXPECT_EQ(check_quantized(Quant::kInt8, 12, 10.0, 100.0), "");
  EXPECT_NE(check_quantized(Quant::kInt8, 11, 10.0, 100.0), "");
  EXPECT_NE(check_quantized(Quant::kInt8, 126, 100.0, 100.0), "") << "the row's max is ±qmax exactly";
  // absmax = qmax: exact, ties to even.
  EXPECT_EQ(check_quantized(Quant::kInt8, 2, 2.5, 127.0), "");
  EXPECT_NE(check_quantized(Quant::kInt8, 3, 2.5, 127.0), "");
  EXPECT_EQ(check_quantized(Quant::kFp8E4M3, 256, 272.0, 448.0), "");
  EXPECT_NE(check_quantized(Quant::kFp8E4M3, 288, 272.0, 448.0), "");
  EXPECT_EQ(check_quantized(Quant::kFp8E4M3, 288, 272.0, 447.0), "") << "one step where not exact";
  // NaN and zero rows.
  EXPECT_EQ(check_quantized(Quant::kInt8, 0, 1.0, kNaN), "");
  EXPECT_EQ(check_quantized(Quant::kFp8E4M3, kNaN, 1.0, kNaN), "");
  EXPECT_NE(check_quantized(Quant::kFp8E4M3, 0, 1.0, kNaN), "");
  EXPECT_NE(check_quantized(Quant::kFp8E4M3, kNaN, 1.0, 2.0), "");
  EXPECT_NE(check_quantized(Quant::kInt8, 1, 0.0, 0.0), "") << "zero row: exactly 0";
}

TEST(ReferenceAbsmax, ExactRowsHoldQmaxAndTies) {
  for (Quant q : {Quant::kInt8, Quant::kFp8E4M3}) {
    std::mt19937_64 rng(8);
    std::vector<double> row(64);
    fill_exact_row(row, q, rng);
    EXPECT_EQ(row_absmax(row.data(), 64), qmax_of(q));
    int ties = 0;
    for (double v : row) ties += quantize(q, std::nextafter(v, -kInf)) != quantize(q, std::nextafter(v, kInf));
    EXPECT_GE(ties, 31) << quant_name(q);  // every even column, but one may hold ±qmax
  }
}

// absmax_scale's arithmetic, the op policy's own finalize and map in the accumulation type A (float,
// or double for double), then the conversion to U and row_scale = float(absmax / qmax), passing the
// reference's checks on every input kind (tiny rows among the special ones: qmax / absmax overflows A).
template <class T> class AbsmaxEmulation : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(AbsmaxEmulation, ElementTypes);

template <class T, class U> void expect_kernel_arithmetic_passes(Quant q) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  using Op = rowwise::AbsmaxScaleOp<A, U, !std::is_same_v<T, __half>>;
  for (int v = 0; v < 5; ++v) {
    const int64_t rows = 70, cols = 257;
    std::vector<double> x = make_absmax_values(static_cast<Values>(v), q, rows, cols, 100 + v);
    for (double& e : x) e = Element<T>::to_double(Element<T>::from_double(e));
    for (int64_t r = 0; r < rows; ++r) {
      const double absmax = row_absmax(&x[r * cols], cols);
      const typename Op::Final f = Op::finalize(A(absmax));
      EXPECT_TRUE(scale_close(float(f.absmax / A(qmax_of(q))), absmax, q)) << "row " << r;
      for (int64_t c = 0; c < cols; ++c) {
        const A y = Op::map(A(x[r * cols + c]), f);
        const double xv = x[r * cols + c];
        if (q == Quant::kNone) {
          const double want = scaled_value(xv, absmax, q);
          EXPECT_TRUE(close_enough(Element<T>::to_double(Element<T>::from_double(y)), want, Element<T>::kAtol,
                                   Element<T>::kRtol))
              << "row " << r << " x " << xv << " absmax " << absmax << " y " << y;
          continue;
        }
        // double rounds once (no float step), as a correct double kernel would
        const double got = q == Quant::kInt8 ? (std::is_same_v<A, float> ? rowwise::store_as<int8_t>(float(y))
                                                                          : quantize(Quant::kInt8, y))
                                             : static_cast<float>(__nv_fp8_e4m3(y));
        EXPECT_EQ(check_quantized(q, got, xv, absmax), "") << quant_name(q) << " row " << r;
      }
    }
  }
}

TYPED_TEST(AbsmaxEmulation, KernelArithmeticPassesTheChecks) {
  using T = TypeParam;
  expect_kernel_arithmetic_passes<T, T>(Quant::kNone);
  expect_kernel_arithmetic_passes<T, int8_t>(Quant::kInt8);
  expect_kernel_arithmetic_passes<T, __nv_fp8_e4m3>(Quant::kFp8E4M3);
}

// Rows whose abs-max lies below qmax / FLT_MAX (and in fp32 denormals): the factor qmax / absmax alone
// overflows to inf, which made zeros NaN and every other value ±qmax.
TEST(AbsmaxEmulation, TinyRowsKeepTheirProportions) {
  using Op = rowwise::AbsmaxScaleOp<float, int8_t>;
  const float m = 1e-37f;
  const Op::Final f = Op::finalize(m);
  EXPECT_EQ(rowwise::store_as<int8_t>(Op::map(m, f)), 127);
  EXPECT_EQ(rowwise::store_as<int8_t>(Op::map(-m / 4, f)), -32);  // -31.75
  EXPECT_EQ(Op::map(0.f, f), 0.f);
  using Same = rowwise::AbsmaxScaleOp<float, float>;
  const Same::Final g = Same::finalize(1e-39f);  // a denormal abs-max
  EXPECT_FLOAT_EQ(Same::map(1e-39f, g), 1.f);
  EXPECT_EQ(Same::map(0.f, g), 0.f);
  using Double = rowwise::AbsmaxScaleOp<double, __nv_fp8_e4m3>;
  const Double::Final d = Double::finalize(1e-310);
  EXPECT_EQ(static_cast<float>(__nv_fp8_e4m3(Double::map(-1e-310, d))), -448.f);
  EXPECT_EQ(static_cast<float>(__nv_fp8_e4m3(Double::map(1e-310 / 2, d))), 224.f);
}

// Quantizing kernels map a row by the op without the tiny rows' multiply where plain_map says so
// (kernels/row_common.cuh: with_map_op): that op must give the same values on every row it takes,
// and tiny rows, whose factor alone overflows, must not be among them.
template <class Op> void expect_plain_map_agrees(typename Op::Acc m) {
  using A = typename Op::Acc;
  using Plain = decltype(Op::plain_map_op());
  const typename Op::Final f = Op::finalize(m);
  if (!Op::plain_map(f)) {
    EXPECT_LT(m, A(0x1p-64)) << "a row of abs-max " << m << " left to the tiny rows' map";
    return;
  }
  EXPECT_FALSE(m < A(0x1p-64)) << "a tiny row of abs-max " << m << " given the plain map";
  for (const A x : {m, -m, m / 3, -m / 7, A(0)}) {
    const A plain = Plain::map(x, f), full = Op::map(x, f);
    EXPECT_TRUE(plain == full || (std::isnan(plain) && std::isnan(full))) << m << ": " << plain << " vs " << full;
  }
}

TEST(AbsmaxEmulation, PlainMapTakesEveryRowButTinyOnesAlike) {
  const float fmax = std::numeric_limits<float>::max();
  for (const float m : {0.f, 1e-40f, 1e-37f, 0x1p-65f, 0x1p-64f, 1e-19f, 1e-3f, 1.f, 3.25f, 1e30f, fmax,
                        static_cast<float>(kInf), static_cast<float>(kNaN)}) {
    expect_plain_map_agrees<rowwise::AbsmaxScaleOp<float, int8_t>>(m);
    expect_plain_map_agrees<rowwise::AbsmaxScaleOp<float, __nv_fp8_e4m3>>(m);
  }
  for (const double m : {0.0, 1e-310, 1e-300, 0x1p-64, 1.0, 1e300, kInf, kNaN}) {
    expect_plain_map_agrees<rowwise::AbsmaxScaleOp<double, int8_t>>(m);
  }
  using Op = rowwise::AbsmaxScaleOp<float, int8_t>;
  EXPECT_FALSE(Op::plain_map(Op::finalize(1e-37f)));
  EXPECT_TRUE(Op::plain_map(Op::finalize(1.f)));
}

}  // namespace
}  // namespace rowwise_test
