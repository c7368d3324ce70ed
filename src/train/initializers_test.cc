#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tensorweave/session.h"
#include "tensorweave/variable_scope.h"

namespace tw {
namespace {

// The values `init` makes for a float32 tensor of `shape`.
std::vector<float> Sample(const Initializer& init, const TensorShape& shape) {
  Graph g;
  Output value = init(g, shape, DType::kFloat);
  EXPECT_EQ(value.dtype(), DType::kFloat);
  Session s(g);
  Tensor t = s.run(value);
  EXPECT_EQ(t.shape(), shape);
  auto flat = t.flat<float>();
  return std::vector<float>(flat.begin(), flat.end());
}

double Mean(const std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += x;
  return sum / v.size();
}
double Stddev(const std::vector<float>& v) {
  const double mean = Mean(v);
  double sq = 0;
  for (float x : v) sq += (x - mean) * (x - mean);
  return std::sqrt(sq / v.size());
}

TEST(InitializersTest, RandomUniformStaysInRange) {
  std::vector<float> v = Sample(random_uniform_initializer(-2, 3, /*seed=*/7), {100, 50});
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  EXPECT_GE(*lo, -2);
  EXPECT_LT(*hi, 3);
  // 5000 samples cover the range and center on 0.5.
  EXPECT_LT(*lo, -1.9);
  EXPECT_GT(*hi, 2.9);
  EXPECT_NEAR(Mean(v), 0.5, 0.1);
  // The same seed gives the same values.
  EXPECT_EQ(v, Sample(random_uniform_initializer(-2, 3, 7), {100, 50}));
}

TEST(InitializersTest, RandomNormalHasItsMeanAndStddev) {
  std::vector<float> v = Sample(random_normal_initializer(5, 2, 3), {10000});
  EXPECT_NEAR(Mean(v), 5, 0.1);
  EXPECT_NEAR(Stddev(v), 2, 0.1);
  // Unlike the truncated normal, some values lie beyond two stddevs.
  EXPECT_TRUE(std::any_of(v.begin(), v.end(), [](float x) { return std::abs(x - 5) > 4; }));
}

TEST(InitializersTest, TruncatedNormalStaysWithinTwoStddevs) {
  std::vector<float> v = Sample(truncated_normal_initializer(-1, 0.5, 3), {10000});
  for (float x : v) {
    ASSERT_GE(x, -2.0f);
    ASSERT_LE(x, 0.0f);
  }
  EXPECT_NEAR(Mean(v), -1, 0.05);
  // A normal truncated at two stddevs has about 0.88 of the stddev.
  EXPECT_NEAR(Stddev(v), 0.5 * 0.88, 0.03);
}

TEST(InitializersTest, GlorotUniformLimit) {
  // fan_in 20, fan_out 30: limit sqrt(6 / 50).
  const double limit = std::sqrt(6.0 / 50);
  std::vector<float> v = Sample(glorot_uniform_initializer(11), {20, 30});
  float max_abs = 0;
  for (float x : v) {
    ASSERT_LE(std::abs(x), limit);
    max_abs = std::max(max_abs, std::abs(x));
  }
  EXPECT_GT(max_abs, 0.95 * limit);
  // A [3, 3, 4, 8] convolution kernel: fans 36 and 72, limit sqrt(6 / 108).
  std::vector<float> conv = Sample(glorot_uniform_initializer(11), {3, 3, 4, 8});
  float conv_max = 0;
  for (float x : conv) conv_max = std::max(conv_max, std::abs(x));
  EXPECT_LE(conv_max, std::sqrt(6.0 / 108));
  EXPECT_GT(conv_max, 0.95 * std::sqrt(6.0 / 108));
}

TEST(InitializersTest, ComputeFansFollowsTensorFlow) {
  EXPECT_EQ(compute_fans(TensorShape()), std::make_pair(1.0, 1.0));
  EXPECT_EQ(compute_fans(TensorShape({7})), std::make_pair(7.0, 7.0));
  EXPECT_EQ(compute_fans(TensorShape({3, 5})), std::make_pair(3.0, 5.0));
  EXPECT_EQ(compute_fans(TensorShape({3, 3, 4, 8})), std::make_pair(36.0, 72.0));
  EXPECT_EQ(compute_fans(TensorShape({0, 5})), std::make_pair(0.0, 5.0));
}

TEST(InitializersTest, DeterministicUnderAGraphSeed) {
  auto run = [] {
    Graph g;
    g.set_seed(42);
    Output value = random_normal_initializer()(g, {8}, DType::kDouble);
    Session s(g);
    Tensor t = s.run(value);
    auto flat = t.flat<double>();
    return std::vector<double>(flat.begin(), flat.end());
  };
  std::vector<double> a = run();
  EXPECT_EQ(a, run());
  EXPECT_NE(a[0], a[1]);
}

}  // namespace
}  // namespace tw
