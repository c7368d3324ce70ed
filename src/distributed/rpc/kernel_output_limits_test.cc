// The cap on what one kernel may allocate at run time (max_tensor_bytes, checked in
// OpKernelContext::allocate_output): small fed inputs that ask Fill, Tile, MatMul... for a
// huge output fail the step with ResourceExhausted naming the node, the output's bytes
// and the limit, in a local session and on a server, and the session carries on.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <random>

#include "distributed/rpc/grpc_session.h"
#include "runtime/local_session.h"
#include "tensorweave/tensorweave.h"
#include "testing/op_test_util.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::F32;
using testing::I32;
using testing::I64;

constexpr int64_t kCap = int64_t{1} << 20;  // 1 MiB: a float32 [512,512].

Tensor Floats(std::initializer_list<int64_t> dims) {
  const TensorShape shape(dims);
  return ValueOrThrow(Tensor::FromVector<float>(std::vector<float>(shape.num_elements(), 1.0f), shape));
}

// One op fed small inputs: `fits` makes an output within kCap, `too_big` one over it.
struct OutputCase {
  std::string op;
  std::vector<Tensor> fits, too_big;
  std::string expected;  // The error's message from "output".
  AttrMap attrs = {};
};

std::vector<OutputCase> Cases() {
  const std::string over = " is over the max_tensor_bytes limit of 1048576";
  return {
      {"Fill", {I32({2}, {256, 512}), F32({}, {1})}, {I32({2}, {1024, 512}), F32({}, {1})},
       "output 0: float32 [1024,512] tensor of 2097152 bytes" + over},
      {"Fill", {I64({1}, {131072}), I64({}, {7})}, {I64({1}, {131073}), I64({}, {7})},
       "output 0: int64 [131073] tensor of 1048584 bytes" + over},
      {"Tile", {F32({2, 2}, {1, 2, 3, 4}), I32({2}, {128, 256})}, {F32({2, 2}, {1, 2, 3, 4}), I32({2}, {512, 256})},
       "output 0: float32 [1024,512] tensor of 2097152 bytes" + over},
      {"BroadcastTo", {F32({1}, {1}), I32({2}, {512, 512})}, {F32({1}, {1}), I32({3}, {2, 512, 512})},
       "output 0: float32 [2,512,512] tensor of 2097152 bytes" + over},
      {"RandomUniform", {I32({2}, {512, 512})}, {I32({2}, {512, 513})},
       "output 0: float32 [512,513] tensor of 1050624 bytes" + over,
       {{"dtype", MakeAttr(DType::kFloat)}}},
      {"RandomStandardNormal", {I64({1}, {131072})}, {I64({1}, {131072 * 2})},
       "output 0: float64 [262144] tensor of 2097152 bytes" + over,
       {{"dtype", MakeAttr(DType::kDouble)}}},
      {"Range", {I64({}, {0}), I64({}, {131072}), I64({}, {1})}, {I64({}, {0}), I64({}, {300000}), I64({}, {1})},
       "output 0: int64 [300000] tensor of 2400000 bytes" + over},
      {"OneHot", {I32({2}, {0, 1}), I32({}, {131072}), F32({}, {1}), F32({}, {0})},
       {I32({2}, {0, 1}), I32({}, {200000}), F32({}, {1}), F32({}, {0})},
       "output 0: float32 [2,200000] tensor of 1600000 bytes" + over},
      {"MatMul", {Floats({512, 1}), Floats({1, 512})}, {Floats({1024, 1}), Floats({1, 512})},
       "output 0: float32 [1024,512] tensor of 2097152 bytes" + over},
      {"Pad", {F32({1, 1}, {1}), I32({2, 2}, {0, 511, 0, 511})}, {F32({1, 1}, {1}), I32({2, 2}, {0, 1023, 0, 511})},
       "output 0: float32 [1024,512] tensor of 2097152 bytes" + over},
      {"ConcatV2", {Floats({256, 512}), Floats({256, 512}), I32({}, {0})},
       {Floats({512, 512}), Floats({512, 512}), I32({}, {0})},
       "output 0: float32 [1024,512] tensor of 2097152 bytes" + over},
      // Dims whose product overflows int64: refused, not wrapped to a small count.
      {"MatMul", {Floats({1024, 0}), Floats({0, 256})},
       {Floats({int64_t{1} << 40, 0}), Floats({0, int64_t{1} << 40})},
       "output 0: float32 [1099511627776,1099511627776] tensor of more than 9223372036854775807 bytes" + over},
  };
}

// Adds case `c`'s op, with Placeholders of `inputs`' dtypes, to `session`.
absl::Status Extend(SessionInterface& session, const OutputCase& c, const std::vector<Tensor>& inputs) {
  FlowGraph graph;
  std::vector<OpInput> fed(inputs.begin(), inputs.end());
  TW_RETURN_IF_ERROR(testing::BuildOp(graph, c.op, fed, c.attrs, /*feed=*/true).status());
  return session.Extend(graph.ToGraphDef());
}

// Runs the op with `inputs` fed; an output that gets through must be within the cap.
absl::Status RunOp(SessionInterface& session, const std::vector<Tensor>& inputs) {
  FeedList feeds;
  for (size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(absl::StrCat("input", i), inputs[i]);
  std::vector<Tensor> outputs;
  TW_RETURN_IF_ERROR(session.Run(feeds, {"op:0"}, {}, &outputs));
  const int64_t bytes = static_cast<int64_t>(outputs[0].TotalBytes());
  if (bytes > kCap) return absl::InternalError(absl::StrCat("an output of ", bytes, " bytes got through"));
  return absl::OkStatus();
}

// Each case in a fresh session (its nodes are "op" and "input<i>").
void CheckCases(const std::function<std::unique_ptr<SessionInterface>()>& new_session) {
  for (const OutputCase& c : Cases()) {
    SCOPED_TRACE(c.op + ": " + c.expected);
    auto session = new_session();
    ASSERT_TRUE(Extend(*session, c, c.fits).ok());
    const absl::Status fits = RunOp(*session, c.fits);
    EXPECT_TRUE(fits.ok()) << fits;
    EXPECT_STATUS(RunOp(*session, c.too_big), absl::StatusCode::kResourceExhausted,
                  absl::StrCat("node 'op' (", c.op, "): ", c.expected));
    EXPECT_TRUE(RunOp(*session, c.fits).ok());  // The same session carries on.
  }
}

TEST(KernelOutputLimitsTest, LocalSessionRefusesOutputsOverItsCap) {
  CheckCases([] {
    SessionOptions options;
    options.max_tensor_bytes = kCap;
    return std::make_unique<LocalSession>(options);
  });
}

TEST(KernelOutputLimitsTest, ServerRefusesOutputsOverItsMaxTensorBytes) {
  ServerOptions options;
  options.limits.max_tensor_bytes = kCap;
  InProcessCluster cluster = ValueOrThrow(StartInProcessCluster("local", 1, options));
  CheckCases([&] { return ValueOrThrow(NewGrpcSession(cluster.target(0), SessionOptions{})); });
}

TEST(KernelOutputLimitsTest, SessionConfigSetsTheLocalCap) {
  Graph g;
  auto n = placeholder(g, DType::kInt32, PartialShape({-1}), "n");
  auto filled = g.AddOperation("Fill", "filled", {n, constant(g, 1.0f)}, {}).output(0);
  SessionConfig config;
  config.max_tensor_bytes = 400;
  Session sess(g, "", config);
  EXPECT_EQ(sess.run(filled, {{n, I32({1}, {100})}}).NumElements(), 100);
  EXPECT_STATUS(ErrorOf([&] { sess.run(filled, {{n, I32({1}, {101})}}); }), absl::StatusCode::kResourceExhausted,
                "node 'filled' (Fill): output 0: float32 [101] tensor of 404 bytes is over the max_tensor_bytes "
                "limit of 400");
  config.max_tensor_bytes = 0;
  EXPECT_STATUS(ErrorOf([&] { Session zero(g, "", config); }), absl::StatusCode::kInvalidArgument,
                "SessionConfig::max_tensor_bytes must be positive, not 0");
  // The default is the servers' default (4 GiB): 2^32 floats are 16 GiB.
  Session defaults(g);
  EXPECT_STATUS(ErrorOf([&] { defaults.run(filled, {{n, I32({2}, {65536, 65536})}}); }),
                absl::StatusCode::kResourceExhausted,
                "output 0: float32 [65536,65536] tensor of 17179869184 bytes is over the max_tensor_bytes limit of "
                "4294967296");
}

// Regression-style sweep: shapes from a fixed seed, mixing zeros, small sizes and sizes
// near and past 2^31, 2^40 and 2^63. Every run must end in a value within the cap or a
// clear InvalidArgument / ResourceExhausted, never a crash or a wrapped size.
TEST(KernelOutputLimitsTest, RandomHugeShapesFailCleanly) {
  SessionOptions options;
  options.max_tensor_bytes = kCap;
  std::mt19937_64 rng(238);
  const int64_t picks[] = {0, 1, 3, 512, 70000, int64_t{1} << 31, (int64_t{1} << 40) + 1, int64_t{1} << 62,
                           std::numeric_limits<int64_t>::max(), -1};
  auto pick = [&] { return picks[rng() % std::size(picks)]; };
  auto dims = [&](int rank) {
    std::vector<int64_t> d(rank);
    for (auto& x : d) x = pick();
    return ValueOrThrow(Tensor::FromVector<int64_t>(d, TensorShape({rank})));
  };
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 3);
    std::vector<OutputCase> cases = {
        {"Fill", {dims(rank), F32({}, {2})}, {}, ""},
        {"Tile", {F32({1, 1, 1}, {1}), dims(3)}, {}, ""},
        {"BroadcastTo", {F32({1}, {1}), dims(rank)}, {}, ""},
        {"RandomUniform", {dims(rank)}, {}, "", {{"dtype", MakeAttr(DType::kFloat)}}},
        {"Range", {I64({}, {0}), I64({}, {pick()}), I64({}, {1 + static_cast<int64_t>(rng() % 2)})}, {}, ""},
        {"Pad", {F32({1}, {1}), ValueOrThrow(Tensor::FromVector<int64_t>({pick(), pick()}, TensorShape({1, 2})))},
         {}, ""},
        {"Reshape", {F32({0}, {}), dims(rank)}, {}, ""},
    };
    for (const OutputCase& c : cases) {
      LocalSession session(options);
      SCOPED_TRACE(c.op);
      ASSERT_TRUE(Extend(session, c, c.fits).ok());
      const absl::Status s = RunOp(session, c.fits);
      EXPECT_TRUE(s.ok() || s.code() == absl::StatusCode::kInvalidArgument ||
                  s.code() == absl::StatusCode::kResourceExhausted)
          << s;
    }
  }
}

}  // namespace
}  // namespace tw
