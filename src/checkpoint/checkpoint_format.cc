#include "checkpoint/checkpoint_format.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tw::checkpoint {

bool IsSavableDType(DType dtype) { return IsNumeric(dtype) || dtype == DType::kBool; }

void Encoder::U32(uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  out_->append(b, 4);
}

void Encoder::U64(uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  out_->append(b, 8);
}

bool Decoder::U32(uint32_t* v) {
  if (in_.size() < 4) return false;
  *v = 0;
  for (int i = 3; i >= 0; --i) *v = (*v << 8) | static_cast<uint8_t>(in_[i]);
  in_.remove_prefix(4);
  return true;
}

bool Decoder::U64(uint64_t* v) {
  if (in_.size() < 8) return false;
  *v = 0;
  for (int i = 7; i >= 0; --i) *v = (*v << 8) | static_cast<uint8_t>(in_[i]);
  in_.remove_prefix(8);
  return true;
}

bool Decoder::Bytes(size_t n, absl::string_view* b) {
  if (in_.size() < n) return false;
  *b = in_.substr(0, n);
  in_.remove_prefix(n);
  return true;
}

std::string EncodeEntryHeader(absl::string_view name, DType dtype, const TensorShape& shape) {
  std::string out;
  Encoder e(&out);
  e.U32(static_cast<uint32_t>(name.size()));
  e.Bytes(name);
  e.U32(static_cast<uint32_t>(dtype));
  e.U32(static_cast<uint32_t>(shape.rank()));
  for (int64_t d : shape.dims()) e.U64(static_cast<uint64_t>(d));
  e.U64(static_cast<uint64_t>(shape.num_elements()) * DTypeSize(dtype));
  return out;
}

bool DecodeEntryHeader(Decoder& in, EntryInfo* info, std::string* error) {
  const size_t start = in.remaining();
  uint32_t name_len = 0, dtype = 0, rank = 0;
  absl::string_view name;
  if (!in.U32(&name_len) || name_len == 0 || name_len > kMaxNameLength) {
    *error = absl::StrCat("bad tensor name length ", name_len);
    return false;
  }
  if (!in.Bytes(name_len, &name)) {
    *error = "tensor name runs past the end";
    return false;
  }
  info->name = std::string(name);
  if (!in.U32(&dtype) || !IsValidDType(static_cast<int>(dtype)) ||
      !IsSavableDType(static_cast<DType>(dtype))) {
    *error = absl::StrCat("entry '", info->name, "' has bad dtype ", dtype);
    return false;
  }
  info->dtype = static_cast<DType>(dtype);
  if (!in.U32(&rank) || rank > static_cast<uint32_t>(kMaxRank)) {
    *error = absl::StrCat("entry '", info->name, "' has bad rank ", rank);
    return false;
  }
  std::vector<int64_t> dims(rank);
  for (uint32_t i = 0; i < rank; ++i) {
    uint64_t d = 0;
    if (!in.U64(&d)) {
      *error = absl::StrCat("entry '", info->name, "' shape runs past the end");
      return false;
    }
    dims[i] = static_cast<int64_t>(d);
  }
  auto shape = TensorShape::Build(dims);
  if (!shape.ok()) {
    *error = absl::StrCat("entry '", info->name, "' has a bad shape: ", shape.status().message());
    return false;
  }
  info->shape = *std::move(shape);
  uint64_t data_size = 0;
  const uint64_t expected = static_cast<uint64_t>(info->shape.num_elements()) * DTypeSize(info->dtype);
  if (!in.U64(&data_size) || data_size != expected) {
    *error = absl::StrCat("entry '", info->name, "' has data length ", data_size, ", expected ",
                          expected, " for ", DTypeName(info->dtype), " ", info->shape.DebugString());
    return false;
  }
  info->data_size = data_size;
  info->header_size = start - in.remaining();
  return true;
}

absl::Status Corrupted(absl::string_view path, absl::string_view what) {
  return absl::DataLossError(absl::StrCat("checkpoint '", path, "' is corrupted: ", what));
}

absl::Status Truncated(absl::string_view path, absl::string_view what) {
  return absl::DataLossError(absl::StrCat("checkpoint '", path, "' is truncated: ", what));
}

absl::Status ErrnoStatus(int err, absl::string_view action, absl::string_view path) {
  std::string msg = absl::StrCat("cannot ", action, " '", path, "': ", std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(msg);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(msg);
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
      return absl::ResourceExhaustedError(msg);
    case EISDIR:
    case ENAMETOOLONG:
      return absl::InvalidArgumentError(msg);
    default:
      return absl::UnknownError(msg);
  }
}

void ToOrFromLittleEndian(void* data, size_t bytes, size_t element_size) {
  if constexpr (std::endian::native == std::endian::little) return;
  if (element_size <= 1) return;
  auto* p = static_cast<char*>(data);
  for (size_t i = 0; i + element_size <= bytes; i += element_size) {
    std::reverse(p + i, p + i + element_size);
  }
}

}  // namespace tw::checkpoint
