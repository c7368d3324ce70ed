#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <thread>

#include "graph/graph.h"
#include "kernels/cpu/philox.h"
#include "testing/graph_session.h"
#include "testing/op_test_util.h"

namespace tw {
namespace {

using random::Philox;

// A graph "shape" (Const, or Placeholder when `shape` is uninitialized) -> "r" (op).
struct RandomGraph {
  FlowGraph graph;
  Node* node = nullptr;
  absl::Status status;
};

std::unique_ptr<RandomGraph> BuildRandom(const std::string& op, const Tensor& shape, AttrMap attrs,
                                         std::vector<Tensor> bounds = {}) {
  auto g = std::make_unique<RandomGraph>();
  auto add_input = [&](const std::string& name, const Tensor& t) -> Node* {
    NodeSpec spec{name, "Const", {}, "", {}};
    spec.attrs["dtype"] = MakeAttr(t.dtype());
    spec.attrs["value"] = MakeAttr(t);
    auto n = g->graph.AddNode(std::move(spec));
    EXPECT_TRUE(n.ok()) << n.status();
    return *n;
  };
  NodeSpec spec{"r", op, {}, "", std::move(attrs)};
  if (shape.IsInitialized()) {
    spec.inputs.push_back({add_input("shape", shape), 0});
    spec.attrs.emplace("T", MakeAttr(shape.dtype()));
  } else {
    NodeSpec p{"shape", "Placeholder", {}, "", {}};
    p.attrs["dtype"] = MakeAttr(DType::kInt32);
    spec.inputs.push_back({*g->graph.AddNode(std::move(p)), 0});
    spec.attrs.emplace("T", MakeAttr(DType::kInt32));
  }
  if (!bounds.empty()) spec.attrs.emplace("Tout", MakeAttr(bounds[0].dtype()));
  for (size_t i = 0; i < bounds.size(); ++i) {
    spec.inputs.push_back({add_input(i == 0 ? "minval" : "maxval", bounds[i]), 0});
  }
  auto n = g->graph.AddNode(std::move(spec));
  g->status = n.status();
  if (n.ok()) g->node = *n;
  return g;
}

AttrMap Attrs(DType dtype, int64_t seed, int64_t seed2) {
  return {{"dtype", MakeAttr(dtype)}, {"seed", MakeAttr(seed)}, {"seed2", MakeAttr(seed2)}};
}

// Runs "r" of a session built from `g` `runs` times.
std::vector<Tensor> RunTimes(const RandomGraph& g, int runs, const testing::Feeds& feeds = {}) {
  testing::GraphSession session;
  EXPECT_TRUE(session.Extend(g.graph.ToGraphDef()).ok());
  std::vector<Tensor> results;
  for (int i = 0; i < runs; ++i) {
    std::vector<Tensor> out;
    absl::Status s = session.Run(feeds, {"r"}, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (s.ok()) results.push_back(out[0]);
  }
  return results;
}

Tensor RunOnce(const std::string& op, const Tensor& shape, AttrMap attrs,
               std::vector<Tensor> bounds = {}) {
  auto g = BuildRandom(op, shape, std::move(attrs), std::move(bounds));
  EXPECT_TRUE(g->status.ok()) << g->status;
  if (!g->status.ok()) return Tensor();
  auto r = RunTimes(*g, 1);
  return r.empty() ? Tensor() : r[0];
}

template <typename T>
void Moments(const Tensor& t, double* mean, double* stddev) {
  double sum = 0, sq = 0;
  for (T v : t.flat<T>()) sum += v;
  *mean = sum / t.NumElements();
  for (T v : t.flat<T>()) sq += (v - *mean) * (v - *mean);
  *stddev = std::sqrt(sq / t.NumElements());
}

TEST(PhiloxTest, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(Philox::Block({0, 0, 0, 0}, {0, 0}),
            (Philox::Counter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(
      Philox::Block({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
      (Philox::Counter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      Philox::Block({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
      (Philox::Counter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(PhiloxTest, SkipCarriesAcrossCounterWords) {
  Philox a({0xffffffff, 0xffffffff, 0xffffffff, 0}, {1, 2});
  a.Skip(1);
  EXPECT_EQ(a(), Philox::Block({0, 0, 0, 1}, {1, 2}));
  Philox b({0xfffffff0, 0, 0, 0}, {3, 4});
  b.Skip((uint64_t{5} << 32) + 0x20);
  EXPECT_EQ(b(), Philox::Block({0x10, 6, 0, 0}, {3, 4}));
  // Seeds: seed -> key, seed2 -> counter words 2 and 3.
  Philox c(0x0000000200000001ull, 0x0000000400000003ull);
  EXPECT_EQ(c(), Philox::Block({0, 0, 3, 4}, {1, 2}));
  EXPECT_EQ(c(), Philox::Block({1, 0, 3, 4}, {1, 2}));
}

TEST(PhiloxTest, UniformTransformsStayInUnitInterval) {
  EXPECT_EQ(random::Uint32ToFloat(0), 0.0f);
  EXPECT_EQ(random::Uint32ToFloat(0xffffffff), 1.0f - std::ldexp(1.0f, -23));
  EXPECT_EQ(random::Uint32ToFloat(0x00400000), 0.5f);
  EXPECT_EQ(random::Uint64ToDouble(0, 0), 0.0);
  EXPECT_EQ(random::Uint64ToDouble(0xffffffff, 0xffffffff), 1.0 - std::ldexp(1.0, -52));
  EXPECT_EQ(random::Uint64ToDouble(0x00080000, 0), 0.5);
  float f0, f1;
  random::BoxMullerFloat(0, 0, &f0, &f1);  // u1 = 0 is clamped: finite output.
  EXPECT_TRUE(std::isfinite(f0) && std::isfinite(f1));
}

TEST(RandomUniformTest, ValuesFollowThePhiloxStreamAcrossRuns) {
  constexpr int64_t kN = 10;
  auto g = BuildRandom("RandomUniform", I32({1}, {kN}), Attrs(DType::kFloat, 7, 11));
  ASSERT_TRUE(g->status.ok()) << g->status;
  std::vector<Tensor> runs = RunTimes(*g, 2);
  ASSERT_EQ(runs.size(), 2u);
  // Run k starts kN * 256 blocks after run k-1; element j comes from block j / 4.
  Philox stream(7, 11);
  for (const Tensor& run : runs) {
    ASSERT_EQ(run.shape(), TensorShape({kN}));
    Philox gen = stream;
    Philox::Counter block{};
    for (int64_t j = 0; j < kN; ++j) {
      if (j % 4 == 0) block = gen();
      EXPECT_EQ(run.flat<float>()[j], random::Uint32ToFloat(block[j % 4])) << j;
    }
    stream.Skip(kN * 256);
  }
  EXPECT_FALSE(runs[0].Equals(runs[1]));
}

TEST(RandomUniformTest, SameSeedsReproduceInANewGraph) {
  for (DType dtype : {DType::kFloat, DType::kDouble}) {
    for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
      auto g1 = BuildRandom(op, I64({2}, {3, 5}), Attrs(dtype, 42, 3));
      auto g2 = BuildRandom(op, I64({2}, {3, 5}), Attrs(dtype, 42, 3));
      auto g3 = BuildRandom(op, I64({2}, {3, 5}), Attrs(dtype, 42, 4));
      auto a = RunTimes(*g1, 2), b = RunTimes(*g2, 2), c = RunTimes(*g3, 1);
      ASSERT_EQ(a.size(), 2u);
      ASSERT_EQ(b.size(), 2u);
      ASSERT_EQ(c.size(), 1u);
      EXPECT_EQ(a[0].dtype(), dtype);
      EXPECT_EQ(a[0].shape(), TensorShape({3, 5}));
      EXPECT_TRUE(a[0].Equals(b[0])) << op;
      EXPECT_TRUE(a[1].Equals(b[1])) << op;
      EXPECT_FALSE(a[0].Equals(a[1])) << op << ": a second run must continue the stream";
      EXPECT_FALSE(a[0].Equals(c[0])) << op << ": seed2 must matter";
    }
  }
}

TEST(RandomUniformTest, ZeroSeedsAreNonDeterministic) {
  auto g = BuildRandom("RandomUniform", I32({1}, {8}), Attrs(DType::kFloat, 0, 0));
  auto a = RunTimes(*g, 1), b = RunTimes(*g, 1);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_FALSE(a[0].Equals(b[0]));
  // Only one seed set: deterministic.
  auto h = BuildRandom("RandomUniform", I32({1}, {8}), Attrs(DType::kFloat, 5, 0));
  EXPECT_TRUE(RunTimes(*h, 1)[0].Equals(RunTimes(*h, 1)[0]));
}

TEST(RandomUniformTest, RangeAndMoments) {
  Tensor f = RunOnce("RandomUniform", I32({1}, {100000}), Attrs(DType::kFloat, 1, 2));
  Tensor d = RunOnce("RandomUniform", I32({2}, {400, 250}), Attrs(DType::kDouble, 1, 2));
  for (float v : f.flat<float>()) ASSERT_TRUE(v >= 0.0f && v < 1.0f) << v;
  for (double v : d.flat<double>()) ASSERT_TRUE(v >= 0.0 && v < 1.0) << v;
  double mean, stddev;
  Moments<float>(f, &mean, &stddev);
  EXPECT_NEAR(mean, 0.5, 0.01);
  EXPECT_NEAR(stddev, std::sqrt(1.0 / 12), 0.01);
  Moments<double>(d, &mean, &stddev);
  EXPECT_NEAR(mean, 0.5, 0.01);
  EXPECT_NEAR(stddev, std::sqrt(1.0 / 12), 0.01);
}

TEST(RandomStandardNormalTest, Moments) {
  for (DType dtype : {DType::kFloat, DType::kDouble}) {
    Tensor t = RunOnce("RandomStandardNormal", I32({1}, {100000}), Attrs(dtype, 3, 4));
    ASSERT_EQ(t.dtype(), dtype);
    double mean, stddev, beyond2 = 0;
    if (dtype == DType::kFloat) {
      Moments<float>(t, &mean, &stddev);
      for (float v : t.flat<float>()) beyond2 += std::abs(v) >= 2;
    } else {
      Moments<double>(t, &mean, &stddev);
      for (double v : t.flat<double>()) beyond2 += std::abs(v) >= 2;
    }
    EXPECT_NEAR(mean, 0.0, 0.02);
    EXPECT_NEAR(stddev, 1.0, 0.02);
    EXPECT_NEAR(beyond2 / 100000, 0.0455, 0.005);  // P(|x| >= 2) of a standard normal.
  }
}

TEST(TruncatedNormalTest, StaysWithinTwoStddevs) {
  for (DType dtype : {DType::kFloat, DType::kDouble}) {
    Tensor t = RunOnce("TruncatedNormal", I32({1}, {100000}), Attrs(dtype, 5, 6));
    ASSERT_EQ(t.NumElements(), 100000);
    double mean, stddev;
    if (dtype == DType::kFloat) {
      for (float v : t.flat<float>()) ASSERT_LT(std::abs(v), 2.0f);
      Moments<float>(t, &mean, &stddev);
    } else {
      for (double v : t.flat<double>()) ASSERT_LT(std::abs(v), 2.0);
      Moments<double>(t, &mean, &stddev);
    }
    EXPECT_NEAR(mean, 0.0, 0.02);
    EXPECT_NEAR(stddev, 0.8796, 0.02);  // Standard normal truncated to (-2, 2).
  }
}

// Reference fill in one thread: the parallel kernel must give exactly this.
std::vector<float> SerialTruncated(uint64_t seed, uint64_t seed2, int64_t n) {
  std::vector<float> out(n);
  const Philox base(seed, seed2);
  for (int64_t g = 0; g * 4 < n; ++g) {
    Philox gen = base;
    gen.Skip(g * 256);
    random::SingleSampler words(&gen);
    int k = 0;
    while (k < 4) {
      const uint32_t x0 = words(), x1 = words();
      float f[2];
      random::BoxMullerFloat(x0, x1, &f[0], &f[1]);
      for (float v : f) {
        if (k < 4 && std::abs(v) < 2.0f) {
          if (g * 4 + k < n) out[g * 4 + k] = v;
          ++k;
        }
      }
    }
  }
  return out;
}

TEST(TruncatedNormalTest, ParallelFillMatchesSerialReference) {
  constexpr int64_t kN = 200003;  // Not a multiple of the group size.
  Tensor t = RunOnce("TruncatedNormal", I32({1}, {kN}), Attrs(DType::kFloat, 9, 10));
  std::vector<float> expected = SerialTruncated(9, 10, kN);
  ASSERT_EQ(t.NumElements(), kN);
  for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(t.flat<float>()[i], expected[i]) << i;
}

TEST(RandomUniformTest, LargeParallelFillMatchesStream) {
  constexpr int64_t kN = 300001;
  Tensor t = RunOnce("RandomStandardNormal", I64({1}, {kN}), Attrs(DType::kDouble, 12, 13));
  Philox gen(12, 13);
  ASSERT_EQ(t.NumElements(), kN);
  for (int64_t i = 0; i < kN; i += 2) {
    const auto b = gen();
    double d[2];
    random::BoxMullerDouble(b[0], b[1], b[2], b[3], &d[0], &d[1]);
    ASSERT_EQ(t.flat<double>()[i], d[0]) << i;
    if (i + 1 < kN) {
      ASSERT_EQ(t.flat<double>()[i + 1], d[1]) << i;
    }
  }
}

TEST(RandomUniformTest, EmptyAndScalarShapes) {
  Tensor empty = RunOnce("RandomUniform", I32({2}, {0, 5}), Attrs(DType::kFloat, 1, 1));
  EXPECT_EQ(empty.shape(), TensorShape({0, 5}));
  Tensor scalar = RunOnce("TruncatedNormal", I32({0}, {}), Attrs(DType::kDouble, 1, 1));
  EXPECT_EQ(scalar.shape(), TensorShape({}));
  EXPECT_LT(std::abs(scalar.scalar<double>()), 2.0);
}

TEST(RandomUniformTest, ShapeInference) {
  auto exact = BuildRandom("RandomUniform", I32({3}, {2, 3, 4}), Attrs(DType::kFloat, 1, 1));
  ASSERT_TRUE(exact->status.ok());
  EXPECT_EQ(exact->node->output_shape(0), PartialShape({2, 3, 4}));
  // A fed shape of unknown length: unknown rank.
  auto fed = BuildRandom("RandomUniform", Tensor(), Attrs(DType::kFloat, 1, 1));
  ASSERT_TRUE(fed->status.ok());
  EXPECT_FALSE(fed->node->output_shape(0).known_rank());
}

TEST(RandomUniformTest, StaticShapeErrors) {
  auto negative = BuildRandom("RandomUniform", I32({2}, {2, -1}), Attrs(DType::kFloat, 1, 1));
  EXPECT_STATUS(negative->status, absl::StatusCode::kInvalidArgument, "negative");
  EXPECT_STATUS(negative->status, absl::StatusCode::kInvalidArgument, "node 'r'");
  auto huge = BuildRandom("RandomUniform", I64({3}, {1 << 20, 1 << 20, 1 << 20}),
                          Attrs(DType::kFloat, 1, 1));
  EXPECT_STATUS(huge->status, absl::StatusCode::kInvalidArgument, "more than");
  auto matrix = BuildRandom("RandomUniform", I32({1, 1}, {2}), Attrs(DType::kFloat, 1, 1));
  EXPECT_STATUS(matrix->status, absl::StatusCode::kInvalidArgument, "rank 1");
  auto bad_dtype = BuildRandom("RandomUniform", I32({1}, {2}), Attrs(DType::kInt32, 1, 1));
  EXPECT_STATUS(bad_dtype->status, absl::StatusCode::kInvalidArgument, "dtype");
}

TEST(RandomUniformTest, RunTimeShapeErrors) {
  const AttrMap attrs = Attrs(DType::kFloat, 1, 1);
  EXPECT_STATUS(RunOpFed("RandomUniform", {I32({2}, {3, -2})}, attrs).status(),
                absl::StatusCode::kInvalidArgument, "negative dimension");
  EXPECT_STATUS(
      RunOpFed("RandomStandardNormal", {I32({3}, {1 << 20, 1 << 20, 1 << 20})}, attrs).status(),
      absl::StatusCode::kResourceExhausted, "more than");
  EXPECT_STATUS(RunOpFed("TruncatedNormal", {I32({}, {3})}, attrs).status(),
                absl::StatusCode::kInvalidArgument, "shape must be a vector");
  std::vector<int32_t> ones(40, 1);
  EXPECT_STATUS(
      RunOpFed("RandomUniform", {*Tensor::FromVector<int32_t>(ones, TensorShape({40}))}, attrs)
          .status(),
      absl::StatusCode::kInvalidArgument, "40 dimensions, more than the limit of 32");
  EXPECT_TRUE(RunOpFed("RandomUniform", {I32({2}, {2, 2})}, attrs).ok());
}

TEST(RandomUniformIntTest, ValuesCoverTheRange) {
  Tensor t = RunOnce("RandomUniformInt", I32({1}, {10000}), {{"seed", MakeAttr(int64_t{1})}},
                     {I32({}, {-5}), I32({}, {5})});
  ASSERT_EQ(t.dtype(), DType::kInt32);
  std::set<int32_t> seen;
  for (int32_t v : t.flat<int32_t>()) {
    ASSERT_TRUE(v >= -5 && v < 5) << v;
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 10u);
  double mean, stddev;
  Moments<int32_t>(t, &mean, &stddev);
  EXPECT_NEAR(mean, -0.5, 0.1);
}

TEST(RandomUniformIntTest, Int64WideRangeAndStream) {
  const int64_t lo = std::numeric_limits<int64_t>::min() + 1,
                hi = std::numeric_limits<int64_t>::max();
  Tensor t = RunOnce("RandomUniformInt", I64({1}, {5}), {{"seed", MakeAttr(int64_t{3})}},
                     {I64({}, {lo}), I64({}, {hi})});
  ASSERT_EQ(t.dtype(), DType::kInt64);
  // Two words per value, low word first; the range is hi - lo taken unsigned.
  Philox gen(3, 0);
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  for (int i = 0; i < 5; i += 2) {
    const auto b = gen();
    for (int k = 0; k < 2 && i + k < 5; ++k) {
      const uint64_t bits = b[2 * k] | (static_cast<uint64_t>(b[2 * k + 1]) << 32);
      EXPECT_EQ(t.flat<int64_t>()[i + k],
                static_cast<int64_t>(static_cast<uint64_t>(lo) + bits % range));
    }
  }
}

TEST(RandomUniformIntTest, EmptyRangeErrors) {
  // Known statically from the constants.
  auto g = BuildRandom("RandomUniformInt", I32({1}, {3}), {}, {I64({}, {4}), I64({}, {4})});
  EXPECT_STATUS(g->status, absl::StatusCode::kInvalidArgument, "need minval < maxval");
  // No values drawn: fine.
  Tensor none = RunOnce("RandomUniformInt", I32({1}, {0}), {}, {I32({}, {4}), I32({}, {1})});
  EXPECT_EQ(none.shape(), TensorShape({0}));
  // At run time, with the shape fed.
  auto fed = BuildRandom("RandomUniformInt", Tensor(), {}, {I32({}, {9}), I32({}, {2})});
  ASSERT_TRUE(fed->status.ok()) << fed->status;
  testing::GraphSession session;
  ASSERT_TRUE(session.Extend(fed->graph.ToGraphDef()).ok());
  std::vector<Tensor> out;
  EXPECT_STATUS(session.Run({{"shape", I32({1}, {2})}}, {"r"}, {}, &out),
                absl::StatusCode::kInvalidArgument, "minval 9 >= maxval 2");
  // Bounds must be scalars.
  auto vec = BuildRandom("RandomUniformInt", I32({1}, {3}), {}, {I32({1}, {0}), I32({}, {2})});
  EXPECT_STATUS(vec->status, absl::StatusCode::kInvalidArgument, "rank 0");
}

TEST(RandomUniformTest, ConcurrentRunsDrawDisjointSlices) {
  auto g = BuildRandom("RandomUniform", I32({1}, {4}), Attrs(DType::kFloat, 21, 22));
  ASSERT_TRUE(g->status.ok());
  testing::GraphSession session;
  ASSERT_TRUE(session.Extend(g->graph.ToGraphDef()).ok());
  constexpr int kThreads = 4, kRuns = 25;
  std::vector<std::vector<float>> firsts(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRuns; ++i) {
        std::vector<Tensor> out;
        if (session.Run({}, {"r"}, {}, &out).ok()) firsts[t].push_back(out[0].flat<float>()[0]);
      }
    });
  }
  for (auto& th : threads) th.join();
  // Every run got its own slice of the stream: the slices' first values are those of
  // slices 0 .. kThreads * kRuns - 1, each exactly once.
  std::multiset<float> got, want;
  for (const auto& f : firsts) got.insert(f.begin(), f.end());
  Philox stream(21, 22);
  for (int i = 0; i < kThreads * kRuns; ++i) {
    Philox gen = stream;
    want.insert(random::Uint32ToFloat(gen()[0]));
    stream.Skip(4 * 256);
  }
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace tw
