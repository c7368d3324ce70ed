// The checkpoint file format through its writer and reader: round trips, and every kind
// of damage reported as DataLoss before anything is allocated or returned.
#include "checkpoint/checkpoint_format.h"

#include <gtest/gtest.h>

#include "testing/test_util.h"
#include "checkpoint/checkpoint_reader.h"
#include "testing/scratch_dir.h"
#include "checkpoint/checkpoint_writer.h"
#include "core/crc32c.h"

namespace tw::checkpoint {
namespace {

using ::tw::testing::Bool;
using ::tw::testing::F32;
using ::tw::testing::F64;
using ::tw::testing::I32;
using ::tw::testing::I64;
using ::tw::testing::ReadBytes;
using ::tw::testing::ScratchDir;
using ::tw::testing::WriteBytes;
constexpr auto kDataLoss = absl::StatusCode::kDataLoss;

std::vector<NamedTensor> Sample() {
  return {{"w", F32({2, 3}, {1, 2, 3, 4, 5, 6})},
          {"layer/b", F64({3}, {-1.5, 0, 1e300})},
          {"step", I64({}, {int64_t{1} << 40})},
          {"ids", I32({2, 2}, {-7, 0, 7, 2147483647})},
          {"mask", Bool({3}, {true, false, true})},
          {"empty", F32({0, 4}, {})}};
}

// Opens `path` and reads every tensor; the first error.
absl::Status ReadAll(const std::string& path) {
  auto reader = CheckpointReader::Open(path);
  if (!reader.ok()) return reader.status();
  for (const EntryInfo& e : (*reader)->entries()) {
    auto t = (*reader)->Read(e);
    if (!t.ok()) return t.status();
  }
  return absl::OkStatus();
}

TEST(CheckpointFormatTest, RoundTripsEveryDtypeAndShape) {
  ScratchDir dir;
  const std::string path = dir / "ckpt";
  const auto tensors = Sample();
  ASSERT_TRUE(WriteCheckpoint(path, tensors).ok());
  auto reader = CheckpointReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  ASSERT_EQ((*reader)->entries().size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const EntryInfo& e = (*reader)->entries()[i];
    EXPECT_EQ(e.name, tensors[i].name);
    EXPECT_EQ(e.dtype, tensors[i].tensor.dtype());
    EXPECT_EQ(e.shape, tensors[i].tensor.shape());
    auto t = (*reader)->Read(tensors[i].name);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_TENSOR_EQ(*t, tensors[i].tensor);
  }
  EXPECT_EQ(dir.List(), std::vector<std::string>{"ckpt"});  // No temporary file left.
}

TEST(CheckpointFormatTest, LayoutMatchesTheDocumentedFormat) {
  ScratchDir dir;
  ASSERT_TRUE(WriteCheckpoint(dir / "c", {{"x", F32({2}, {1, 2})}}).ok());
  const std::string bytes = ReadBytes(dir / "c");
  // Header 32 + entry (header 4 + 1 + 4 + 4 + 8 + 8 = 29, 8 data, 4 crc) + index (29 + 8
  // offset) + footer 32.
  ASSERT_EQ(bytes.size(), 32u + 41u + 37u + 32u);
  EXPECT_EQ(bytes.substr(0, 8), "TWCKPT01");
  EXPECT_EQ(bytes.substr(bytes.size() - 8), "TWCKPTFT");
  Decoder d(bytes);
  absl::string_view magic, name;
  uint32_t version, count, reserved, name_len, dtype, rank;
  uint64_t size, dim, data_len;
  ASSERT_TRUE(d.Bytes(8, &magic) && d.U32(&version) && d.U32(&count) && d.U64(&size) &&
              d.U32(&reserved));
  EXPECT_EQ(version, 1u);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(size, bytes.size());
  uint32_t header_crc;
  ASSERT_TRUE(d.U32(&header_crc));
  EXPECT_EQ(header_crc, crc32c::Value(bytes.data(), 28));
  ASSERT_TRUE(d.U32(&name_len) && d.Bytes(name_len, &name) && d.U32(&dtype) && d.U32(&rank) &&
              d.U64(&dim) && d.U64(&data_len));
  EXPECT_EQ(name, "x");
  EXPECT_EQ(dtype, 1u);  // TensorFlow's DT_FLOAT.
  EXPECT_EQ(rank, 1u);
  EXPECT_EQ(dim, 2u);
  EXPECT_EQ(data_len, 8u);
  const float one = 1.0f;
  EXPECT_EQ(bytes.substr(32 + 29, 4), std::string(reinterpret_cast<const char*>(&one), 4));
}

TEST(CheckpointFormatTest, EveryTruncationIsReportedAsTruncated) {
  ScratchDir dir;
  ASSERT_TRUE(WriteCheckpoint(dir / "full", Sample()).ok());
  const std::string bytes = ReadBytes(dir / "full");
  for (size_t n = 0; n < bytes.size(); ++n) {
    WriteBytes(dir / "cut", bytes.substr(0, n));
    EXPECT_STATUS(ReadAll(dir / "cut"), kDataLoss, "checkpoint '" + (dir / "cut") + "' is truncated")
        << "at " << n << " bytes";
  }
  WriteBytes(dir / "cut", bytes.substr(0, 100));
  EXPECT_STATUS(ReadAll(dir / "cut"), kDataLoss, "is truncated: 100 of " + std::to_string(bytes.size()));
}

TEST(CheckpointFormatTest, EveryFlippedByteIsDetected) {
  ScratchDir dir;
  ASSERT_TRUE(WriteCheckpoint(dir / "good", Sample()).ok());
  const std::string bytes = ReadBytes(dir / "good");
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x10;
    WriteBytes(dir / "bad", bad);
    absl::Status s = ReadAll(dir / "bad");
    EXPECT_EQ(s.code(), kDataLoss) << "byte " << i << ": " << s;
  }
}

TEST(CheckpointFormatTest, DamageIsNamedByWhereItIs) {
  ScratchDir dir;
  const std::string path = dir / "c";
  ASSERT_TRUE(WriteCheckpoint(path, {{"w", F32({4}, {1, 2, 3, 4})}}).ok());
  const std::string bytes = ReadBytes(path);
  auto flipped = [&](size_t i) {
    std::string b = bytes;
    b[i] ^= 1;
    WriteBytes(path, b);
    return ReadAll(path);
  };
  const std::string prefix = "checkpoint '" + path + "' is corrupted: ";
  EXPECT_STATUS(flipped(0), kDataLoss, prefix + "bad magic");
  EXPECT_STATUS(flipped(9), kDataLoss, prefix + "header checksum mismatch");
  EXPECT_STATUS(flipped(32 + 29 + 5), kDataLoss, prefix + "entry 'w' checksum mismatch");
  EXPECT_STATUS(flipped(32 + 4), kDataLoss, prefix + "entry 'w' does not match the index");
  EXPECT_STATUS(flipped(bytes.size() - 32 - 3), kDataLoss, prefix + "index checksum mismatch");
  EXPECT_STATUS(flipped(bytes.size() - 20), kDataLoss, prefix + "footer checksum mismatch");
  EXPECT_STATUS(flipped(bytes.size() - 1), kDataLoss, prefix + "footer checksum mismatch");
  WriteBytes(path, bytes + "x");
  EXPECT_STATUS(ReadAll(path), kDataLoss, prefix + "file has " + std::to_string(bytes.size() + 1));
  WriteBytes(path, "hello, world: not a checkpoint at all");
  EXPECT_STATUS(ReadAll(path), kDataLoss, prefix + "bad magic (not a tensorweave checkpoint)");
}

// Builds files whose checksums are all valid but whose contents lie, as a hostile
// writer would.
std::string Sealed(const std::vector<std::pair<std::string, std::string>>& entries,
                   uint32_t version = kFormatVersion, int64_t extra_index_offset = 0) {
  std::string body, index;
  uint64_t offset = kHeaderSize;
  for (const auto& [header, data] : entries) {
    std::string entry = header + data;
    Encoder(&entry).U32(crc32c::Value(entry.data(), entry.size()));
    Encoder ie(&index);
    ie.Bytes(header);
    ie.U64(offset);
    offset += entry.size();
    body += entry;
  }
  std::string out;
  Encoder h(&out);
  h.Bytes(kMagic);
  h.U32(version);
  h.U32(static_cast<uint32_t>(entries.size()));
  h.U64(kHeaderSize + body.size() + index.size() + kFooterSize);
  h.U32(0);
  h.U32(crc32c::Value(out.data(), out.size()));
  out += body + index;
  std::string footer;
  Encoder f(&footer);
  f.U64(kHeaderSize + body.size() + extra_index_offset);
  f.U64(index.size() - extra_index_offset);
  f.U32(crc32c::Value(index.data() + extra_index_offset, index.size() - extra_index_offset));
  f.U32(crc32c::Value(footer.data(), footer.size()));
  f.Bytes(kFooterMagic);
  return out + footer;
}

std::string RawHeader(const std::string& name, uint32_t dtype, std::vector<uint64_t> dims,
                      uint64_t data_len) {
  std::string out;
  Encoder e(&out);
  e.U32(static_cast<uint32_t>(name.size()));
  e.Bytes(name);
  e.U32(dtype);
  e.U32(static_cast<uint32_t>(dims.size()));
  for (uint64_t d : dims) e.U64(d);
  e.U64(data_len);
  return out;
}

TEST(CheckpointFormatTest, LyingButWellSealedFilesAreRejectedBeforeAllocating) {
  ScratchDir dir;
  const std::string path = dir / "c";
  auto check = [&](const std::string& bytes, absl::StatusCode code, const std::string& msg) {
    WriteBytes(path, bytes);
    EXPECT_STATUS(ReadAll(path), code, msg);
  };
  // Sanity: the builder makes valid files.
  check(Sealed({{RawHeader("x", 1, {1}, 4), std::string(4, '\0')}}), absl::StatusCode::kOk, "");
  // 2^40 floats claimed, 4 bytes present: caught against the file size, not allocated.
  check(Sealed({{RawHeader("x", 1, {uint64_t{1} << 40}, uint64_t{4} << 40), std::string(4, '\0')}}),
        kDataLoss, "does not fit the file");
  check(Sealed({{RawHeader("x", 1, {uint64_t{1} << 62}, 0), ""}}), kDataLoss, "has a bad shape");
  check(Sealed({{RawHeader("x", 1, {3}, 8), std::string(8, '\0')}}), kDataLoss,
        "entry 'x' has data length 8, expected 12 for float32 [3]");
  check(Sealed({{RawHeader("x", 20, {}, 1), std::string(1, '\0')}}), kDataLoss, "bad dtype 20");
  check(Sealed({{RawHeader("x", 1, std::vector<uint64_t>(33, 1), 4), std::string(4, '\0')}}),
        kDataLoss, "bad rank 33");
  check(Sealed({{RawHeader("", 1, {}, 4), std::string(4, '\0')}}), kDataLoss, "bad tensor name length 0");
  check(Sealed({{RawHeader("x", 1, {}, 4), std::string(4, '\0')},
                {RawHeader("x", 1, {}, 4), std::string(4, '\0')}}),
        kDataLoss, "tensor name 'x' appears twice");
  check(Sealed({{RawHeader("m", 10, {2}, 2), std::string("\x01\x02", 2)}}), kDataLoss,
        "entry 'm' has a bool byte 2");
  check(Sealed({{RawHeader("x", 1, {}, 4), std::string(4, '\0')}}, 2),
        absl::StatusCode::kUnimplemented, "has format version 2; this build reads version 1");
  check(Sealed({{RawHeader("x", 1, {}, 4), std::string(4, '\0')}}, kFormatVersion, 4),
        kDataLoss, "is corrupted: index entry 0");
}

TEST(CheckpointFormatTest, MissingFilesAndTensorsAreNotFound) {
  ScratchDir dir;
  EXPECT_STATUS(CheckpointReader::Open(dir / "nope").status(), absl::StatusCode::kNotFound,
                "checkpoint '" + (dir / "nope") + "' not found");
  ASSERT_TRUE(WriteCheckpoint(dir / "c", Sample()).ok());
  auto reader = CheckpointReader::Open(dir / "c");
  ASSERT_TRUE(reader.ok());
  EXPECT_STATUS((*reader)->Read("v").status(), absl::StatusCode::kNotFound,
                "checkpoint '" + (dir / "c") + "' has no tensor 'v'");
  EXPECT_STATUS(CheckpointReader::Open(dir.path()).status(), absl::StatusCode::kInvalidArgument,
                "is not a regular file");
}

TEST(CheckpointFormatTest, WriterRejectsBadInputAndLeavesNothingBehind) {
  ScratchDir dir;
  const std::string path = dir / "c";
  EXPECT_STATUS(WriteCheckpoint(path, {{"a", F32({}, {1})}, {"a", F32({}, {2})}}),
                absl::StatusCode::kInvalidArgument, "tensor name 'a' appears twice");
  EXPECT_STATUS(WriteCheckpoint(path, {{"", F32({}, {1})}}), absl::StatusCode::kInvalidArgument,
                "tensor names must have 1 to 4096 bytes");
  EXPECT_STATUS(WriteCheckpoint(path, {{"h", Tensor::Resource({})}}),
                absl::StatusCode::kInvalidArgument, "dtype resource cannot be saved");
  EXPECT_STATUS(WriteCheckpoint(dir / "no/such/dir/c", Sample()), absl::StatusCode::kNotFound,
                "cannot write '" + (dir / "no/such/dir/c") + "': directory '" +
                    (dir / "no/such/dir") + "' does not exist");
  WriteBytes(dir / "file", "x");
  EXPECT_STATUS(WriteCheckpoint(dir / "file/c", Sample()), absl::StatusCode::kNotFound,
                "'" + (dir / "file") + "' is not a directory");
  // Renaming over a directory fails after the data was written: the temporary goes.
  std::filesystem::create_directory(dir / "taken");
  EXPECT_FALSE(WriteCheckpoint(dir / "taken", Sample()).ok());
  EXPECT_EQ(dir.List(), (std::vector<std::string>{"file", "taken"}));
}

TEST(CheckpointFormatTest, RewritingReplacesTheWholeFile) {
  ScratchDir dir;
  const std::string path = dir / "c";
  ASSERT_TRUE(WriteCheckpoint(path, Sample()).ok());
  ASSERT_TRUE(WriteCheckpoint(path, {{"only", I32({1}, {5})}}).ok());
  auto reader = CheckpointReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status();
  ASSERT_EQ((*reader)->entries().size(), 1u);
  EXPECT_TENSOR_EQ(*(*reader)->Read("only"), I32({1}, {5}));
  EXPECT_EQ(dir.List(), std::vector<std::string>{"c"});
}

}  // namespace
}  // namespace tw::checkpoint
