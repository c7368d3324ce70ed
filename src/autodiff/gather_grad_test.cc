// Gradients of GatherV2 (every axis, repeated and matrix indices) and UnsortedSegmentSum
// (dropped negative ids) against finite differences, and their values on a small case.
#include <gtest/gtest.h>

#include "tensorweave/gradients.h"
#include "tensorweave/tensorweave.h"
#include "testing/gradient_checker.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::F64;
using testing::I32;
using testing::RandomTensor;

Output AddOp(const std::string& op, const std::vector<Output>& inputs) {
  return inputs[0].graph()->AddOperation(op, op, inputs, {}).output(0);
}

TEST(GatherGradTest, GatherAlongEveryAxisMatchesFiniteDifferences) {
  const Tensor x = RandomTensor(TensorShape({3, 4, 2}), -1, 1, 3);
  for (int axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(axis);
    EXPECT_GRADIENTS_OK(
        [&](Graph& g, const std::vector<Output>& in) {
          return gather(in[0] * 1.0, constant(g, I32({2, 2}, {1, 0, 1, 1})), axis) * 3.0;
        },
        std::vector<Tensor>{x});
  }
}

// A variable's read has no static shape: axis 0 needs none.
TEST(GatherGradTest, AxisZeroOfAnUnknownShape) {
  const Tensor x = RandomTensor(TensorShape({4, 3}), -1, 1, 5);
  EXPECT_GRADIENTS_OK(
      [&](Graph& g, const std::vector<Output>& in) {
        return gather(placeholder_with_default(in[0], PartialShape::UnknownRank()), constant(g, I32({3}, {3, 0, 3})));
      },
      std::vector<Tensor>{x});
}

TEST(GatherGradTest, RepeatedIndicesSumTheirGradients) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({3, 2}), "x");
  auto y = gather(x, constant(g, I32({4}, {2, 0, 2, 2})));
  auto grads = gradients({reduce_sum(y)}, {x});
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(grads[0], {{x, F64({3, 2}, {1, 2, 3, 4, 5, 6})}}),
                   F64({3, 2}, {1, 1, 0, 0, 3, 3}));
}

TEST(GatherGradTest, UnsortedSegmentSumMatchesFiniteDifferencesAndDropsNegativeIds) {
  const Tensor x = RandomTensor(TensorShape({5, 3}), -1, 1, 7);
  EXPECT_GRADIENTS_OK(
      [&](Graph& g, const std::vector<Output>& in) {
        return AddOp("UnsortedSegmentSum", {in[0], constant(g, I32({5}, {2, -1, 0, 2, 3})),
                                            constant(g, int32_t{4})});
      },
      std::vector<Tensor>{x});
  Graph g;
  auto data = placeholder(g, DType::kDouble, PartialShape({3}), "data");
  auto sum = AddOp("UnsortedSegmentSum", {data, constant(g, I32({3}, {1, -1, 1})), constant(g, int32_t{2})});
  auto grads = gradients({sum}, {data}, {constant(g, F64({2}, {10, 20}))});
  Session sess(g);
  auto out = sess.run({sum, grads[0]}, {{data, F64({3}, {1, 2, 3})}});
  EXPECT_TENSOR_EQ(out[0], F64({2}, {0, 4}));
  EXPECT_TENSOR_EQ(out[1], F64({3}, {20, 0, 20}));
}

}  // namespace
}  // namespace tw
