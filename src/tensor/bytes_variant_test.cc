#include "tensor/bytes_variant.h"

#include <gtest/gtest.h>

#include <memory>

#include "tensor/tensor_proto.h"

namespace tw {
namespace {

// Serialized bytes in a variant round-trip through a TensorProto (how they cross tasks
// and reach a checkpoint); a live object (a dataset) does not, and decoding says why.
TEST(BytesVariantTest, ProtoRoundTripKeepsTheBytes) {
  const std::string bytes("state\0with a nul", 16);
  TensorProto proto = TensorToProto(BytesVariant(bytes));
  EXPECT_EQ(proto.dtype(), DTypeToProto(DType::kVariant));
  ASSERT_EQ(proto.string_val_size(), 1);
  absl::StatusOr<Tensor> back = TensorFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_NE(BytesOfVariant(*back), nullptr);
  EXPECT_EQ(*BytesOfVariant(*back), bytes);
}

TEST(BytesVariantTest, OtherVariantsStayWhereTheyAre) {
  auto object = std::make_shared<const int>(7);
  Tensor live = Tensor::Variant(VariantValue{"tensorweave.Dataset", object});
  EXPECT_EQ(BytesOfVariant(live), nullptr);
  TensorProto proto = TensorToProto(live);
  EXPECT_EQ(proto.string_val_size(), 0);
  absl::StatusOr<Tensor> back = TensorFromProto(proto);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(back.status().message().find("carries no serialized value"), std::string::npos) << back.status();
  EXPECT_NE(back.status().message().find("datasets stay on their task"), std::string::npos) << back.status();
}

}  // namespace
}  // namespace tw
