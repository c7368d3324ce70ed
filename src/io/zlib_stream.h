// zlib streams over a FILE*, for TFRecord files with TensorFlow's GZIP or ZLIB compression:
// the whole file is one deflate stream of the uncompressed file's bytes, with the zlib
// header and trailer (ZLIB) or the gzip ones (GZIP: zlib's windowBits + 16), as TensorFlow's
// ZlibOutputBuffer writes and its ZlibInputStream reads.
#ifndef TENSORWEAVE_SRC_IO_ZLIB_STREAM_H_
#define TENSORWEAVE_SRC_IO_ZLIB_STREAM_H_

#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tw::io {

enum class ZlibFormat { kZlib, kGzip };

class ZlibWriter {
 public:
  // Compresses into `file` (not owned). Internal error when zlib cannot start.
  static absl::StatusOr<std::unique_ptr<ZlibWriter>> Create(FILE* file, ZlibFormat format);
  ~ZlibWriter();
  ZlibWriter(const ZlibWriter&) = delete;
  ZlibWriter& operator=(const ZlibWriter&) = delete;

  // Each returns a message naming zlib's or the file's error, empty when fine.
  std::string Write(absl::string_view data);
  std::string Flush();   // everything written so far decodable (Z_SYNC_FLUSH), then fflush
  std::string Finish();  // the stream's end (Z_FINISH); nothing may be written after it

 private:
  struct State;
  explicit ZlibWriter(FILE* file);
  std::string Deflate(absl::string_view data, int flush);
  FILE* file_;
  std::unique_ptr<State> state_;
};

class ZlibReader {
 public:
  static absl::StatusOr<std::unique_ptr<ZlibReader>> Create(FILE* file, ZlibFormat format);
  ~ZlibReader();
  ZlibReader(const ZlibReader&) = delete;
  ZlibReader& operator=(const ZlibReader&) = delete;

  // Up to `n` decompressed bytes into `out`; fewer only at the stream's end or on damage
  // (then error() says what: bad data, or the file ends inside the stream).
  size_t Read(char* out, size_t n);
  const std::string& error() const { return error_; }

 private:
  struct State;
  explicit ZlibReader(FILE* file);
  FILE* file_;
  std::unique_ptr<State> state_;
  std::string error_;
};

}  // namespace tw::io

#endif  // TENSORWEAVE_SRC_IO_ZLIB_STREAM_H_
