#include <gtest/gtest.h>

#include <cmath>

#include "testing/op_test_util.h"

namespace tw {
namespace {

// softmax([1,2,3]) and log_softmax([1,2,3]), from exp(x - 3) / (e^-2 + e^-1 + 1).
constexpr double kS1 = 0.09003057317038046, kS2 = 0.24472847105479767, kS3 = 0.6652409557748219;
constexpr double kL1 = -2.4076059644443806, kL2 = -1.4076059644443806, kL3 = -0.40760596444438063;

TEST(Softmax, RowsOfTheLastDim) {
  EXPECT_TENSOR_NEAR(RunOpOk("Softmax", {F32({2, 3}, {1, 2, 3, 0, 0, 0})}),
                     F32({2, 3}, {kS1, kS2, kS3, 1.f / 3, 1.f / 3, 1.f / 3}));
  EXPECT_TENSOR_NEAR(RunOpOk("Softmax", {F64({3}, {1, 2, 3})}), F64({3}, {kS1, kS2, kS3}), 1e-12,
                     1e-12);
  // Rank 3: softmax over the last dim only.
  EXPECT_TENSOR_NEAR(RunOpOk("Softmax", {F32({2, 1, 2}, {0, 0, 5, 5})}),
                     F32({2, 1, 2}, {.5, .5, .5, .5}));
  EXPECT_TENSOR_EQ(RunOpOk("Softmax", {F32({4, 1}, {1, -7, 100, 0})}), F32({4, 1}, {1, 1, 1, 1}));
}

TEST(LogSoftmax, RowsOfTheLastDim) {
  EXPECT_TENSOR_NEAR(RunOpOk("LogSoftmax", {F32({2, 3}, {1, 2, 3, 11, 12, 13})}),
                     F32({2, 3}, {kL1, kL2, kL3, kL1, kL2, kL3}));
  EXPECT_TENSOR_NEAR(RunOpOk("LogSoftmax", {F64({1, 3}, {1, 2, 3})}), F64({1, 3}, {kL1, kL2, kL3}),
                     1e-12, 1e-12);
}

TEST(Softmax, LargeLogitsStayFinite) {
  EXPECT_TENSOR_NEAR(RunOpOk("Softmax", {F32({1, 3}, {1000, 1001, 1002})}),
                     F32({1, 3}, {kS1, kS2, kS3}));
  EXPECT_TENSOR_NEAR(RunOpOk("LogSoftmax", {F32({1, 3}, {1000, 1001, 1002})}),
                     F32({1, 3}, {kL1, kL2, kL3}));
  EXPECT_TENSOR_NEAR(RunOpOk("Softmax", {F64({2}, {1000, -1000})}), F64({2}, {1, 0}));
  EXPECT_TENSOR_NEAR(RunOpOk("LogSoftmax", {F64({2}, {1000, -1000})}), F64({2}, {0, -2000}));
  EXPECT_TENSOR_NEAR(RunOpOk("LogSoftmax", {F32({2}, {-1000, -1000})}),
                     F32({2}, {-std::log(2.f), -std::log(2.f)}));
}

TEST(Softmax, ManyRows) {
  // 4096 rows of [0, log 3]: softmax = [1/4, 3/4] everywhere (parallel over rows).
  Tensor x(DType::kFloat, TensorShape({4096, 2}));
  for (int i = 0; i < 4096; ++i) {
    x.data<float>()[2 * i] = static_cast<float>(i % 7);
    x.data<float>()[2 * i + 1] = static_cast<float>(i % 7) + std::log(3.f);
  }
  Tensor y = RunOpOk("Softmax", {x});
  for (int i = 0; i < 4096; ++i) {
    ASSERT_NEAR(y.data<float>()[2 * i], 0.25f, 1e-6) << i;
    ASSERT_NEAR(y.data<float>()[2 * i + 1], 0.75f, 1e-6) << i;
  }
}

TEST(Softmax, ZeroSizeAndErrors) {
  EXPECT_TENSOR_EQ(RunOpOk("Softmax", {F32({0, 3}, {})}), F32({0, 3}, {}));
  EXPECT_TENSOR_EQ(RunOpOk("LogSoftmax", {F64({2, 0}, {})}), F64({2, 0}, {}));
  EXPECT_STATUS(RunOp("Softmax", {F32({}, {1})}).status(), absl::StatusCode::kInvalidArgument,
                "logits must have rank at least 1, got a scalar");
  EXPECT_STATUS(RunOpFed("LogSoftmax", {F32({}, {1})}).status(), absl::StatusCode::kInvalidArgument,
                "logits must have rank at least 1, got a scalar");
  // Integers are not allowed by the schema.
  EXPECT_FALSE(RunOp("Softmax", {I32({2}, {1, 2})}).ok());
}

// Row 0: one-hot on the last class; row 1: huge equal logits, labels split over two classes.
TEST(SoftmaxCrossEntropyWithLogits, LossAndBackprop) {
  for (DType dt : {DType::kFloat, DType::kDouble}) {
    auto make = [&](std::initializer_list<int64_t> shape, std::vector<double> v) {
      return dt == DType::kFloat ? F32(shape, std::vector<float>(v.begin(), v.end()))
                                 : F64(shape, v);
    };
    auto out = RunOp("SoftmaxCrossEntropyWithLogits", {make({2, 3}, {1, 2, 3, 1000, 1000, 1000}),
                                                       make({2, 3}, {0, 0, 1, 0.5, 0.5, 0})});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    EXPECT_TENSOR_NEAR((*out)[0], make({2}, {-kL3, std::log(3.0)}));
    EXPECT_TENSOR_NEAR((*out)[1],
                       make({2, 3}, {kS1, kS2, kS3 - 1, 1.0 / 3 - 0.5, 1.0 / 3 - 0.5, 1.0 / 3}));
  }
}

TEST(SoftmaxCrossEntropyWithLogits, ZeroSizeAndShapes) {
  auto out = RunOp("SoftmaxCrossEntropyWithLogits", {F32({2, 0}, {}), F32({2, 0}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TENSOR_EQ((*out)[0], F32({2}, {0, 0}));
  EXPECT_TENSOR_EQ((*out)[1], F32({2, 0}, {}));
  out = RunOp("SoftmaxCrossEntropyWithLogits", {F32({0, 4}, {}), F32({0, 4}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TENSOR_EQ((*out)[0], F32({0}, {}));
  auto s = InferShape("SoftmaxCrossEntropyWithLogits",
                      {OpInput(DType::kFloat, PartialShape({-1, 5})),
                       OpInput(DType::kFloat, PartialShape({8, -1}))},
                      {}, 1);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({8, 5}));
}

TEST(SoftmaxCrossEntropyWithLogits, Errors) {
  Tensor f = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_STATUS(RunOp("SoftmaxCrossEntropyWithLogits", {f, F32({2, 2}, {1, 0, 0, 1})}).status(),
                absl::StatusCode::kInvalidArgument,
                "logits and labels must be the same size: logits_size=[2,3] labels_size=[2,2]");
  EXPECT_STATUS(
      RunOpFed("SoftmaxCrossEntropyWithLogits", {f, F32({3, 2}, {1, 0, 0, 1, 0, 0})}).status(),
      absl::StatusCode::kInvalidArgument,
      "logits and labels must be the same size: logits_size=[2,3] labels_size=[3,2]");
  EXPECT_STATUS(
      RunOp("SoftmaxCrossEntropyWithLogits", {F32({3}, {1, 2, 3}), F32({3}, {0, 0, 1})}).status(),
      absl::StatusCode::kInvalidArgument, "features must be 2-dimensional, got shape [3]");
  EXPECT_STATUS(
      RunOpFed("SoftmaxCrossEntropyWithLogits", {f, F32({1, 2, 3}, {0, 0, 1, 0, 0, 1})}).status(),
      absl::StatusCode::kInvalidArgument, "labels must be 2-dimensional, got shape [1,2,3]");
}

// --- BiasAdd / BiasAddGrad ----------------------------------------------------------------

TEST(BiasAdd, AddsAlongTheLastDim) {
  EXPECT_TENSOR_EQ(RunOpOk("BiasAdd", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({3}, {10, 20, 30})}),
                   F32({2, 3}, {11, 22, 33, 14, 25, 36}));
  EXPECT_TENSOR_EQ(RunOpOk("BiasAdd", {I32({2, 1, 2}, {1, 2, 3, 4}), I32({2}, {-1, 1})}),
                   I32({2, 1, 2}, {0, 3, 2, 5}));
  EXPECT_TENSOR_EQ(RunOpOk("BiasAddV1", {I64({1, 2}, {1, 2}), I64({2}, {5, 5})}),
                   I64({1, 2}, {6, 7}));
  EXPECT_TENSOR_EQ(RunOpOk("BiasAdd", {F64({0, 2}, {}), F64({2}, {1, 2})}), F64({0, 2}, {}));
}

TEST(BiasAdd, Nchw) {
  // [N=1, C=2, H=1, W=2]: channel c gets bias[c].
  AttrMap nchw = {{"data_format", MakeAttr("NCHW")}};
  EXPECT_TENSOR_EQ(RunOpOk("BiasAdd", {F32({1, 2, 1, 2}, {1, 2, 3, 4}), F32({2}, {10, 20})}, nchw),
                   F32({1, 2, 1, 2}, {11, 12, 23, 24}));
  auto g = RunOpOk("BiasAddGrad", {F32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}, nchw);
  EXPECT_TENSOR_EQ(g, F32({2}, {1 + 2 + 5 + 6, 3 + 4 + 7 + 8}));
}

TEST(BiasAdd, Errors) {
  EXPECT_STATUS(RunOp("BiasAdd", {F32({3}, {1, 2, 3}), F32({3}, {1, 2, 3})}).status(),
                absl::StatusCode::kInvalidArgument, "Input tensor must be at least 2D: [3]");
  EXPECT_STATUS(RunOpFed("BiasAdd", {F32({3}, {1, 2, 3}), F32({3}, {1, 2, 3})}).status(),
                absl::StatusCode::kInvalidArgument, "Input tensor must be at least 2D: [3]");
  EXPECT_STATUS(RunOpFed("BiasAdd", {F32({1, 2}, {1, 2}), F32({1, 2}, {1, 2})}).status(),
                absl::StatusCode::kInvalidArgument, "Biases must be 1D: [1,2]");
  EXPECT_STATUS(
      RunOp("BiasAdd", {F32({1, 2}, {1, 2}), F32({3}, {1, 2, 3})}).status(),
      absl::StatusCode::kInvalidArgument,
      "Must provide as many biases as the channel dimension of the input tensor: [3] vs. [1,2]");
  EXPECT_STATUS(
      RunOpFed("BiasAdd", {F32({1, 2}, {1, 2}), F32({3}, {1, 2, 3})}).status(),
      absl::StatusCode::kInvalidArgument,
      "Must provide as many biases as the channel dimension of the input tensor: [3] vs. [1,2]");
  EXPECT_STATUS(
      RunOp("BiasAdd", {F32({1, 2}, {1, 2}), F32({2}, {1, 2})}, {{"data_format", MakeAttr("NCWH")}})
          .status(),
      absl::StatusCode::kInvalidArgument, "data_format must be NHWC or NCHW, got NCWH");
  EXPECT_STATUS(RunOpFed("BiasAddGrad", {F32({2}, {1, 2})}).status(),
                absl::StatusCode::kInvalidArgument, "Input tensor must be at least 2D: [2]");
}

TEST(BiasAddGrad, SumsAllButTheChannelDim) {
  EXPECT_TENSOR_EQ(RunOpOk("BiasAddGrad", {F32({2, 3}, {1, 2, 3, 4, 5, 6})}), F32({3}, {5, 7, 9}));
  EXPECT_TENSOR_EQ(RunOpOk("BiasAddGrad", {I64({2, 2, 1}, {1, 2, 3, 4})}), I64({1}, {10}));
  EXPECT_TENSOR_EQ(RunOpOk("BiasAddGrad", {I32({0, 3}, {})}), I32({3}, {0, 0, 0}));
  // Many rows: summed in parallel chunks.
  Tensor ones(DType::kDouble, TensorShape({100000, 3}));
  std::fill(ones.data<double>(), ones.data<double>() + ones.NumElements(), 1.0);
  EXPECT_TENSOR_EQ(RunOpOk("BiasAddGrad", {ones}), F64({3}, {100000, 100000, 100000}));
  auto s = InferShape("BiasAddGrad", {OpInput(DType::kFloat, PartialShape({-1, -1, 7}))});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({7}));
}

}  // namespace
}  // namespace tw
