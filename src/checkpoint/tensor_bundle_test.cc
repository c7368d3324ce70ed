// TensorFlow's V2 checkpoint format: round trips, the index read back independently as a
// LevelDB table with the bundle records, and every way a bundle can be refused.
#include "checkpoint/tensor_bundle.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/env.h"
#include "leveldb/table.h"
#include "tensorweave/proto/tensor_bundle.pb.h"
#include "core/proto_namespace.h"
#include "testing/test_util.h"
#include "testing/scratch_dir.h"

namespace tw::checkpoint {
namespace {

using testing::Bool;
using testing::F32;
using testing::F64;
using testing::I32;
using testing::I64;
using testing::ReadBytes;
using testing::ScratchDir;
using testing::WriteBytes;

std::vector<NamedTensor> SomeTensors() {
  return {{"zeta/w", F32({2, 3}, {1, -2, 3.5f, 0, -0.0f, 1e-40f})},
          {"alpha", F64({}, {2.5e-300})},
          {"ids", I32({3}, {-1, 2147483647, 0})},
          {"step", I64({}, {int64_t{1} << 40})},
          {"mask", Bool({2}, {true, false})},
          {"empty", F32({0, 4}, {})}};
}

TEST(TensorBundleTest, RoundTripsEveryDtypeAndListsEntriesByName) {
  ScratchDir dir;
  const std::string prefix = dir / "model-1";
  ASSERT_TRUE(WriteTensorBundle(prefix, SomeTensors()).ok());
  EXPECT_EQ(dir.List(), (std::vector<std::string>{"model-1.data-00000-of-00001", "model-1.index"}));
  EXPECT_TRUE(IsTensorBundle(prefix));
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::vector<std::string> names;
  for (const BundleEntryInfo& e : (*reader)->entries()) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"alpha", "empty", "ids", "mask", "step", "zeta/w"}));
  for (const NamedTensor& t : SomeTensors()) {
    auto got = (*reader)->Read(t.name);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TENSOR_EQ(*got, t.tensor) << t.name;
  }
  EXPECT_STATUS((*reader)->Read("nope").status(), absl::StatusCode::kNotFound,
                "checkpoint '" + prefix + "' has no tensor 'nope'");
}

TEST(TensorBundleTest, RoundTripsTheSmallDtypes) {
  ScratchDir dir;
  const std::string prefix = dir / "small";
  const std::vector<NamedTensor> tensors = {
      {"i8", testing::Make<int8_t>({3}, {-128, 0, 127})},
      {"u8", testing::Make<uint8_t>({2}, {0, 255})},
      {"i16", testing::Make<int16_t>({2}, {-32768, 32767})},
      {"u16", testing::Make<uint16_t>({1}, {65535})},
      {"f16", testing::Make<half>({3}, {half(-0.0f), half(65504.0f), half::FromBits(0x0001)})}};
  ASSERT_TRUE(WriteTensorBundle(prefix, tensors).ok());
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  for (const NamedTensor& t : tensors) {
    auto got = (*reader)->Read(t.name);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->dtype(), t.tensor.dtype()) << t.name;
    EXPECT_TRUE(got->Equals(t.tensor)) << t.name << ": " << got->DebugString();  // Bit-equal.
  }
}

// The index read with LevelDB's table reader and the bundle protos alone: TensorFlow's
// layout (header under "", then ascending names, offsets into one shard, masked CRCs).
TEST(TensorBundleTest, IndexIsALevelDbTableOfBundleRecords) {
  ScratchDir dir;
  const std::string prefix = dir / "m";
  ASSERT_TRUE(WriteTensorBundle(prefix, SomeTensors()).ok());
  leveldb::RandomAccessFile* file = nullptr;
  ASSERT_TRUE(leveldb::Env::Default()->NewRandomAccessFile(prefix + ".index", &file).ok());
  std::unique_ptr<leveldb::RandomAccessFile> owned_file(file);
  leveldb::Table* table = nullptr;
  const uint64_t size = std::filesystem::file_size(prefix + ".index");
  ASSERT_TRUE(leveldb::Table::Open(leveldb::Options(), file, size, &table).ok());
  std::unique_ptr<leveldb::Table> owned_table(table);
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(leveldb::ReadOptions()));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "");
  BundleHeaderProto header;
  ASSERT_TRUE(header.ParseFromString(it->value().ToString()));
  EXPECT_EQ(header.num_shards(), 1);
  EXPECT_EQ(header.endianness(), BundleHeaderProto::LITTLE);
  EXPECT_EQ(header.version().producer(), 1);
  int64_t total = 0;
  int count = 0;
  for (it->Next(); it->Valid(); it->Next(), ++count) {
    BundleEntryProto entry;
    ASSERT_TRUE(entry.ParseFromString(it->value().ToString()));
    EXPECT_EQ(entry.shard_id(), 0);
    total += entry.size();
    if (it->key().ToString() == "ids") {
      EXPECT_EQ(entry.dtype(), DT_INT32);
      EXPECT_EQ(entry.size(), 12);
      ASSERT_EQ(entry.shape().dim_size(), 1);
      EXPECT_EQ(entry.shape().dim(0).size(), 3);
    }
  }
  EXPECT_EQ(count, 6);
  EXPECT_EQ(total, static_cast<int64_t>(std::filesystem::file_size(prefix + ".data-00000-of-00001")));
}

TEST(TensorBundleTest, BadTensorListsAreRefusedAndWriteNothing) {
  ScratchDir dir;
  EXPECT_STATUS(WriteTensorBundle(dir / "a", {{"x", F32({1}, {1})}, {"x", F32({1}, {2})}}),
                absl::StatusCode::kInvalidArgument, "tensor name 'x' appears twice");
  EXPECT_STATUS(WriteTensorBundle(dir / "a", {{"", F32({1}, {1})}}), absl::StatusCode::kInvalidArgument,
                "a tensor name is empty");
  EXPECT_TRUE(dir.List().empty());
  EXPECT_STATUS(WriteTensorBundle(dir / "missing/a", SomeTensors()), absl::StatusCode::kNotFound,
                "directory '" + (dir / "missing") + "' does not exist");
}

TEST(TensorBundleTest, DamagedBundlesAreDataLossNamingTheFile) {
  ScratchDir dir;
  const std::string prefix = dir / "m";
  ASSERT_TRUE(WriteTensorBundle(prefix, SomeTensors()).ok());
  const std::string index = ReadBytes(prefix + ".index");
  EXPECT_STATUS(TensorBundleReader::Open(dir / "none").status(), absl::StatusCode::kNotFound,
                "checkpoint index '" + (dir / "none.index") + "' does not exist");
  // Every single flipped byte of the index is caught (block CRCs, footer magic, records).
  for (size_t i = 0; i < index.size(); ++i) {
    std::string bad = index;
    bad[i] ^= 0x20;
    WriteBytes(prefix + ".index", bad);
    auto reader = TensorBundleReader::Open(prefix);
    absl::Status status = reader.ok() ? absl::OkStatus() : reader.status();
    if (reader.ok()) {
      for (const NamedTensor& t : SomeTensors()) {
        auto got = (*reader)->Read(t.name);
        if (!got.ok()) status = got.status();
        else if (!testing::TensorNear(*got, t.tensor, 0, 0)) status = absl::InternalError("silently wrong value");
      }
    }
    // A flip may land in bytes nobody reads (block padding); then every value is still right.
    if (!status.ok()) EXPECT_NE(status.code(), absl::StatusCode::kInternal) << "byte " << i << ": " << status;
  }
  WriteBytes(prefix + ".index", index.substr(0, index.size() - 1));
  EXPECT_STATUS(TensorBundleReader::Open(prefix).status(), absl::StatusCode::kDataLoss,
                "checkpoint index '" + prefix + ".index' is corrupted");
}

// The bytes of TensorFlow's slice keys (OrderedCode), which must match to the byte: the
// partitioned checkpoint TensorFlow wrote (python/tests/test_tf_checkpoints.py) is found
// through them.
TEST(TensorBundleTest, SliceKeysAreTensorFlowsOrderedCode) {
  using namespace std::string_literals;
  EXPECT_EQ(SliceKey("a", {{0, -1}, {3, 4}}), "\x00"s + "a" + "\x00\x01\x01\x02\x80\x7f\x83\x84"s);
  // A 0x00 or 0xff byte of the name is escaped; starts past 63 take two bytes.
  EXPECT_EQ(SliceKey("x\xff" "y", {{100, 5}}), "\x00"s + "x\xff\x00"s + "y" + "\x00\x01\x01\x01\xc0\x64\x85"s);
  EXPECT_EQ(SliceKey("e", {{-65, 1}}), "\x00"s + "e" + "\x00\x01\x01\x01\x3f\xbf\x81"s);
}

}  // namespace
}  // namespace tw::checkpoint
