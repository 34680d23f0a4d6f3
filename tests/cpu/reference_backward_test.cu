// The backward reference and its tolerance: the reference against finite differences of the forward
// reference, and the tolerance against the kernels' float arithmetic emulated on the host (it must
// pass that, and fail a kernel that drops the row-sum term).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "../common/element.h"
#include "../common/inputs.h"
#include "../common/reference_backward.h"

namespace rowwise_test {
namespace {

const GradOp kGradOps[] = {GradOp::kSoftmaxBackward, GradOp::kLogSoftmaxBackward};

// L(x) = Σ dy·f(x) for the forward op f: its gradient is the backward op at y = f(x).
double loss(Op op, const std::vector<double>& x, const std::vector<double>& dy) {
  const auto y = reference_rows(op, x, 1, x.size());
  double l = 0;
  for (size_t c = 0; c < x.size(); ++c) l += dy[c] * y[c];
  return l;
}

TEST(ReferenceBackward, MatchesFiniteDifferencesOfTheForward) {
  for (GradOp op : kGradOps) {
    for (int64_t cols : {1, 2, 7, 33}) {
      auto x = make_values(Values::kNormal, 1, cols, 11 + cols), dy = make_values(Values::kNormal, 1, cols, 17);
      const auto y = reference_rows(forward_of(op), x, 1, cols);
      const GradReference g = reference_backward_rows(op, y, dy, 1, cols);
      const double h = 1e-5;
      for (int64_t c = 0; c < cols; ++c) {
        const double x0 = x[c];
        x[c] = x0 + h;
        const double up = loss(forward_of(op), x, dy);
        x[c] = x0 - h;
        const double down = loss(forward_of(op), x, dy);
        x[c] = x0;
        EXPECT_NEAR(g.dx[c], (up - down) / (2 * h), 1e-7) << grad_op_name(op) << " cols " << cols << " col " << c;
      }
    }
  }
}

// Σ dx = Σ y·dy·(1 - Σ y) (softmax), Σ dy·(1 - Σ e^y) (log-softmax): 0 for forward outputs.
TEST(ReferenceBackward, GradientRowsSumToZero) {
  for (GradOp op : kGradOps) {
    const int64_t rows = 20, cols = 1000;
    const auto y = reference_rows(forward_of(op), make_values(Values::kLarge, rows, cols, 3), rows, cols);
    const auto dy = make_values(Values::kShifted, rows, cols, 4);
    const GradReference g = reference_backward_rows(op, y, dy, rows, cols);
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0, size = 0;
      for (int64_t c = 0; c < cols; ++c) sum += g.dx[r * cols + c], size += g.magnitude[r * cols + c];
      EXPECT_LE(std::fabs(sum), 1e-13 * size) << grad_op_name(op) << " row " << r;
    }
  }
}

TEST(ReferenceBackward, SpecialValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> dy = {1.5, -2.0, 0.25};
  GradReference g = reference_backward_rows(GradOp::kSoftmaxBackward, {0.5, nan, 0.5}, dy, 1, 3);
  for (double v : g.dx) EXPECT_TRUE(std::isnan(v)) << "NaN in y poisons its row";
  g = reference_backward_rows(GradOp::kSoftmaxBackward, {0.0, 1.0, 0.0}, dy, 1, 3);
  EXPECT_EQ(g.dx[0], 0.0) << "y = 0 gets no gradient";
  EXPECT_EQ(g.dx[1], 0.0) << "one-hot y: dy - Σ y·dy = 0";
  g = reference_backward_rows(GradOp::kLogSoftmaxBackward, {-inf, 0.0, -inf}, dy, 1, 3);
  EXPECT_EQ(g.dx[0], dy[0]) << "log y = -inf: dx = dy";
  EXPECT_EQ(g.magnitude[0], std::fabs(dy[0]));
  EXPECT_EQ(g.dx[1], dy[1] - (dy[0] + dy[1] + dy[2]));
}

// The kernels' arithmetic in T's accumulation type A: per-thread sums over strided columns, a
// pairwise tree across threads, exp as 2^(y·log2 e) with the product rounded in A, dx rounded to T.
// 256 threads keep up to 256 columns per thread sequential: more than any strategy does.
template <class T>
std::vector<double> emulate_backward(GradOp op, const std::vector<double>& y, const std::vector<double>& dy,
                                     int64_t rows, int64_t cols, bool drop_sum) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int threads = 256;
  std::vector<double> dx(y.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double* yr = &y[r * cols];
    const double* dyr = &dy[r * cols];
    std::vector<A> part(threads, A(0));
    for (int64_t c = 0; c < cols; ++c)
      part[c % threads] += op == GradOp::kSoftmaxBackward ? A(yr[c]) * A(dyr[c]) : A(dyr[c]);
    for (int width = threads / 2; width > 0; width /= 2)
      for (int t = 0; t < width; ++t) part[t] += part[t + width];
    const A s = drop_sum ? A(0) : part[0];
    for (int64_t c = 0; c < cols; ++c) {
      const A e = std::is_same_v<A, float> ? std::exp2(A(yr[c]) * A(1.4426950408889634)) : std::exp(A(yr[c]));
      const A d = op == GradOp::kSoftmaxBackward ? A(yr[c]) * (A(dyr[c]) - s) : A(dyr[c]) - e * s;
      dx[r * cols + c] = Element<T>::to_double(Element<T>::from_double(d));
    }
  }
  return dx;
}

template <class T> class GradientTolerance : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(GradientTolerance, ElementTypes);

TYPED_TEST(GradientTolerance, PassesKernelArithmeticAndCatchesADroppedSum) {
  using T = TypeParam;
  for (GradOp op : kGradOps) {
    for (int v = 0; v < 5; ++v) {
      const Values values = static_cast<Values>(v);
      for (int64_t cols : {7, 1000, 65537}) {
        const int64_t rows = cols > 1000 ? 3 : 14;
        std::vector<double> y = reference_rows(forward_of(op), make_values(values, rows, cols, cols), rows, cols);
        std::vector<double> dy = make_values(values == Values::kSpecialRows ? Values::kNormal : values, rows, cols, 9);
        for (double& e : y) e = Element<T>::to_double(Element<T>::from_double(e));
        for (double& e : dy) e = Element<T>::to_double(Element<T>::from_double(e));
        const GradReference ref = reference_backward_rows(op, y, dy, rows, cols);
        const auto good = emulate_backward<T>(op, y, dy, rows, cols, false);
        const auto bad = emulate_backward<T>(op, y, dy, rows, cols, true);
        int64_t failed = 0, caught = 0, finite = 0;
        for (size_t i = 0; i < y.size(); ++i) {
          failed += !gradient_close<T>(good[i], ref.dx[i], ref.magnitude[i]);
          finite += std::isfinite(ref.dx[i]) && ref.dx[i] != 0;
          caught += std::isfinite(ref.dx[i]) && !gradient_close<T>(bad[i], ref.dx[i], ref.magnitude[i]);
        }
        EXPECT_EQ(failed, 0) << grad_op_name(op) << " " << values_name(values) << " cols " << cols;
        // dy = randn + 100: the row-sum term is about 100 times dx, so dropping it must show.
        if (values == Values::kShifted)
          EXPECT_GT(caught, finite * 9 / 10) << grad_op_name(op) << " cols " << cols;
      }
    }
  }
}

}  // namespace
}  // namespace rowwise_test
