// A file written under a temporary name and renamed over its final path on Commit(), so
// that a reader sees the old file or the whole new one, never a torn one (checkpoints).
#ifndef TENSORWEAVE_SRC_CHECKPOINT_ATOMIC_FILE_H_
#define TENSORWEAVE_SRC_CHECKPOINT_ATOMIC_FILE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tw::checkpoint {

// Dropped (closed and unlinked) when destroyed uncommitted.
class AtomicFile {
 public:
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  // Creates "<path>.tmp-<random>". NotFound naming the directory when it does not exist;
  // other errors by errno.
  static absl::StatusOr<std::unique_ptr<AtomicFile>> Create(const std::string& path);

  // Buffers small pieces; large ones go straight to the file.
  absl::Status Append(const void* data, size_t n);
  absl::Status Append(absl::string_view s) { return Append(s.data(), s.size()); }

  // Flushes, fsyncs, renames over the path and fsyncs the directory.
  absl::Status Commit();

 private:
  static constexpr size_t kBufferSize = size_t{1} << 20;

  AtomicFile(std::string path, std::string tmp, int fd)
      : path_(std::move(path)), tmp_path_(std::move(tmp)), fd_(fd) {}
  absl::Status Flush();
  absl::Status WriteAll(const void* data, size_t n);

  std::string path_, tmp_path_;
  int fd_;
  bool committed_ = false;
  std::string buffer_;
};

}  // namespace tw::checkpoint

#endif  // TENSORWEAVE_SRC_CHECKPOINT_ATOMIC_FILE_H_
