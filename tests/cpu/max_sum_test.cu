// The online (max, sum) merge, on the host: empty and -inf states, NaN, and agreement with a direct sum.
#include <gtest/gtest.h>
#include <rowwise/primitives/max_sum.cuh>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using MS = rowwise::MaxSum<double>;
const double kInf = std::numeric_limits<double>::infinity();

MS state_of(const std::vector<double>& xs) {
  MS s = MS::empty();
  for (double x : xs) s = MS::combine(s, {x, x == -kInf ? 0.0 : 1.0});
  return s;
}

TEST(MaxSum, EmptyIsIdentityOnEitherSide) {
  const MS a{2.5, 3.0};
  EXPECT_EQ(MS::combine(a, MS::empty()).m, 2.5);
  EXPECT_EQ(MS::combine(a, MS::empty()).s, 3.0);
  EXPECT_EQ(MS::combine(MS::empty(), a).m, 2.5);
  EXPECT_EQ(MS::combine(MS::empty(), a).s, 3.0);
}

TEST(MaxSum, TwoEmptiesStayEmptyNotNaN) {
  const MS e = MS::combine(MS::empty(), MS::empty());
  EXPECT_EQ(e.m, -kInf);
  EXPECT_EQ(e.s, 0.0);
}

TEST(MaxSum, RescalesTheSmallerSide) {
  const MS r = MS::combine({1.0, 2.0}, {3.0, 1.0});
  EXPECT_EQ(r.m, 3.0);
  EXPECT_NEAR(r.s, 2.0 * std::exp(-2.0) + 1.0, 1e-15);
}

TEST(MaxSum, NaNPropagatesFromEitherSide) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(MS::combine({nan, 1.0}, {3.0, 1.0}).s));
  EXPECT_TRUE(std::isnan(MS::combine({3.0, 1.0}, {nan, 1.0}).s));
  EXPECT_TRUE(std::isnan(MS::combine({3.0, nan}, MS::empty()).s));
}

TEST(MaxSum, AnyMergeOrderMatchesTheDirectSum) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> normal(0, 5);
  std::vector<double> xs(1000);
  for (double& x : xs) x = normal(rng);
  xs[17] = -kInf;
  double m = -kInf, s = 0;
  for (double x : xs) m = std::max(m, x);
  for (double x : xs) s += std::exp(x - m);
  // Tree order (as warps and blocks merge) and sequential order.
  std::vector<MS> level;
  for (double x : xs) level.push_back({x, x == -kInf ? 0.0 : 1.0});
  while (level.size() > 1) {
    std::vector<MS> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(MS::combine(level[i], level[i + 1]));
    if (level.size() % 2) next.push_back(level.back());
    level = next;
  }
  EXPECT_EQ(level[0].m, m);
  EXPECT_NEAR(level[0].s, s, 1e-12 * s);
  const MS seq = state_of(xs);
  EXPECT_EQ(seq.m, m);
  EXPECT_NEAR(seq.s, s, 1e-12 * s);
}

TEST(MaxSum, AllMinusInfinityIsEmpty) {
  const MS r = state_of({-kInf, -kInf, -kInf});
  EXPECT_EQ(r.m, -kInf);
  EXPECT_EQ(r.s, 0.0);
}

}  // namespace
