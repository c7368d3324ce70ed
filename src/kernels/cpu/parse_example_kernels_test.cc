// ParseExample, ParseExampleV2 and ParseSingleExample on Examples built here: dense
// features with and without defaults, variable-length dense, VarLen as sparse triples,
// inferred shapes, and TensorFlow's messages for bad inputs (the Python oracle test
// checks the same against TensorFlow itself).
#include <gtest/gtest.h>

#include <string>

#include "tensorweave/proto/example.pb.h"
#include "core/proto_namespace.h"
#include "testing/op_test_util.h"

namespace tw {
namespace {

using testing::Str;

std::string MakeExample(const std::vector<std::pair<std::string, std::vector<float>>>& floats,
                        const std::vector<std::pair<std::string, std::vector<int64_t>>>& ints = {},
                        const std::vector<std::pair<std::string, std::vector<std::string>>>& bytes = {}) {
  Example ex;
  auto* map = ex.mutable_features()->mutable_feature();
  for (const auto& [k, v] : floats) {
    for (float x : v) (*map)[k].mutable_float_list()->add_value(x);
    (*map)[k].mutable_float_list();
  }
  for (const auto& [k, v] : ints) {
    for (int64_t x : v) (*map)[k].mutable_int64_list()->add_value(x);
    (*map)[k].mutable_int64_list();
  }
  for (const auto& [k, v] : bytes) {
    for (const std::string& x : v) (*map)[k].mutable_bytes_list()->add_value(x);
    (*map)[k].mutable_bytes_list();
  }
  return ex.SerializeAsString();
}

// ParseExample (v1) attrs for these features.
AttrMap V1Attrs(std::vector<DType> sparse_types, std::vector<DType> dense_types, std::vector<PartialShape> shapes) {
  return {{"Nsparse", MakeAttr(static_cast<int64_t>(sparse_types.size()))},
          {"Ndense", MakeAttr(static_cast<int64_t>(dense_types.size()))},
          {"sparse_types", MakeAttr(absl::Span<const DType>(sparse_types))},
          {"Tdense", MakeAttr(absl::Span<const DType>(dense_types))},
          {"dense_shapes", MakeAttr(absl::Span<const PartialShape>(shapes))}};
}

Tensor S(const std::string& s) { return Tensor::Scalar<std::string>(s); }

TEST(ParseExampleKernels, DenseSparseAndSequenceInABatch) {
  const std::string e0 = MakeExample({{"x", {1, 2}}, {"seq", {1, 2, 3, 4}}}, {{"ids", {7, 8, 9}}});
  const std::string e1 = MakeExample({{"x", {3, 4}}, {"w", {0.5}}}, {{"ids", {}}}, {{"unused", {"z"}}});
  // Inputs: serialized, names, sparse_keys (ids), dense_keys (x, w, seq), defaults.
  std::vector<Tensor> inputs = {Str({2}, {e0, e1}), Str({0}, {}), S("ids"), S("x"), S("w"), S("seq"),
                                F32({0}, {}), F32({}, {-1}), F32({}, {9})};
  auto out = RunBoth("ParseExample", inputs,
                     V1Attrs({DType::kInt64}, {DType::kFloat, DType::kFloat, DType::kFloat},
                             {PartialShape({2}), PartialShape({}), PartialShape({-1, 2})}));
  ASSERT_EQ(out.size(), 6u);
  EXPECT_TENSOR_EQ(out[0], I64({3, 2}, {0, 0, 0, 1, 0, 2}));
  EXPECT_TENSOR_EQ(out[1], I64({3}, {7, 8, 9}));
  EXPECT_TENSOR_EQ(out[2], I64({2}, {2, 3}));
  EXPECT_TENSOR_EQ(out[3], F32({2, 2}, {1, 2, 3, 4}));
  EXPECT_TENSOR_EQ(out[4], F32({2}, {-1, 0.5}));  // e0 takes w's default
  EXPECT_TENSOR_EQ(out[5], F32({2, 2, 2}, {1, 2, 3, 4, 9, 9, 9, 9}));  // e1 padded with 9

  auto shapes = InferShapes("ParseExample", {OpInput(DType::kString, PartialShape({-1})), inputs[1], inputs[2],
                                             inputs[3], inputs[4], inputs[5], inputs[6], inputs[7], inputs[8]},
                            V1Attrs({DType::kInt64}, {DType::kFloat, DType::kFloat, DType::kFloat},
                                    {PartialShape({2}), PartialShape({}), PartialShape({-1, 2})}));
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0], PartialShape({-1, 2}));
  EXPECT_EQ((*shapes)[2], PartialShape({2}));
  EXPECT_EQ((*shapes)[3], PartialShape({-1, 2}));
  EXPECT_EQ((*shapes)[5], PartialShape({-1, -1, 2}));
}

TEST(ParseExampleKernels, SingleExampleHasNoBatchDimension) {
  const std::string e = MakeExample({}, {}, {{"words", {"a", std::string(40, 'b')}}, {"s", {"one"}}});
  AttrMap attrs = {{"num_sparse", MakeAttr(int64_t{1})},
                   {"sparse_keys", MakeAttr(absl::Span<const std::string>(std::vector<std::string>{"words"}))},
                   {"dense_keys", MakeAttr(absl::Span<const std::string>(std::vector<std::string>{"s", "t"}))},
                   {"sparse_types", MakeAttr(absl::Span<const DType>(std::vector<DType>{DType::kString}))},
                   {"Tdense", MakeAttr(absl::Span<const DType>(std::vector<DType>{DType::kString, DType::kString}))},
                   {"dense_shapes", MakeAttr(absl::Span<const PartialShape>(
                                        std::vector<PartialShape>{PartialShape({}), PartialShape({1})}))}};
  auto out = RunBoth("ParseSingleExample", {S(e), Str({0}, {}), Str({1}, {"dflt"})}, attrs);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_TENSOR_EQ(out[0], I64({2, 1}, {0, 1}));
  EXPECT_TENSOR_EQ(out[1], Str({2}, {"a", std::string(40, 'b')}));
  EXPECT_TENSOR_EQ(out[2], I64({1}, {2}));
  EXPECT_TENSOR_EQ(out[3], Str({}, {"one"}));
  EXPECT_TENSOR_EQ(out[4], Str({1}, {"dflt"}));
}

TEST(ParseExampleKernels, V2TakesKeysAsVectorsAndScalarInput) {
  const std::string e = MakeExample({{"x", {5}}}, {{"n", {1, 2}}});
  AttrMap attrs = {{"num_sparse", MakeAttr(int64_t{1})},
                   {"sparse_types", MakeAttr(absl::Span<const DType>(std::vector<DType>{DType::kInt64}))},
                   {"Tdense", MakeAttr(absl::Span<const DType>(std::vector<DType>{DType::kFloat}))},
                   {"dense_shapes", MakeAttr(absl::Span<const PartialShape>(std::vector<PartialShape>{PartialShape({})}))},
                   {"ragged_value_types", IntList({})},
                   {"ragged_split_types", IntList({})}};
  auto batch = RunBoth("ParseExampleV2", {Str({1}, {e}), Str({0}, {}), Str({1}, {"n"}), Str({1}, {"x"}), Str({0}, {}),
                                          F32({0}, {})},
                       attrs);
  ASSERT_EQ(batch.size(), 4u);
  EXPECT_TENSOR_EQ(batch[0], I64({2, 2}, {0, 0, 0, 1}));
  EXPECT_TENSOR_EQ(batch[3], F32({1}, {5}));
  auto single = RunBoth("ParseExampleV2", {S(e), Str({0}, {}), Str({1}, {"n"}), Str({1}, {"x"}), Str({0}, {}),
                                           F32({0}, {})},
                        attrs);
  ASSERT_EQ(single.size(), 4u);
  EXPECT_TENSOR_EQ(single[0], I64({2, 1}, {0, 1}));
  EXPECT_TENSOR_EQ(single[3], F32({}, {5}));
}

TEST(ParseExampleKernels, ErrorsNameTheFeatureAsTensorFlow) {
  const AttrMap dense_x = V1Attrs({}, {DType::kFloat}, {PartialShape({2})});
  const std::string good = MakeExample({{"x", {1, 2}}});
  EXPECT_TRUE(FailsFed("ParseExample", {Str({2}, {good, MakeExample({{"y", {1}}})}), Str({2}, {"a", "b"}), S("x"),
                                        F32({0}, {})},
                       dense_x, "Name: b, Feature: x (data type: float) is required but could not be found."));
  EXPECT_TRUE(FailsFed("ParseExample", {Str({1}, {MakeExample({{"x", {1, 2, 3}}})}), Str({0}, {}), S("x"), F32({0}, {})},
                       dense_x,
                       "Name: <unknown>, Key: x, Index: 0.  Number of float values != expected.  Values size: 3 but "
                       "output shape: [2]"));
  EXPECT_TRUE(FailsFed("ParseExample", {Str({1}, {MakeExample({}, {{"x", {1, 2}}})}), Str({0}, {}), S("x"),
                                        F32({0}, {})},
                       dense_x, "Data types don't match. Data type: int64 but expected type: float"));
  EXPECT_TRUE(FailsFed("ParseExample", {Str({2}, {good, std::string("\x0a\x05" "abc", 5)}), Str({0}, {}), S("x"),
                                        F32({0}, {})},
                       dense_x, "Could not parse example input, value: '"));
  // A default that is neither empty nor the feature's shape is the caller's error.
  EXPECT_TRUE(FailsFed("ParseExample", {Str({1}, {good}), Str({0}, {}), S("x"), F32({3}, {1, 2, 3})}, dense_x,
                       "dense_defaults for x has 3 elements"));
  EXPECT_TRUE(FailsFed("ParseExample", {Str({1, 1}, {good}), Str({0}, {}), S("x"), F32({0}, {})}, dense_x,
                       "Expected serialized to be a vector, got shape: [1,1]"));
}

}  // namespace
}  // namespace tw
