#include "io/record_io.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/crc32c.h"
#include "tensorweave/status.h"

namespace tw::io {
namespace {

constexpr size_t kHeaderSize = sizeof(uint64_t) + sizeof(uint32_t);
constexpr size_t kFooterSize = sizeof(uint32_t);
// A length field beyond this is damage, not a record (TensorFlow's own records stay far
// below it); refusing it keeps a flipped bit from asking for terabytes.
constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 34;

void PutLittleEndian(uint64_t v, int bytes, char* out) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint64_t GetLittleEndian(const char* in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}
uint32_t MaskedCrc(const char* data, size_t n) { return crc32c::Mask(crc32c::Value(data, n)); }

absl::Status OpenError(const std::string& path, const char* action) {
  const int err = errno;
  if (err == ENOENT) {
    return absl::NotFoundError(absl::StrCat("cannot ", action, " '", path, "': no such file or directory"));
  }
  if (err == EACCES) return absl::PermissionDeniedError(absl::StrCat("cannot ", action, " '", path, "'"));
  return absl::UnknownError(absl::StrCat("cannot ", action, " '", path, "': ", std::strerror(err)));
}

}  // namespace

absl::Status CheckRecordCompression(absl::string_view compression_type) {
  if (compression_type.empty() || compression_type == "GZIP" || compression_type == "ZLIB") return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("unknown TFRecord compression type '", compression_type,
                                                 "' (TensorFlow's are '', 'GZIP' and 'ZLIB')"));
}

namespace {
ZlibFormat FormatOf(absl::string_view compression_type) {
  return compression_type == "GZIP" ? ZlibFormat::kGzip : ZlibFormat::kZlib;
}
}  // namespace

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Open(const std::string& path,
                                                                 absl::string_view compression_type) {
  TW_RETURN_IF_ERROR(CheckRecordCompression(compression_type));
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return OpenError(path, "write");
  std::unique_ptr<RecordWriter> writer(new RecordWriter(path, file));
  if (!compression_type.empty()) {
    TW_ASSIGN_OR_RETURN(writer->zlib_, ZlibWriter::Create(file, FormatOf(compression_type)));
  }
  return writer;
}

absl::Status RecordWriter::WriteBytes(absl::string_view bytes) {
  if (zlib_ != nullptr) {
    if (std::string e = zlib_->Write(bytes); !e.empty()) {
      return absl::DataLossError(absl::StrCat("writing '", path_, "': ", e));
    }
    return absl::OkStatus();
  }
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return absl::DataLossError(absl::StrCat("writing '", path_, "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

RecordWriter::~RecordWriter() {
  if (file_ == nullptr) return;
  if (zlib_ != nullptr) zlib_->Finish();  // a compressed file is unreadable without its end
  std::fclose(file_);
}

absl::Status RecordWriter::Write(absl::string_view record) {
  if (file_ == nullptr) return absl::FailedPreconditionError(absl::StrCat("'", path_, "' is closed"));
  char header[kHeaderSize], footer[kFooterSize];
  PutLittleEndian(record.size(), 8, header);
  PutLittleEndian(MaskedCrc(header, 8), 4, header + 8);
  PutLittleEndian(MaskedCrc(record.data(), record.size()), 4, footer);
  TW_RETURN_IF_ERROR(WriteBytes(absl::string_view(header, kHeaderSize)));
  TW_RETURN_IF_ERROR(WriteBytes(record));
  return WriteBytes(absl::string_view(footer, kFooterSize));
}

absl::Status RecordWriter::Flush() {
  if (file_ == nullptr) return absl::FailedPreconditionError(absl::StrCat("'", path_, "' is closed"));
  if (zlib_ != nullptr) {
    if (std::string e = zlib_->Flush(); !e.empty()) return absl::DataLossError(absl::StrCat("flushing '", path_, "': ", e));
    return absl::OkStatus();
  }
  if (std::fflush(file_) != 0) return absl::DataLossError(absl::StrCat("flushing '", path_, "': ", std::strerror(errno)));
  return absl::OkStatus();
}

absl::Status RecordWriter::Close() {
  if (file_ == nullptr) return absl::OkStatus();
  FILE* file = file_;
  file_ = nullptr;
  std::string zlib_error = zlib_ != nullptr ? zlib_->Finish() : "";
  zlib_.reset();
  if (!zlib_error.empty()) {
    std::fclose(file);
    return absl::DataLossError(absl::StrCat("closing '", path_, "': ", zlib_error));
  }
  if (std::fclose(file) != 0) return absl::DataLossError(absl::StrCat("closing '", path_, "': ", std::strerror(errno)));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<RecordReader>> RecordReader::Open(const std::string& path,
                                                                 absl::string_view compression_type) {
  TW_RETURN_IF_ERROR(CheckRecordCompression(compression_type));
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return OpenError(path, "read");
  // TF's reader buffers 256 KiB too: records of a few KB then cost no read call each.
  std::setvbuf(file, nullptr, _IOFBF, size_t{256} << 10);
  std::unique_ptr<RecordReader> reader(new RecordReader(path, file));
  if (!compression_type.empty()) {
    TW_ASSIGN_OR_RETURN(reader->zlib_, ZlibReader::Create(file, FormatOf(compression_type)));
  }
  return reader;
}

RecordReader::~RecordReader() {
  zlib_.reset();
  std::fclose(file_);
}

absl::Status RecordReader::Seek(uint64_t offset) {
  if (zlib_ != nullptr) {
    return absl::UnimplementedError(absl::StrCat("TFRecord file '", path_, "' is compressed: it cannot seek"));
  }
  if (std::fseek(file_, 0, SEEK_END) != 0) return absl::InternalError(absl::StrCat("cannot seek in '", path_, "'"));
  const long size = std::ftell(file_);
  if (size < 0 || offset > static_cast<uint64_t>(size)) {
    return absl::OutOfRangeError(absl::StrCat("TFRecord file '", path_, "' has ", size, " bytes, no offset ", offset));
  }
  if (std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0) {
    return absl::InternalError(absl::StrCat("cannot seek in '", path_, "'"));
  }
  offset_ = offset;
  return absl::OkStatus();
}

size_t RecordReader::ReadBytes(char* out, size_t n) {
  return zlib_ != nullptr ? zlib_->Read(out, n) : std::fread(out, 1, n, file_);
}

absl::StatusOr<std::string> RecordReader::Read() {
  const auto damaged = [&](absl::string_view what) {
    const std::string zlib_error = zlib_ != nullptr && !zlib_->error().empty()
                                       ? absl::StrCat(" (decompressing: ", zlib_->error(), ")")
                                       : "";
    return absl::DataLossError(
        absl::StrCat("TFRecord file '", path_, "': record at offset ", offset_, " ", what, zlib_error));
  };
  char header[kHeaderSize];
  const size_t got = ReadBytes(header, kHeaderSize);
  const bool at_end = zlib_ != nullptr ? zlib_->error().empty() : std::feof(file_) != 0;
  if (got == 0 && at_end) return absl::OutOfRangeError(absl::StrCat("end of '", path_, "'"));
  if (got != kHeaderSize) return damaged("is truncated (in its length)");
  if (static_cast<uint32_t>(GetLittleEndian(header + 8, 4)) != MaskedCrc(header, 8)) {
    return damaged("has a corrupted length (checksum mismatch)");
  }
  const uint64_t length = GetLittleEndian(header, 8);
  if (length > kMaxRecordBytes) return damaged(absl::StrCat("declares ", length, " bytes"));
  // Grows with what is actually there, so a length past the end allocates nothing huge.
  // Read in place, in chunks of at most 64 KiB.
  std::string record;
  while (record.size() < length) {
    const size_t have = record.size();
    const size_t want = std::min<uint64_t>(size_t{1} << 16, length - have);
    record.resize(have + want);
    const size_t n = ReadBytes(record.data() + have, want);
    record.resize(have + n);
    if (n < want) return damaged(absl::StrCat("is truncated (", record.size(), " of ", length, " bytes)"));
  }
  char footer[kFooterSize];
  if (ReadBytes(footer, kFooterSize) != kFooterSize) return damaged("is truncated (in its checksum)");
  if (static_cast<uint32_t>(GetLittleEndian(footer, 4)) != MaskedCrc(record.data(), record.size())) {
    return damaged("is corrupted (data checksum mismatch)");
  }
  offset_ += kHeaderSize + length + kFooterSize;
  return record;
}

}  // namespace tw::io
