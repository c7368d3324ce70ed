// The C++ builders tools/op_gen generates from the registry (tensorweave/gen_ops.h): inputs,
// list inputs, required attrs, attrs with their defaults, several outputs, ops without
// inputs; the nodes they build equal the hand-written API's.
#include "tensorweave/gen_ops.h"

#include <gtest/gtest.h>

#include "graph/graph.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

namespace gen = ops::gen;
using testing::F32;
using testing::I32;

TEST(GenOpsTest, BuildsAndRunsOps) {
  Graph g;
  Output a = constant(g, F32({2, 3}, {0, 1, 2, 3, 4, 5}));
  gen::MatMulAttrs transpose_b;
  transpose_b.transpose_b = true;
  Output m = gen::MatMul(a, a, transpose_b);
  Output c = gen::ConcatV2({a, a, a}, constant(g, 0));
  Operation split = gen::Split(constant(g, 0), c, 3);
  Output cast = gen::Cast(a, DType::kInt32);
  Output p = gen::Placeholder(g, DType::kFloat, {.shape = PartialShape({-1, 3})});
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(m), F32({2, 2}, {5, 14, 14, 50}));
  EXPECT_EQ(sess.run(c).shape(), TensorShape({6, 3}));
  ASSERT_EQ(split.num_outputs(), 3);
  EXPECT_TENSOR_EQ(sess.run(split.output(2)), F32({2, 3}, {0, 1, 2, 3, 4, 5}));
  EXPECT_TENSOR_EQ(sess.run(cast), I32({2, 3}, {0, 1, 2, 3, 4, 5}));
  EXPECT_TENSOR_EQ(sess.run(p * 2.0, {{p, F32({1, 3}, {1, 2, 3})}}), F32({1, 3}, {2, 4, 6}));
  EXPECT_EQ(m.op().name(), "MatMul");
  EXPECT_EQ(p.shape(), PartialShape({-1, 3}));
}

TEST(GenOpsTest, SameNodeAsTheHandWrittenBuilder) {
  Graph g;
  Output a = constant(g, F32({2, 2}, {1, 2, 3, 4}));
  Output ours = matmul(a, a, /*transpose_a=*/true, false, "mm");
  gen::MatMulAttrs attrs;
  attrs.transpose_a = true;
  Output generated = gen::MatMul(a, a, attrs, "mm");
  const Node* x = ours.op().node();
  const Node* y = generated.op().node();
  ASSERT_EQ(x->attrs().size(), y->attrs().size());
  for (const auto& [key, value] : x->attrs()) {
    ASSERT_TRUE(y->attrs().count(key)) << key;
    EXPECT_EQ(AttrValueToString(value), AttrValueToString(y->attrs().at(key))) << key;
  }
  EXPECT_EQ(generated.op().name(), "mm_1");
}

TEST(GenOpsTest, InvalidAttrsFailNamingTheNode) {
  Graph g;
  Output a = constant(g, F32({4}, {1, 2, 3, 4}));
  // Split's num_split must be >= 1: the one check in AddOperation, as for every builder.
  EXPECT_STATUS(testing::ErrorOf([&] { gen::Split(constant(g, 0), a, 0, "bad_split"); }),
                absl::StatusCode::kInvalidArgument, "bad_split");
  EXPECT_STATUS(testing::ErrorOf([&] { gen::ConcatV2({}, constant(g, 0)); }), absl::StatusCode::kInvalidArgument,
                "ConcatV2");
}

}  // namespace
}  // namespace tw
