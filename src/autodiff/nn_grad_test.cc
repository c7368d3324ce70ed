// Gradients of Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits and the bias ops
// (including second order), and a small MLP end to end, against finite differences.
#include <gtest/gtest.h>

#include "graph/attr_value.h"
#include "tensorweave/gradients.h"
#include "tensorweave/tensorweave.h"
#include "testing/gradient_checker.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::F64;
using testing::RandomTensor;

// Rows of positive values summing to 1 (a valid label distribution).
Tensor Distribution(const TensorShape& shape, uint64_t seed) {
  Tensor t = RandomTensor(shape, 0.1, 1, seed);
  const int64_t cols = shape.dim(shape.rank() - 1);
  double* p = t.data<double>();
  for (int64_t r = 0; r < t.NumElements() / cols; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += p[r * cols + c];
    for (int64_t c = 0; c < cols; ++c) p[r * cols + c] /= sum;
  }
  return t;
}

Output Hide(const Output& x) { return placeholder_with_default(x, PartialShape::UnknownRank()); }

TEST(NnGradTest, Softmax) {
  for (const TensorShape& s : {TensorShape({7}), TensorShape({4, 10}), TensorShape({2, 3, 5})}) {
    SCOPED_TRACE(s.DebugString());
    EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return softmax(x[0]); },
                        std::vector<Tensor>{RandomTensor(s, -3, 3, 1)});
    EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return softmax(Hide(x[0])); },
                        std::vector<Tensor>{RandomTensor(s, -3, 3, 2)});
  }
}

TEST(NnGradTest, LogSoftmax) {
  for (const TensorShape& s : {TensorShape({7}), TensorShape({4, 10}), TensorShape({2, 3, 5})}) {
    SCOPED_TRACE(s.DebugString());
    EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return log_softmax(x[0]); },
                        std::vector<Tensor>{RandomTensor(s, -3, 3, 3)});
  }
}

TEST(NnGradTest, SoftmaxOfAnIntermediate) {
  // The logits buffer is a temporary the kernel may take over as its output.
  const Tensor logits = RandomTensor({3, 4}, -2, 2, 22);
  EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return softmax(x[0] * 2.0); },
                      std::vector<Tensor>{logits});
  EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return log_softmax(x[0] * 2.0); },
                      std::vector<Tensor>{logits});
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({1, 2}), "x");
  Session sess(g);
  EXPECT_TENSOR_NEAR(sess.run(softmax(x * 1.0), {{x, F64({1, 2}, {0, std::log(3.0)})}}),
                     F64({1, 2}, {0.25, 0.75}), 1e-12);
}

Operation Xent(const Output& logits, const Output& labels) {
  return softmax_cross_entropy_with_logits(labels, logits).op();
}

TEST(NnGradTest, SoftmaxCrossEntropyLoss) {
  const std::vector<Tensor> inputs = {RandomTensor({5, 8}, -3, 3, 4), Distribution({5, 8}, 5)};
  // Both logits and labels, the loss output only.
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return Xent(x[0], x[1]).output(0); }, inputs);
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return Xent(Hide(x[0]), x[1]).output(0); },
      inputs);
}

TEST(NnGradTest, SoftmaxCrossEntropyLabelsGradientIsMinusLogSoftmax) {
  Graph g;
  auto logits = placeholder(g, DType::kDouble, PartialShape({1, 3}), "logits");
  auto labels = placeholder(g, DType::kDouble, PartialShape({1, 3}), "labels");
  auto grads = gradients({Xent(logits, labels).output(0)}, {logits, labels});
  Session sess(g);
  const FeedDict feeds = {{logits, F64({1, 3}, {0, 0, 0})}, {labels, F64({1, 3}, {1, 0, 0})}};
  const double third = 1.0 / 3, log3 = std::log(3.0);
  EXPECT_TENSOR_NEAR(sess.run(grads[0], feeds), F64({1, 3}, {third - 1, third, third}), 1e-12);
  EXPECT_TENSOR_NEAR(sess.run(grads[1], feeds), F64({1, 3}, {log3, log3, log3}), 1e-12);
}

TEST(NnGradTest, SoftmaxCrossEntropyBackpropOutput) {
  const std::vector<Tensor> inputs = {RandomTensor({3, 6}, -2, 2, 6), Distribution({3, 6}, 7)};
  // The backprop output alone, and together with the loss.
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return Xent(x[0], x[1]).output(1); }, inputs);
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) {
        Operation op = Xent(x[0], x[1]);
        return expand_dims(op.output(0), 1) * op.output(1);
      },
      inputs);
  // Second order: the gradient of the loss w.r.t. the logits, differentiated again.
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) {
        return gradients({Xent(x[0], x[1]).output(0)}, {x[0]})[0];
      },
      inputs);
}

Output BiasAdd(const std::string& op, const Output& x, const Output& b,
               const std::string& format = "") {
  AttrMap attrs;
  if (!format.empty()) attrs["data_format"] = MakeAttr(format);
  return x.graph()->AddOperation(op, op, {x, b}, attrs).output(0);
}

TEST(NnGradTest, BiasAdd) {
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return BiasAdd("BiasAdd", x[0], x[1]); },
      (std::vector<Tensor>{RandomTensor({4, 3}, -1, 1, 1), RandomTensor({3}, -1, 1, 2)}));
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return BiasAdd("BiasAdd", x[0], x[1], "NHWC"); },
      (std::vector<Tensor>{RandomTensor({2, 2, 3, 4}, -1, 1, 3), RandomTensor({4}, -1, 1, 4)}));
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return BiasAdd("BiasAdd", x[0], x[1], "NCHW"); },
      (std::vector<Tensor>{RandomTensor({2, 3, 2, 2}, -1, 1, 5), RandomTensor({3}, -1, 1, 6)}));
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return BiasAdd("BiasAdd", x[0], x[1], "NCHW"); },
      (std::vector<Tensor>{RandomTensor({2, 3, 4}, -1, 1, 7), RandomTensor({3}, -1, 1, 8)}));
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return BiasAdd("BiasAddV1", x[0], x[1]); },
      (std::vector<Tensor>{RandomTensor({3, 2, 5}, -1, 1, 9), RandomTensor({5}, -1, 1, 10)}));
}

Output BiasAddGrad(const Output& x, const std::string& format) {
  return x.graph()
      ->AddOperation("BiasAddGrad", "BiasAddGrad", {x}, {{"data_format", MakeAttr(format)}})
      .output(0);
}

TEST(NnGradTest, BiasAddGradFirstOrder) {
  for (const std::string format : {"NHWC", "NCHW"}) {
    for (const TensorShape& s :
         {TensorShape({4, 3}), TensorShape({2, 3, 4}), TensorShape({2, 3, 2, 2})}) {
      SCOPED_TRACE(format + " " + s.DebugString());
      EXPECT_GRADIENTS_OK(
          [&](Graph&, const std::vector<Output>& x) { return BiasAddGrad(x[0], format); },
          std::vector<Tensor>{RandomTensor(s, -1, 1, 11)});
      EXPECT_GRADIENTS_OK(
          [&](Graph&, const std::vector<Output>& x) { return BiasAddGrad(Hide(x[0]), format); },
          std::vector<Tensor>{RandomTensor(s, -1, 1, 12)});
    }
  }
}

TEST(NnGradTest, BiasAddSecondOrder) {
  // d/db sum(W * (x + b) * x) = BiasAddGrad(W * x), differentiated w.r.t. x and b.
  for (const std::string format : {"NHWC", "NCHW"}) {
    SCOPED_TRACE(format);
    EXPECT_GRADIENTS_OK(
        [&](Graph& g, const std::vector<Output>& x) {
          Output y = BiasAdd("BiasAdd", x[0], x[1], format) * x[0];
          Output w = constant(g, RandomTensor({2, 3, 4}, 0.5, 1.5, 13));
          return gradients({y}, {x[1]}, {w})[0] * x[1];
        },
        (std::vector<Tensor>{RandomTensor({2, 3, 4}, -1, 1, 14),
                             RandomTensor({format == "NHWC" ? 4 : 3}, -1, 1, 15)}));
  }
}

TEST(NnGradTest, TwoLayerMlpEndToEnd) {
  // loss = mean(xent(labels, relu(x w1 + b1) w2 + b2)), checked w.r.t. every input.
  const Tensor labels = Distribution({5, 3}, 16);
  auto mlp = [&](Graph& g, const std::vector<Output>& p) {
    Output hidden = relu(BiasAdd("BiasAdd", matmul(p[0], p[1]), p[2]));
    Output logits = BiasAdd("BiasAdd", matmul(hidden, p[3]), p[4]);
    return reduce_mean(softmax_cross_entropy_with_logits(constant(g, labels), logits));
  };
  EXPECT_GRADIENTS_OK(
      mlp, (std::vector<Tensor>{RandomTensor({5, 4}, -1, 1, 17), RandomTensor({4, 6}, -1, 1, 18),
                                RandomTensor({6}, -0.5, 0.5, 19), RandomTensor({6, 3}, -1, 1, 20),
                                RandomTensor({3}, -0.5, 0.5, 21)}));
}

}  // namespace
}  // namespace tw
