#include "checkpoint/checkpoint_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"
#include "core/crc32c.h"

namespace tw::checkpoint {

absl::StatusOr<std::unique_ptr<CheckpointReader>> CheckpointReader::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat("checkpoint '", path, "' not found"));
    }
    return ErrnoStatus(err, "open checkpoint", path);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoStatus(err, "stat checkpoint", path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint '", path, "' is not a regular file"));
  }
  std::unique_ptr<CheckpointReader> reader(
      new CheckpointReader(path, fd, static_cast<uint64_t>(st.st_size)));
  uint32_t entry_count = 0, index_crc = 0;
  uint64_t index_offset = 0, index_size = 0;
  TW_RETURN_IF_ERROR(
      reader->ParseHeaderAndFooter(&entry_count, &index_offset, &index_size, &index_crc));
  TW_RETURN_IF_ERROR(reader->ParseIndex(entry_count, index_offset, index_size, index_crc));
  return reader;
}

CheckpointReader::~CheckpointReader() { ::close(fd_); }

absl::Status CheckpointReader::ReadAt(uint64_t offset, void* dst, size_t n) const {
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    ssize_t r = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "read checkpoint", path_);
    }
    if (r == 0) {  // The file shrank after it was opened.
      return Truncated(path_, absl::StrCat("unexpected end of file at byte ", offset));
    }
    p += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return absl::OkStatus();
}

absl::Status CheckpointReader::ParseHeaderAndFooter(uint32_t* entry_count, uint64_t* index_offset,
                                                    uint64_t* index_size, uint32_t* index_crc) {
  std::string header(std::min<uint64_t>(file_size_, kHeaderSize), '\0');
  TW_RETURN_IF_ERROR(ReadAt(0, header.data(), header.size()));
  const size_t magic_bytes = std::min(header.size(), kMagic.size());
  if (absl::string_view(header).substr(0, magic_bytes) != kMagic.substr(0, magic_bytes)) {
    return Corrupted(path_, "bad magic (not a tensorweave checkpoint)");
  }
  if (file_size_ < kHeaderSize) {
    return Truncated(path_, absl::StrCat("only ", file_size_, " bytes, less than the header"));
  }
  Decoder h(header);
  absl::string_view magic;
  uint32_t version = 0, reserved = 0, crc = 0;
  uint64_t recorded_size = 0;
  h.Bytes(kMagic.size(), &magic);
  h.U32(&version);
  h.U32(entry_count);
  h.U64(&recorded_size);
  h.U32(&reserved);
  h.U32(&crc);
  if (crc != crc32c::Value(header.data(), kHeaderSize - 4)) {
    return Corrupted(path_, "header checksum mismatch");
  }
  if (version != kFormatVersion) {
    return absl::UnimplementedError(absl::StrCat("checkpoint '", path_, "' has format version ",
                                                 version, "; this build reads version ",
                                                 kFormatVersion));
  }
  if (reserved != 0) return Corrupted(path_, "reserved header field is not zero");
  if (file_size_ < recorded_size) {
    return Truncated(path_, absl::StrCat(file_size_, " of ", recorded_size, " bytes present"));
  }
  if (file_size_ > recorded_size) {
    return Corrupted(path_, absl::StrCat("file has ", file_size_, " bytes but its header says ",
                                         recorded_size));
  }
  if (file_size_ < kHeaderSize + kFooterSize) {
    return Corrupted(path_, absl::StrCat("header records an impossible size ", recorded_size));
  }

  std::string footer(kFooterSize, '\0');
  TW_RETURN_IF_ERROR(ReadAt(file_size_ - kFooterSize, footer.data(), footer.size()));
  Decoder f(footer);
  uint32_t footer_crc = 0;
  absl::string_view footer_magic;
  f.U64(index_offset);
  f.U64(index_size);
  f.U32(index_crc);
  f.U32(&footer_crc);
  f.Bytes(kFooterMagic.size(), &footer_magic);
  if (footer_magic != kFooterMagic || footer_crc != crc32c::Value(footer.data(), 20)) {
    return Corrupted(path_, "footer checksum mismatch");
  }
  const uint64_t index_end = file_size_ - kFooterSize;
  if (*index_offset < kHeaderSize || *index_offset > index_end ||
      *index_size != index_end - *index_offset) {
    return Corrupted(path_, absl::StrCat("index range [", *index_offset, ", +", *index_size,
                                         ") does not fit the file"));
  }
  return absl::OkStatus();
}

absl::Status CheckpointReader::ParseIndex(uint32_t entry_count, uint64_t index_offset,
                                          uint64_t index_size, uint32_t index_crc) {
  // index_size fits within the file (checked above), so this allocation is bounded by it.
  std::string index(index_size, '\0');
  TW_RETURN_IF_ERROR(ReadAt(index_offset, index.data(), index.size()));
  if (crc32c::Value(index.data(), index.size()) != index_crc) {
    return Corrupted(path_, "index checksum mismatch");
  }
  Decoder in(index);
  uint64_t expected_offset = kHeaderSize;
  for (uint32_t i = 0; i < entry_count; ++i) {
    EntryInfo info;
    std::string error;
    if (!DecodeEntryHeader(in, &info, &error)) {
      return Corrupted(path_, absl::StrCat("index entry ", i, ": ", error));
    }
    if (!in.U64(&info.offset)) {
      return Corrupted(path_, absl::StrCat("index entry ", i, " runs past the end"));
    }
    // Entries are contiguous; each must end before the index (no overflow: sizes are
    // bounded by kMaxTensorElements * 8 and the offset by the file size).
    if (info.offset != expected_offset || info.entry_size() > index_offset - info.offset) {
      return Corrupted(path_, absl::StrCat("entry '", info.name, "' at offset ", info.offset,
                                           " does not fit the file"));
    }
    expected_offset = info.offset + info.entry_size();
    if (!by_name_.emplace(info.name, entries_.size()).second) {
      return Corrupted(path_, absl::StrCat("tensor name '", info.name, "' appears twice"));
    }
    entries_.push_back(std::move(info));
  }
  if (in.remaining() != 0 || expected_offset != index_offset) {
    return Corrupted(path_, "index does not account for the whole file");
  }
  return absl::OkStatus();
}

absl::StatusOr<const EntryInfo*> CheckpointReader::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    return absl::NotFoundError(absl::StrCat("checkpoint '", path_, "' has no tensor '", name, "'"));
  }
  return &entries_[it->second];
}

absl::StatusOr<Tensor> CheckpointReader::Read(const std::string& name) const {
  TW_ASSIGN_OR_RETURN(const EntryInfo* entry, Find(name));
  return Read(*entry);
}

absl::StatusOr<Tensor> CheckpointReader::Read(const EntryInfo& entry) const {
  std::string header(entry.header_size, '\0');
  TW_RETURN_IF_ERROR(ReadAt(entry.offset, header.data(), header.size()));
  if (header != EncodeEntryHeader(entry.name, entry.dtype, entry.shape)) {
    return Corrupted(path_, absl::StrCat("entry '", entry.name, "' does not match the index"));
  }
  // The size was checked against the file when the index was read.
  TW_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(entry.dtype, entry.shape));
  TW_RETURN_IF_ERROR(ReadAt(entry.offset + entry.header_size, t.raw_data(), entry.data_size));
  char crc_bytes[4];
  TW_RETURN_IF_ERROR(ReadAt(entry.offset + entry.header_size + entry.data_size, crc_bytes, 4));
  uint32_t stored = 0;
  Decoder(absl::string_view(crc_bytes, 4)).U32(&stored);
  uint32_t crc = crc32c::Value(header.data(), header.size());
  crc = crc32c::Extend(crc, t.raw_data(), entry.data_size);
  if (crc != stored) {
    return Corrupted(path_, absl::StrCat("entry '", entry.name, "' checksum mismatch"));
  }
  if (entry.dtype == DType::kBool) {
    const auto* bytes = static_cast<const uint8_t*>(t.raw_data());
    for (uint64_t i = 0; i < entry.data_size; ++i) {
      if (bytes[i] > 1) {
        return Corrupted(path_, absl::StrCat("entry '", entry.name, "' has a bool byte ",
                                             static_cast<int>(bytes[i])));
      }
    }
  }
  ToOrFromLittleEndian(t.raw_data(), entry.data_size, DTypeSize(entry.dtype));
  return t;
}

}  // namespace tw::checkpoint
