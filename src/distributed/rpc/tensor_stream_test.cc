#include "distributed/rpc/tensor_stream.h"

#include <gtest/gtest.h>

#include <deque>

#include "testing/test_util.h"

namespace tw {
namespace {

// A stream in memory: what the writer writes, the reader reads.
class MemoryStream : public grpc::internal::WriterInterface<RecvTensorChunk>,
                     public grpc::internal::ReaderInterface<RecvTensorChunk> {
 public:
  bool Write(const RecvTensorChunk& msg, grpc::WriteOptions) override {
    chunks.push_back(msg);
    return true;
  }
  bool NextMessageSize(uint32_t* sz) override {
    *sz = chunks.empty() ? 0 : static_cast<uint32_t>(chunks.front().ByteSizeLong());
    return !chunks.empty();
  }
  bool Read(RecvTensorChunk* msg) override {
    if (chunks.empty()) return false;
    *msg = std::move(chunks.front());
    chunks.pop_front();
    return true;
  }
  std::deque<RecvTensorChunk> chunks;
};

TEST(TensorStreamTest, LargeTensorsCrossInOneMiBChunks) {
  Tensor t(DType::kFloat, TensorShape({3 << 18}));  // 3 MiB.
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()[i] = static_cast<float>(i);
  MemoryStream stream;
  ASSERT_TRUE(WriteTensorChunks(t, &stream).ok());
  EXPECT_EQ(stream.chunks.size(), 3u);
  Tensor out;
  bool ended;
  ASSERT_TRUE(ReadTensorChunks(&stream, &out, &ended).ok());
  EXPECT_TRUE(out.Equals(t));
}

TEST(TensorStreamTest, SmallEmptyBoolAndResourceTensors) {
  for (const Tensor& t : {testing::I64({2}, {7, -7}), testing::F32({0, 3}, {}), testing::Bool({3}, {true, false, true}),
                          Tensor::Resource(ResourceHandle{"/cpu:0", "c", "w"})}) {
    MemoryStream stream;
    ASSERT_TRUE(WriteTensorChunks(t, &stream).ok());
    EXPECT_EQ(stream.chunks.size(), 1u);
    Tensor out;
    bool ended;
    ASSERT_TRUE(ReadTensorChunks(&stream, &out, &ended).ok()) << t.DebugString();
    EXPECT_TRUE(out.Equals(t)) << t.DebugString();
  }
}

TEST(TensorStreamTest, TruncatedOversizedAndHeaderlessStreamsAreDataLoss) {
  Tensor t(DType::kDouble, TensorShape({1 << 18}));  // 2 MiB: two chunks.
  MemoryStream truncated;
  ASSERT_TRUE(WriteTensorChunks(t, &truncated).ok());
  truncated.chunks.pop_back();
  Tensor out;
  bool ended;
  EXPECT_STATUS(ReadTensorChunks(&truncated, &out, &ended), absl::StatusCode::kDataLoss, "ended after 1048576 of 2097152");
  EXPECT_TRUE(ended);

  MemoryStream oversized;
  ASSERT_TRUE(WriteTensorChunks(testing::F32({2}, {1, 2}), &oversized).ok());
  oversized.chunks.front().mutable_data()->append("extra");
  EXPECT_STATUS(ReadTensorChunks(&oversized, &out, &ended), absl::StatusCode::kDataLoss, "more than the 8 bytes");

  MemoryStream headerless;
  headerless.chunks.emplace_back().set_data("abc");
  EXPECT_STATUS(ReadTensorChunks(&headerless, &out, &ended), absl::StatusCode::kDataLoss, "does not start with a header");

  MemoryStream huge;
  RecvTensorChunk& c = huge.chunks.emplace_back();
  c.mutable_meta()->set_dtype(DT_FLOAT);
  c.mutable_meta()->mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 50);
  EXPECT_STATUS(ReadTensorChunks(&huge, &out, &ended), absl::StatusCode::kResourceExhausted, "more than");
}

}  // namespace
}  // namespace tw
