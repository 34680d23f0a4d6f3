// The float64 reference itself: the tests trust it, so it is tested too.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../common/inputs.h"
#include "../common/reference.h"

namespace rowwise_test {
namespace {

TEST(Reference, SoftmaxRowsSumToOneAndLogMatches) {
  const int64_t rows = 50, cols = 333;
  const auto x = make_values(Values::kLarge, rows, cols, 3);
  const auto s = reference_rows(Op::kSoftmax, x, rows, cols);
  const auto l = reference_rows(Op::kLogSoftmax, x, rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      sum += s[r * cols + c];
      EXPECT_NEAR(std::exp(l[r * cols + c]), s[r * cols + c], 1e-15);
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
}

TEST(Reference, SpecialRows) {
  const int64_t rows = 7, cols = 10;
  const auto x = make_values(Values::kSpecialRows, rows, cols, 8);  // a seed of 0 mod 8: row r of kind r
  const auto s = reference_rows(Op::kSoftmax, x, rows, cols);
  for (int64_t c = 0; c < cols; ++c) {
    EXPECT_TRUE(std::isnan(s[1 * cols + c])) << "all -inf row gives NaN";
    EXPECT_TRUE(std::isnan(s[2 * cols + c])) << "a NaN poisons its row";
    EXPECT_NEAR(s[4 * cols + c], 0.1, 1e-15) << "constant row is uniform";
  }
  EXPECT_EQ(s[3 * cols + 0], 0.0) << "-inf entries get 0";
}

TEST(Reference, CloseEnoughTreatsNaNAndInfinityExactly) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(close_enough(nan, nan, 0, 0));
  EXPECT_FALSE(close_enough(0.5, nan, 1, 1));
  EXPECT_FALSE(close_enough(nan, 0.5, 1, 1));
  EXPECT_TRUE(close_enough(-inf, -inf, 0, 0));
  EXPECT_FALSE(close_enough(-1e30, -inf, 1, 1));
  EXPECT_FALSE(close_enough(1.1, 1.0, 1e-6, 1e-5));
}

}  // namespace
}  // namespace rowwise_test
