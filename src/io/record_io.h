// TFRecord files, TensorFlow's record container (tf.io.TFRecordWriter, tf.data.TFRecordDataset,
// and the event files TensorBoard reads). Each record is
//   uint64 length, uint32 masked CRC-32C of those 8 bytes, length bytes of data,
//   uint32 masked CRC-32C of the data
// all little-endian. With TensorFlow's "GZIP" or "ZLIB" compression the whole file is one
// compressed stream of those bytes (zlib_stream.h).
#ifndef TENSORWEAVE_SRC_IO_RECORD_IO_H_
#define TENSORWEAVE_SRC_IO_RECORD_IO_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "io/zlib_stream.h"

namespace tw::io {

// "" (none), "ZLIB" or "GZIP"; anything else InvalidArgument naming the accepted values.
absl::Status CheckRecordCompression(absl::string_view compression_type);

class RecordWriter {
 public:
  // Creates or truncates `path`. NotFound when its directory does not exist.
  static absl::StatusOr<std::unique_ptr<RecordWriter>> Open(const std::string& path,
                                                            absl::string_view compression_type = "");
  ~RecordWriter();  // Closes (errors then are lost: call Close to see them).
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  absl::Status Write(absl::string_view record);
  absl::Status Flush();
  absl::Status Close();  // FailedPrecondition for writes after it.

 private:
  RecordWriter(std::string path, FILE* file) : path_(std::move(path)), file_(file) {}
  absl::Status WriteBytes(absl::string_view bytes);
  std::string path_;
  FILE* file_;
  std::unique_ptr<ZlibWriter> zlib_;  // set for a compressed file
};

// Reads records in order, checking both CRCs of every record.
class RecordReader {
 public:
  static absl::StatusOr<std::unique_ptr<RecordReader>> Open(const std::string& path,
                                                            absl::string_view compression_type = "");
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // The next record; OutOfRange at the end of the file; DataLoss naming the file and the
  // record's offset when it is truncated or fails a checksum.
  absl::StatusOr<std::string> Read();
  uint64_t offset() const { return offset_; }
  // Moves to `offset`, an offset() this file had (the start of a record): a restored
  // tf.data iterator goes on from there. Unimplemented for a compressed file (its stream
  // cannot seek: read past the records instead); OutOfRange past the end of the file.
  absl::Status Seek(uint64_t offset);

 private:
  RecordReader(std::string path, FILE* file) : path_(std::move(path)), file_(file) {}
  size_t ReadBytes(char* out, size_t n);  // fewer than n: end of file or a zlib error (zlib_->error())
  std::string path_;
  FILE* file_;
  std::unique_ptr<ZlibReader> zlib_;  // set for a compressed file
  uint64_t offset_ = 0;
};

}  // namespace tw::io

#endif  // TENSORWEAVE_SRC_IO_RECORD_IO_H_
