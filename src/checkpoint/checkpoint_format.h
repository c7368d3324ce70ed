// The tensorweave checkpoint file: named tensors in one file, every byte covered by a
// CRC-32C so that corruption and truncation are reported (DataLoss) instead of loaded.
//
// All integers are little-endian; tensor data is the raw little-endian element bytes
// (bool: one byte, 0 or 1). Layout:
//
//   Header (32 bytes)
//     0  magic "TWCKPT01"
//     8  u32 format version (1)
//     12 u32 entry count
//     16 u64 file size in bytes (so a truncated file is recognised at once)
//     24 u32 reserved, 0
//     28 u32 CRC-32C of bytes [0, 28)
//   Entries, back to back from offset 32, one per tensor:
//     entry header:  u32 name length, name bytes (UTF-8, 1..4096 bytes),
//                    u32 dtype (TensorFlow's DataType value), u32 rank, i64 dims[rank],
//                    u64 data length (= elements * dtype size)
//     data:          data length bytes
//     u32 CRC-32C of the entry header and the data
//   Index, right after the last entry: for each entry in file order, its entry header
//     again followed by u64 the entry's offset in the file. Lets a reader check names,
//     dtypes and shapes without touching the data.
//   Footer (32 bytes)
//     0  u64 index offset
//     8  u64 index length
//     16 u32 CRC-32C of the index
//     20 u32 CRC-32C of footer bytes [0, 20)
//     24 magic "TWCKPTFT"
//
// A reader validates the header, footer and the whole index (sizes against the file size,
// shapes with TensorShape::Build, entries contiguous and names unique) before it allocates
// anything for tensor data. Writers write "<path>.tmp-<random>", fsync it and rename it
// over <path>, so a reader sees the old file or the complete new one, never a torn one.
#ifndef TENSORWEAVE_SRC_CHECKPOINT_CHECKPOINT_FORMAT_H_
#define TENSORWEAVE_SRC_CHECKPOINT_CHECKPOINT_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tensorweave/tensor.h"

namespace tw::checkpoint {

inline constexpr absl::string_view kMagic = "TWCKPT01";
inline constexpr absl::string_view kFooterMagic = "TWCKPTFT";
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr uint64_t kHeaderSize = 32;
inline constexpr uint64_t kFooterSize = 32;
inline constexpr uint64_t kEntryCrcSize = 4;
inline constexpr size_t kMaxNameLength = 4096;

// What the index says about one tensor.
struct EntryInfo {
  std::string name;
  DType dtype = DType::kInvalid;
  TensorShape shape;
  uint64_t offset = 0;       // Of the entry header in the file.
  uint64_t header_size = 0;  // Bytes of the entry header.
  uint64_t data_size = 0;    // Bytes of tensor data.
  uint64_t entry_size() const { return header_size + data_size + kEntryCrcSize; }
};

// Dtypes a checkpoint can hold: float32/64, int32/64, bool.
bool IsSavableDType(DType dtype);

// Appends little-endian integers and byte strings to a std::string.
class Encoder {
 public:
  explicit Encoder(std::string* out) : out_(out) {}
  void U32(uint32_t v);
  void U64(uint64_t v);
  void Bytes(absl::string_view b) { out_->append(b.data(), b.size()); }

 private:
  std::string* out_;
};

// Reads them back; every read fails (returns false) instead of running past the end.
class Decoder {
 public:
  explicit Decoder(absl::string_view in) : in_(in) {}
  bool U32(uint32_t* v);
  bool U64(uint64_t* v);
  bool Bytes(size_t n, absl::string_view* b);
  size_t remaining() const { return in_.size(); }

 private:
  absl::string_view in_;
};

// The entry header of a tensor named `name` with this dtype and shape.
std::string EncodeEntryHeader(absl::string_view name, DType dtype, const TensorShape& shape);
// Parses one entry header (as in an entry or the index), validating the name, dtype and
// shape. On failure `error` says what is wrong (for a "corrupted" message).
bool DecodeEntryHeader(Decoder& in, EntryInfo* info, std::string* error);

// The errors every checkpoint reader reports.
absl::Status Corrupted(absl::string_view path, absl::string_view what);
absl::Status Truncated(absl::string_view path, absl::string_view what);

// An absl::Status for a failed system call on `path` (errno -> code), e.g.
// NotFound for ENOENT, PermissionDenied for EACCES, ResourceExhausted for ENOSPC.
absl::Status ErrnoStatus(int err, absl::string_view action, absl::string_view path);

// Byte-swaps every element when the host is big-endian, so data is little-endian on disk.
void ToOrFromLittleEndian(void* data, size_t bytes, size_t element_size);

}  // namespace tw::checkpoint

#endif  // TENSORWEAVE_SRC_CHECKPOINT_CHECKPOINT_FORMAT_H_
