#include "distributed/rpc/tensor_wire.h"

#include <gtest/gtest.h>

#include <map>

#include "tensorweave/proto/worker.pb.h"
#include "core/proto_namespace.h"
#include "testing/test_util.h"

namespace tw {
namespace {

// Every message the writer produces, flattened.
std::vector<std::string> Encode(const Tensor& t, int key_index = -1) {
  std::vector<std::string> messages;
  TensorChunkWriter writer(t, key_index);
  grpc::ByteBuffer buffer;
  while (writer.Next(&buffer)) {
    grpc::Slice flat;
    EXPECT_TRUE(buffer.DumpToSingleSlice(&flat).ok());
    messages.emplace_back(reinterpret_cast<const char*>(flat.begin()), flat.size());
  }
  EXPECT_TRUE(writer.done());
  return messages;
}

// Reads messages, each split into pieces of `piece` bytes (gRPC may split anywhere).
absl::StatusOr<Tensor> Decode(const std::vector<std::string>& messages, size_t piece = SIZE_MAX) {
  TensorChunkReader reader;
  for (const std::string& m : messages) {
    std::vector<absl::string_view> pieces;
    for (size_t at = 0; at < m.size(); at += std::min(piece, m.size() - at)) {
      pieces.push_back(absl::string_view(m).substr(at, piece));
    }
    TW_RETURN_IF_ERROR(reader.Add(pieces));
  }
  return reader.Finish();
}

absl::Status DecodeError(const std::vector<std::string>& messages) { return Decode(messages).status(); }

TEST(TensorWireTest, LargeTensorsCrossInOneMiBMessagesWithoutCopiesOnTheWay) {
  Tensor t(DType::kFloat, TensorShape({3 << 18}));  // 3 MiB.
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()[i] = static_cast<float>(i);
  std::vector<std::string> messages = Encode(t);
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_LT(messages[1].size(), kTensorChunkBytes + 8);
  auto out = Decode(messages);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->Equals(t));

  // The data slice of a message references the tensor's own buffer.
  TensorChunkWriter writer(t);
  grpc::ByteBuffer buffer;
  ASSERT_TRUE(writer.Next(&buffer));
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(buffer.Dump(&slices).ok());
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(static_cast<const void*>(slices[1].begin()), t.raw_data());
}

// In a RecvTensors stream each tensor's first message names its key index; a reader
// tells when its tensor is complete.
TEST(TensorWireTest, KeyIndexTravelsWithTheFirstMessage) {
  Tensor t(DType::kInt32, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) t.flat<int32_t>()[i] = i * 7;
  std::vector<std::string> messages = Encode(t, 300);  // A two-byte varint.
  ASSERT_EQ(messages.size(), 1u);
  RecvTensorChunk parsed;  // Still a well-formed RecvTensorChunk.
  ASSERT_TRUE(parsed.ParseFromString(messages[0]));
  EXPECT_EQ(parsed.key_index(), 300);
  TensorChunkReader reader;
  EXPECT_FALSE(reader.complete());
  ASSERT_TRUE(reader.Add({absl::string_view(messages[0]).substr(0, 2), absl::string_view(messages[0]).substr(2)}).ok());
  EXPECT_TRUE(reader.complete());
  EXPECT_EQ(reader.key_index(), 300);
  auto out = reader.Finish();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->Equals(t));
  EXPECT_EQ(Encode(t)[0].size() + 3, messages[0].size());  // Without an index: no field 3.

  // The index comes once, before the header.
  std::string index = messages[0].substr(0, 3);
  EXPECT_STATUS(DecodeError({messages[0] + index}), absl::StatusCode::kDataLoss, "key index other than before its header");
  EXPECT_STATUS(DecodeError({index + messages[0]}), absl::StatusCode::kDataLoss, "key index other than before its header");
  EXPECT_STATUS(DecodeError({std::string("\x18\xff\xff\xff\xff\x0f")}), absl::StatusCode::kDataLoss,
                "key index 4294967295 is too large");
  EXPECT_STATUS(DecodeError({std::string("\x18\xff")}), absl::StatusCode::kDataLoss, "truncated key index");
}

// A RecvTensors stream: tensors one after the other in any key order, each handed over
// once whole; a stream that breaks the rules is DataLoss.
TEST(TensorWireTest, StreamReaderHandsOverEachTensorOnce) {
  Tensor big(DType::kFloat, TensorShape({(3 << 18) / 2}));  // 1.5 MiB: two messages.
  for (int64_t i = 0; i < big.NumElements(); ++i) big.flat<float>()[i] = static_cast<float>(i % 1000);
  Tensor small = Tensor::Scalar<int64_t>(-5);
  std::vector<std::string> stream = Encode(big, 1);
  ASSERT_EQ(stream.size(), 2u);
  stream.push_back(Encode(small, 0)[0]);
  std::map<int, Tensor> got;
  auto read = [&](const std::vector<std::string>& messages, int keys) {
    got.clear();
    TensorStreamReader reader(keys, ResourceLimits{}.max_tensor_bytes, [&](int i, const Tensor& t) {
      EXPECT_TRUE(got.emplace(i, t).second) << "key " << i << " handed over twice";
    });
    for (const std::string& m : messages) TW_RETURN_IF_ERROR(reader.Add({absl::string_view(m)}));
    return reader.Finish();
  };
  ASSERT_TRUE(read(stream, 2).ok());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(got[1].Equals(big));
  EXPECT_EQ(got[0].scalar<int64_t>(), -5);

  EXPECT_STATUS(read({stream[0]}, 2), absl::StatusCode::kDataLoss, "ended after 0 of 2 tensors and part of another");
  EXPECT_STATUS(read({stream[0], stream[1]}, 2), absl::StatusCode::kDataLoss, "ended after 1 of 2 tensors");
  EXPECT_STATUS(read(stream, 1), absl::StatusCode::kDataLoss, "names key index 1, not one of the 1 asked for");
  EXPECT_STATUS(read({stream[2], stream[2]}, 2), absl::StatusCode::kDataLoss, "sends key index 0 twice");
  EXPECT_STATUS(read(Encode(small), 1), absl::StatusCode::kDataLoss, "names key index -1");
  // A second header while a tensor is still missing bytes.
  EXPECT_STATUS(read({stream[0], stream[2]}, 2), absl::StatusCode::kDataLoss, "key index other than before its header");
}

TEST(TensorWireTest, MessagesSplitAnywhereStillDecode) {
  Tensor t = testing::F64({3, 2}, {1, -2, 3.5, 4, 5, 6e300});
  for (size_t piece : {1, 2, 3, 7, 50}) {
    auto out = Decode(Encode(t), piece);
    ASSERT_TRUE(out.ok()) << piece << ": " << out.status();
    EXPECT_TRUE(out->Equals(t));
  }
}

TEST(TensorWireTest, SmallEmptyBoolAndResourceTensorsAreOneMessage) {
  for (const Tensor& t : {testing::I64({2}, {7, -7}), testing::F32({0, 3}, {}), testing::Bool({3}, {true, false, true}),
                          Tensor::Resource(ResourceHandle{"/cpu:0", "c", "w"})}) {
    std::vector<std::string> messages = Encode(t);
    EXPECT_EQ(messages.size(), 1u) << t.DebugString();
    auto out = Decode(messages);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(out->Equals(t)) << t.DebugString();
  }
}

TEST(TensorWireTest, StringTensorsTravelWholeInTheHeader) {
  // Objects, not bytes: the strings themselves must cross, not their std::string structs.
  Tensor t = testing::Str({2, 2}, {"", std::string("\0\xff", 2), std::string(3 << 20, 'x'), "last"});
  std::vector<std::string> messages = Encode(t, 4);
  EXPECT_EQ(messages.size(), 1u);
  for (size_t piece : {size_t{7}, SIZE_MAX}) {
    auto out = Decode(messages, piece);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TENSOR_EQ(*out, t);
  }
  t = Tensor();  // The decoded copy must not depend on the sender's strings.
  auto again = Decode(messages);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->flat<std::string>()[3], "last");
}

TEST(TensorWireTest, ReadsWhatProtobufItselfSerializes) {
  RecvTensorChunk first, second;
  first.mutable_meta()->set_dtype(DT_INT32);
  first.mutable_meta()->mutable_tensor_shape()->add_dim()->set_size(3);
  const int32_t values[3] = {10, 20, 30};
  first.set_data(reinterpret_cast<const char*>(values), 4);
  second.set_data(reinterpret_cast<const char*>(values) + 4, 8);
  auto out = Decode({first.SerializeAsString(), second.SerializeAsString()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TENSOR_EQ(*out, testing::I32({3}, {10, 20, 30}));
}

TEST(TensorWireTest, NonzeroBoolBytesReadAsTrue) {
  RecvTensorChunk chunk;
  chunk.mutable_meta()->set_dtype(DT_BOOL);
  chunk.mutable_meta()->mutable_tensor_shape()->add_dim()->set_size(2);
  chunk.set_data(std::string("\x00\x07", 2));
  auto out = Decode({chunk.SerializeAsString()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TENSOR_EQ(*out, testing::Bool({2}, {false, true}));
}

TEST(TensorWireTest, MalformedStreamsAreDataLoss) {
  std::vector<std::string> two = Encode(Tensor(DType::kDouble, TensorShape({1 << 18})));  // 2 MiB.
  ASSERT_EQ(two.size(), 2u);
  EXPECT_STATUS(DecodeError({two[0]}), absl::StatusCode::kDataLoss, "ended after 1048576 of 2097152 bytes");
  EXPECT_STATUS(DecodeError({}), absl::StatusCode::kDataLoss, "ended before its header");
  EXPECT_STATUS(DecodeError({two[1]}), absl::StatusCode::kDataLoss, "does not start with a header");
  EXPECT_STATUS(DecodeError({two[0], two[0]}), absl::StatusCode::kDataLoss, "second header");
  EXPECT_STATUS(DecodeError({two[0], two[1], two[1]}), absl::StatusCode::kDataLoss, "more than the 2097152 bytes");
  EXPECT_STATUS(DecodeError({two[0].substr(0, 5)}), absl::StatusCode::kDataLoss, "truncated field");
  EXPECT_STATUS(DecodeError({std::string("\x1a\x01x", 3)}), absl::StatusCode::kDataLoss, "unknown field (tag 26)");
  EXPECT_STATUS(DecodeError({std::string("\x0a\x03xyz", 5)}), absl::StatusCode::kDataLoss, "header does not parse");
  EXPECT_STATUS(DecodeError({std::string(12, '\xff')}), absl::StatusCode::kDataLoss, "truncated field");

  RecvTensorChunk huge;
  huge.mutable_meta()->set_dtype(DT_FLOAT);
  huge.mutable_meta()->mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 50);
  EXPECT_STATUS(DecodeError({huge.SerializeAsString()}), absl::StatusCode::kResourceExhausted, "more than");
}

TEST(TensorWireTest, HeaderOverMaxBytesIsRefusedBeforeAllocating) {
  const Tensor t(DType::kInt32, TensorShape({300}));
  std::vector<std::string> messages = Encode(t);
  TensorChunkReader at_limit(1200), under(1199);
  EXPECT_TRUE(at_limit.Add({messages[0]}).ok());
  EXPECT_STATUS(under.Add({messages[0]}), absl::StatusCode::kResourceExhausted,
                "received tensor: int32 [300] tensor of 1200 bytes is over the max_tensor_bytes limit of 1199");
}

}  // namespace
}  // namespace tw
