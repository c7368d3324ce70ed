#include "checkpoint/checkpoint_writer.h"

#include <bit>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"
#include "checkpoint/atomic_file.h"
#include "checkpoint/checkpoint_format.h"
#include "core/crc32c.h"

namespace tw::checkpoint {
namespace {

absl::Status ValidateTensors(const std::string& path, absl::Span<const NamedTensor> tensors) {
  if (tensors.size() > UINT32_MAX) {
    return absl::InvalidArgumentError(absl::StrCat("too many tensors for checkpoint '", path, "'"));
  }
  absl::flat_hash_set<absl::string_view> names;
  for (const NamedTensor& t : tensors) {
    if (t.name.empty() || t.name.size() > kMaxNameLength) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot save to '", path, "': tensor names must have 1 to ", kMaxNameLength,
          " bytes, got '", t.name.substr(0, 64), "' (", t.name.size(), " bytes)"));
    }
    if (!names.insert(t.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot save to '", path, "': tensor name '", t.name, "' appears twice"));
    }
    if (!IsSavableDType(t.tensor.dtype())) {
      return absl::InvalidArgumentError(absl::StrCat("cannot save tensor '", t.name, "' to '", path,
                                                     "': dtype ", DTypeName(t.tensor.dtype()),
                                                     " cannot be saved"));
    }
  }
  return absl::OkStatus();
}

// The tensor's bytes in file order (a little-endian copy on big-endian hosts).
std::string_view LittleEndianBytes(const Tensor& t, std::string* scratch) {
  const char* data = static_cast<const char*>(t.raw_data());
  if constexpr (std::endian::native == std::endian::little) {
    return std::string_view(data, t.TotalBytes());
  }
  scratch->assign(data, t.TotalBytes());
  ToOrFromLittleEndian(scratch->data(), scratch->size(), DTypeSize(t.dtype()));
  return *scratch;
}

}  // namespace

std::string DirName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::Status WriteCheckpoint(const std::string& path, absl::Span<const NamedTensor> tensors) {
  TW_RETURN_IF_ERROR(ValidateTensors(path, tensors));
  // Lay out the file first: the header records its size.
  std::vector<std::string> headers;
  std::string index;
  Encoder index_enc(&index);
  uint64_t offset = kHeaderSize;
  for (const NamedTensor& t : tensors) {
    headers.push_back(EncodeEntryHeader(t.name, t.tensor.dtype(), t.tensor.shape()));
    index_enc.Bytes(headers.back());
    index_enc.U64(offset);
    offset += headers.back().size() + t.tensor.TotalBytes() + kEntryCrcSize;
  }
  const uint64_t index_offset = offset;
  const uint64_t file_size = index_offset + index.size() + kFooterSize;

  std::string header;
  Encoder h(&header);
  h.Bytes(kMagic);
  h.U32(kFormatVersion);
  h.U32(static_cast<uint32_t>(tensors.size()));
  h.U64(file_size);
  h.U32(0);
  h.U32(crc32c::Value(header.data(), header.size()));

  std::string footer;
  Encoder f(&footer);
  f.U64(index_offset);
  f.U64(index.size());
  f.U32(crc32c::Value(index.data(), index.size()));
  f.U32(crc32c::Value(footer.data(), footer.size()));
  f.Bytes(kFooterMagic);

  TW_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> file, AtomicFile::Create(path));
  TW_RETURN_IF_ERROR(file->Append(header));
  std::string scratch, crc_bytes;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string_view data = LittleEndianBytes(tensors[i].tensor, &scratch);
    uint32_t crc = crc32c::Value(headers[i].data(), headers[i].size());
    crc = crc32c::Extend(crc, data.data(), data.size());
    crc_bytes.clear();
    Encoder(&crc_bytes).U32(crc);
    TW_RETURN_IF_ERROR(file->Append(headers[i]));
    TW_RETURN_IF_ERROR(file->Append(data.data(), data.size()));
    TW_RETURN_IF_ERROR(file->Append(crc_bytes));
  }
  TW_RETURN_IF_ERROR(file->Append(index));
  TW_RETURN_IF_ERROR(file->Append(footer));
  return file->Commit();
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  TW_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> file, AtomicFile::Create(path));
  TW_RETURN_IF_ERROR(file->Append(contents));
  return file->Commit();
}

}  // namespace tw::checkpoint
