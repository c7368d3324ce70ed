// String tensors: elements are std::string objects, so copies must be deep and element
// by element (a memcpy of a std::string would make two strings free one block; ASan
// runs these too).
#include <gtest/gtest.h>

#include <string>

#include "tensor/tensor_proto.h"
#include "tensorweave/tensor.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::Str;

// Longer than any small-string buffer, so each element owns heap memory.
const std::string kLong(100, 'x');

TEST(StringTensorTest, DTypeNames) {
  EXPECT_EQ(DTypeName(DType::kString), "string");
  EXPECT_EQ(*DTypeFromName("string"), DType::kString);
  EXPECT_EQ(*DTypeFromName("DT_STRING"), DType::kString);
  EXPECT_EQ(static_cast<int>(DType::kString), 7);  // TensorFlow's DT_STRING.
  EXPECT_TRUE(IsValidDType(7));
  EXPECT_FALSE(IsNumeric(DType::kString));
  EXPECT_FALSE(IsPodDType(DType::kString));
  EXPECT_TRUE(IsPodDType(DType::kFloat));
  EXPECT_EQ(DTypeOf<std::string>::value, DType::kString);
}

TEST(StringTensorTest, NewTensorsHoldEmptyStrings) {
  Tensor t(DType::kString, TensorShape({2, 3}));
  for (const std::string& s : t.flat<std::string>()) EXPECT_EQ(s, "");
  auto big = Tensor::Allocate(DType::kString, TensorShape({0, 5}));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->NumElements(), 0);
}

TEST(StringTensorTest, CopyIsDeepAndSharingIsShallow) {
  Tensor a = Str({2}, {kLong, "b"});
  Tensor shared = a;
  Tensor copy = a.Copy();
  EXPECT_TRUE(shared.SharesBufferWith(a));
  EXPECT_FALSE(copy.SharesBufferWith(a));
  a.flat<std::string>()[0] = "changed";
  EXPECT_EQ(shared.flat<std::string>()[0], "changed");
  EXPECT_EQ(copy.flat<std::string>()[0], kLong);
  EXPECT_TRUE(copy.Equals(Str({2}, {kLong, "b"})));
  EXPECT_FALSE(copy.Equals(Str({2}, {kLong, "c"})));
  EXPECT_FALSE(copy.Equals(Str({1, 2}, {kLong, "b"})));
  // The copy outlives the original's buffer.
  a = Tensor();
  shared = Tensor();
  EXPECT_EQ(copy.flat<std::string>()[0], kLong);
}

TEST(StringTensorTest, ReshapedSharesTheStrings) {
  Tensor a = Str({2, 2}, {"a", "b", "c", kLong});
  auto r = a.Reshaped(TensorShape({4}));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->SharesBufferWith(a));
  EXPECT_EQ(r->flat<std::string>()[3], kLong);
}

TEST(StringTensorTest, DebugStringQuotesAndEscapes) {
  Tensor t = Str({2, 2}, {"a", "b c", std::string("\0\xff", 2), "\"q\"\n"});
  EXPECT_EQ(t.DebugString(), "string [2,2] [[\"a\" \"b c\"] [\"\\000\\377\" \"\\\"q\\\"\\n\"]]");
  EXPECT_EQ(Tensor::Scalar(std::string("hi")).DebugString(), "string [] \"hi\"");
  EXPECT_EQ(Str({3}, {"a", "b", "c"}).ValueString(2), "[\"a\" \"b\"...]");
}

TEST(StringTensorTest, ProtoRoundTripUsesStringVal) {
  Tensor t = Str({3}, {"", std::string("\0bin\xff", 5), kLong});
  TensorProto p = TensorToProto(t);
  EXPECT_EQ(p.dtype(), DT_STRING);
  ASSERT_EQ(p.string_val_size(), 3);  // As TensorFlow writes string tensors.
  EXPECT_EQ(p.string_val(1), std::string("\0bin\xff", 5));
  EXPECT_TRUE(p.tensor_content().empty());
  auto back = TensorFromProto(p);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TENSOR_EQ(*back, t);
}

TEST(StringTensorTest, ProtoStringValRepeatsTheLastValueAsTensorFlow) {
  TensorProto p;
  p.set_dtype(DT_STRING);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  p.add_string_val("a");
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TENSOR_EQ(*t, Str({3}, {"a", "a", "a"}));
  p.clear_string_val();
  t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_TENSOR_EQ(*t, Str({3}, {"", "", ""}));
  for (int i = 0; i < 4; ++i) p.add_string_val("x");
  EXPECT_STATUS(TensorFromProto(p).status(), absl::StatusCode::kInvalidArgument, "has 4 values for shape [3]");
}

TEST(StringTensorTest, ProtoTensorContentInTensorFlowsEncoding) {
  // TensorFlow's AsProtoTensorContent: the varint lengths, then the bytes.
  TensorProto p;
  p.set_dtype(DT_STRING);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  std::string content;
  content.push_back(2);
  content += "\x80\x01";  // 128 as a varint.
  content.push_back(0);
  content += "ab" + std::string(128, 'z');
  p.set_tensor_content(content);
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TENSOR_EQ(*t, Str({3}, {"ab", std::string(128, 'z'), ""}));

  p.set_tensor_content(content.substr(0, content.size() - 1));
  EXPECT_STATUS(TensorFromProto(p).status(), absl::StatusCode::kInvalidArgument, "too short for element 1");
  p.set_tensor_content(content + "!");
  EXPECT_STATUS(TensorFromProto(p).status(), absl::StatusCode::kInvalidArgument, "1 bytes after the last element");
  p.set_tensor_content("\x02");
  EXPECT_STATUS(TensorFromProto(p).status(), absl::StatusCode::kInvalidArgument, "length of element 1");
  p.set_tensor_content(std::string("\xff\xff\xff\xff\xff\xff", 6));
  EXPECT_STATUS(TensorFromProto(p).status(), absl::StatusCode::kInvalidArgument, "length of element 0");
}

}  // namespace
}  // namespace tw
