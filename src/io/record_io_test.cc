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

std::vector<std::string> ReadAll(const std::string& path, absl::Status* end) {
  std::vector<std::string> records;
  auto reader = RecordReader::Open(path);
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
  EXPECT_STATUS(RecordWriter::Open(dir / "a", "GZIP").status(), absl::StatusCode::kUnimplemented,
                "TFRecord compression 'GZIP' is not supported yet");
  EXPECT_STATUS(RecordWriter::Open(dir / "a", "LZ4").status(), absl::StatusCode::kInvalidArgument,
                "unknown TFRecord compression type 'LZ4'");
}

}  // namespace
}  // namespace tw::io
