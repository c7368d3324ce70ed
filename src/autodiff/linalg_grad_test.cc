// Gradients of MatMul (all transposes) and BatchMatMul / BatchMatMulV2 (adjoints and
// batch broadcasting) against finite differences.
#include <gtest/gtest.h>

#include "graph/attr_value.h"
#include "tensorweave/gradients.h"
#include "tensorweave/tensorweave.h"
#include "testing/gradient_checker.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::RandomTensor;

TEST(LinalgGradTest, MatMulAllTransposes) {
  // Logical product [3, 4] x [4, 2]; each operand is stored transposed when flagged.
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "transpose_a " << ta << " transpose_b " << tb);
      Tensor a = ta ? RandomTensor({4, 3}, -1, 1, 1) : RandomTensor({3, 4}, -1, 1, 1);
      Tensor b = tb ? RandomTensor({2, 4}, -1, 1, 2) : RandomTensor({4, 2}, -1, 1, 2);
      EXPECT_GRADIENTS_OK(
          [&](Graph&, const std::vector<Output>& x) { return matmul(x[0], x[1], ta, tb); },
          (std::vector<Tensor>{a, b}));
    }
  }
}

TEST(LinalgGradTest, MatMulSquareAndVectorShapes) {
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return matmul(x[0], x[0], true, false); },
      (std::vector<Tensor>{RandomTensor({3, 3})}));
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return matmul(x[0], x[1]); },
      (std::vector<Tensor>{RandomTensor({1, 5}, -1, 1, 3), RandomTensor({5, 1}, -1, 1, 4)}));
}

Output BatchOp(const std::string& op, const Output& x, const Output& y, bool adj_x, bool adj_y) {
  return x.graph()
      ->AddOperation(op, op, {x, y}, {{"adj_x", MakeAttr(adj_x)}, {"adj_y", MakeAttr(adj_y)}})
      .output(0);
}

TEST(LinalgGradTest, BatchMatMulAllAdjoints) {
  for (const char* op : {"BatchMatMul", "BatchMatMulV2"}) {
    for (bool ax : {false, true}) {
      for (bool ay : {false, true}) {
        SCOPED_TRACE(::testing::Message() << op << " adj_x " << ax << " adj_y " << ay);
        Tensor x = ax ? RandomTensor({2, 4, 3}, -1, 1, 5) : RandomTensor({2, 3, 4}, -1, 1, 5);
        Tensor y = ay ? RandomTensor({2, 2, 4}, -1, 1, 6) : RandomTensor({2, 4, 2}, -1, 1, 6);
        EXPECT_GRADIENTS_OK(
            [&](Graph&, const std::vector<Output>& in) {
              return BatchOp(op, in[0], in[1], ax, ay);
            },
            (std::vector<Tensor>{x, y}));
      }
    }
  }
}

TEST(LinalgGradTest, BatchMatMulV2BroadcastsBatchDims) {
  struct Case {
    TensorShape x, y;
    bool ax, ay;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {4, 5}, false, false},           // y has no batch dims
      {{3, 4}, {2, 4, 5}, false, false},           // x has no batch dims
      {{2, 1, 3, 4}, {1, 3, 4, 2}, false, false},  // both broadcast
      {{1, 4, 3}, {2, 2, 4}, true, true},          // size-1 batch dim, adjoints
      {{2, 1, 4, 3}, {3, 4, 5}, true, false},      // different batch ranks
  };
  uint64_t seed = 10;
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.x.DebugString() << " x " << c.y.DebugString());
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& in) {
          return BatchOp("BatchMatMulV2", in[0], in[1], c.ax, c.ay);
        },
        (std::vector<Tensor>{RandomTensor(c.x, -1, 1, seed), RandomTensor(c.y, -1, 1, seed + 1)}));
    // Unknown shapes: the reduction over broadcast dims is computed in the graph.
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& in) {
          auto hide = [](const Output& t) {
            return placeholder_with_default(t, PartialShape::UnknownRank());
          };
          return BatchOp("BatchMatMulV2", hide(in[0]), hide(in[1]), c.ax, c.ay);
        },
        (std::vector<Tensor>{RandomTensor(c.x, -1, 1, seed), RandomTensor(c.y, -1, 1, seed + 1)}));
    seed += 2;
  }
}

}  // namespace
}  // namespace tw
