// TFRecord files: the byte layout TensorFlow uses, round trips, and damage reported by offset.
#include "io/record_io.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "core/crc32c.h"
#include "testing/test_util.h"
#include "testing/scratch_dir.h"

namespace tw::io {
namespace {

using testing::ReadBytes;
using testing::ScratchDir;
using testing::WriteBytes;

std::vector<std::string> ReadAll(const std::string& path, absl::Status* end, const std::string& compression = "") {
  std::vector<std::string> records;
  auto reader = RecordReader::Open(path, compression);
  if (!reader.ok()) {
    *end = reader.status();
    return records;
  }
  while (true) {
    auto r = (*reader)->Read();
    if (!r.ok()) {
      *end = r.status();
      return records;
    }
    records.push_back(*r);
  }
}

TEST(RecordIoTest, WritesTensorFlowsLayout) {
  ScratchDir dir;
  const std::string path = dir / "one.tfrecord";
  auto writer = RecordWriter::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Write("abc").ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const std::string bytes = ReadBytes(path);
  ASSERT_EQ(bytes.size(), 8u + 4 + 3 + 4);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
  auto u32 = [&](size_t at) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  EXPECT_EQ(u32(8), crc32c::Mask(crc32c::Value(bytes.data(), 8)));
  EXPECT_EQ(bytes.substr(12, 3), "abc");
  EXPECT_EQ(u32(15), crc32c::Mask(crc32c::Value("abc", 3)));
  EXPECT_STATUS((*writer)->Write("x"), absl::StatusCode::kFailedPrecondition, "is closed");
}

TEST(RecordIoTest, RoundTripsRecordsOfEverySize) {
  ScratchDir dir;
  const std::string path = dir / "many.tfrecord";
  std::vector<std::string> records = {"", "x", std::string(70000, '\xab'), std::string("\0\1\2", 3)};
  {
    auto writer = RecordWriter::Open(path);
    ASSERT_TRUE(writer.ok());
    for (const auto& r : records) ASSERT_TRUE((*writer)->Write(r).ok());
  }  // closed by the destructor
  absl::Status end;
  EXPECT_EQ(ReadAll(path, &end), records);
  EXPECT_EQ(end.code(), absl::StatusCode::kOutOfRange);
}

TEST(RecordIoTest, DamageIsDataLossNamingTheRecordsOffset) {
  ScratchDir dir;
  const std::string path = dir / "r.tfrecord";
  {
    auto writer = RecordWriter::Open(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Write("first").ok());
    ASSERT_TRUE((*writer)->Write("second").ok());
  }
  const std::string good = ReadBytes(path);
  const size_t second = 8 + 4 + 5 + 4;
  absl::Status end;
  // Every truncation inside the second record, and every flipped byte of it.
  for (size_t cut = second + 1; cut < good.size(); ++cut) {
    WriteBytes(path, good.substr(0, cut));
    EXPECT_EQ(ReadAll(path, &end), std::vector<std::string>{"first"});
    EXPECT_STATUS(end, absl::StatusCode::kDataLoss, "record at offset 21 is truncated");
  }
  for (size_t i = second; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] ^= 0x04;
    WriteBytes(path, bad);
    EXPECT_EQ(ReadAll(path, &end), std::vector<std::string>{"first"});
    EXPECT_EQ(end.code(), absl::StatusCode::kDataLoss) << "byte " << i << ": " << end;
    EXPECT_TRUE(absl::StrContains(end.message(), "'" + path + "': record at offset 21")) << end;
  }
  EXPECT_STATUS(RecordReader::Open(dir / "none").status(), absl::StatusCode::kNotFound, "no such file");
  EXPECT_STATUS(RecordWriter::Open(dir / "a", "LZ4").status(), absl::StatusCode::kInvalidArgument,
                "unknown TFRecord compression type 'LZ4'");
}

// GZIP and ZLIB: the file is one compressed stream (gzip magic 1f 8b, zlib's 78 header);
// records round-trip, a flush makes what was written readable, damage is DataLoss.
TEST(RecordIoTest, CompressedFilesRoundTripAndDamageIsDataLoss) {
  ScratchDir dir;
  const std::string big(100000, 'x');
  for (const std::string compression : {"GZIP", "ZLIB"}) {
    const std::string path = dir / (compression + ".tfrecord");
    {
      auto writer = RecordWriter::Open(path, compression);
      ASSERT_TRUE(writer.ok()) << writer.status();
      ASSERT_TRUE((*writer)->Write("first").ok());
      ASSERT_TRUE((*writer)->Flush().ok());
      absl::Status end;
      EXPECT_EQ(ReadAll(path, &end, compression), std::vector<std::string>{"first"});  // readable after a flush
      ASSERT_TRUE((*writer)->Write(big).ok());
      ASSERT_TRUE((*writer)->Write("").ok());
      ASSERT_TRUE((*writer)->Close().ok());
    }
    const std::string bytes = ReadBytes(path);
    if (compression == "GZIP") {
      EXPECT_EQ(bytes.substr(0, 2), "\x1f\x8b");
    } else {
      EXPECT_EQ(bytes[0], '\x78');
    }
    EXPECT_LT(bytes.size(), 2000u);  // 100 KB of 'x' compresses
    absl::Status end;
    EXPECT_EQ(ReadAll(path, &end, compression), (std::vector<std::string>{"first", big, ""}));
    EXPECT_TRUE(absl::IsOutOfRange(end)) << end;
    // Read without the option, the compressed bytes are no TFRecord.
    ReadAll(path, &end);
    EXPECT_EQ(end.code(), absl::StatusCode::kDataLoss) << end;
    // Cut short: the records before the cut, then DataLoss naming the file.
    WriteBytes(path, bytes.substr(0, bytes.size() / 2));
    ReadAll(path, &end, compression);
    EXPECT_STATUS(end, absl::StatusCode::kDataLoss, "'" + path + "': record at offset");
    std::string bad = bytes;
    bad[bytes.size() / 2] ^= 0x55;
    WriteBytes(path, bad);
    ReadAll(path, &end, compression);
    EXPECT_EQ(end.code(), absl::StatusCode::kDataLoss) << end;
  }
  // An uncompressed file read as GZIP.
  const std::string plain = dir / "plain.tfrecord";
  {
    auto writer = RecordWriter::Open(plain);
    ASSERT_TRUE((*writer)->Write("abc").ok());
  }
  absl::Status end;
  EXPECT_TRUE(ReadAll(plain, &end, "GZIP").empty());
  EXPECT_STATUS(end, absl::StatusCode::kDataLoss, "decompressing: zlib error");
}

TEST(RecordIoTest, SeeksToARecordsOffset) {
  ScratchDir dir;
  const std::string path = dir / "seek.tfrecord";
  for (const std::string compression : {"", "GZIP"}) {
    auto writer = RecordWriter::Open(path, compression);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (const char* r : {"first", "second", "third"}) ASSERT_TRUE((*writer)->Write(r).ok());
    ASSERT_TRUE((*writer)->Close().ok());
    auto reader = RecordReader::Open(path, compression);
    ASSERT_TRUE(reader.ok()) << reader.status();
    ASSERT_TRUE((*reader)->Read().ok());
    const uint64_t second = (*reader)->offset();
    EXPECT_EQ(second, 12u + 5 + 4);
    ASSERT_EQ(*(*reader)->Read(), "second");
    absl::Status seek = (*reader)->Seek(second);
    if (!compression.empty()) {
      EXPECT_STATUS(seek, absl::StatusCode::kUnimplemented, "compressed");
      continue;
    }
    ASSERT_TRUE(seek.ok()) << seek;
    EXPECT_EQ(*(*reader)->Read(), "second");
    EXPECT_EQ(*(*reader)->Read(), "third");
    EXPECT_STATUS((*reader)->Seek(1000), absl::StatusCode::kOutOfRange, "no offset 1000");
  }
}

}  // namespace
}  // namespace tw::io
