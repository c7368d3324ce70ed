#include "checkpoint/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tensorweave/status.h"
#include "checkpoint/checkpoint_format.h"
#include "checkpoint/checkpoint_writer.h"

namespace tw::checkpoint {

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !tmp_path_.empty()) ::unlink(tmp_path_.c_str());
}

absl::StatusOr<std::unique_ptr<AtomicFile>> AtomicFile::Create(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("checkpoint path is empty");
  absl::BitGen gen;
  std::string tmp = absl::StrFormat("%s.tmp-%016x", path, absl::Uniform<uint64_t>(gen));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    const std::string dir = DirName(path);
    struct stat st;
    if (err == ENOENT || err == ENOTDIR) {
      if (::stat(dir.c_str(), &st) != 0) {
        return absl::NotFoundError(
            absl::StrCat("cannot write '", path, "': directory '", dir, "' does not exist"));
      }
      if (!S_ISDIR(st.st_mode)) {
        return absl::NotFoundError(absl::StrCat("cannot write '", path, "': '", dir, "' is not a directory"));
      }
    }
    return ErrnoStatus(err, "create", tmp);
  }
  return std::unique_ptr<AtomicFile>(new AtomicFile(path, std::move(tmp), fd));
}

absl::Status AtomicFile::Append(const void* data, size_t n) {
  if (buffer_.size() + n <= kBufferSize) {
    buffer_.append(static_cast<const char*>(data), n);
    return absl::OkStatus();
  }
  TW_RETURN_IF_ERROR(Flush());
  if (n <= kBufferSize) {
    buffer_.append(static_cast<const char*>(data), n);
    return absl::OkStatus();
  }
  return WriteAll(data, n);
}

absl::Status AtomicFile::Commit() {
  TW_RETURN_IF_ERROR(Flush());
  if (::fsync(fd_) != 0) return ErrnoStatus(errno, "fsync", tmp_path_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return ErrnoStatus(errno, "close", tmp_path_);
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    return ErrnoStatus(errno, absl::StrCat("rename '", tmp_path_, "' to"), path_);
  }
  committed_ = true;
  // Makes the rename itself durable; a failure here does not undo the write.
  const std::string dir = DirName(path_);
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return absl::OkStatus();
}

absl::Status AtomicFile::Flush() {
  TW_RETURN_IF_ERROR(WriteAll(buffer_.data(), buffer_.size()));
  buffer_.clear();
  return absl::OkStatus();
}

absl::Status AtomicFile::WriteAll(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "write", tmp_path_);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return absl::OkStatus();
}

}  // namespace tw::checkpoint
