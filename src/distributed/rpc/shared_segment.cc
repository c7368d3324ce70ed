#include "distributed/rpc/shared_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tw {
namespace {

absl::Status Errno(const char* what, const std::string& name) {
  return absl::InternalError(absl::StrCat(what, " of shared memory ", name, ": ", std::strerror(errno)));
}

// Maps fd's `bytes`, pages populated up front (a fresh segment would fault in each page).
absl::StatusOr<char*> Map(int fd, size_t bytes, bool writable, const std::string& name) {
  if (bytes == 0) return nullptr;
  void* p = mmap(nullptr, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) return Errno("mmap", name);
  return static_cast<char*>(p);
}

}  // namespace

absl::StatusOr<SharedSegment> SharedSegment::Create(const std::string& name, size_t bytes) {
  int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0 && errno == EEXIST) {  // a crashed run's leftover: the run keys have moved on
    shm_unlink(name.c_str());
    fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  }
  if (fd < 0) return Errno("shm_open", name);
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const absl::Status s = Errno("ftruncate", name);
    close(fd);
    shm_unlink(name.c_str());
    return s;
  }
  absl::StatusOr<char*> data = Map(fd, bytes, true, name);
  close(fd);
  if (!data.ok()) {
    shm_unlink(name.c_str());
    return data.status();
  }
  return SharedSegment(name, *data, bytes, true);
}

absl::StatusOr<SharedSegment> SharedSegment::Open(const std::string& name, size_t bytes) {
  const int fd = shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return Errno("shm_open", name);
  struct stat st;
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != bytes) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat("shared memory ", name, " holds ", st.st_size, " bytes where ",
                                                   bytes, " were expected: the members' tensors differ in size"));
  }
  absl::StatusOr<char*> data = Map(fd, bytes, false, name);
  close(fd);
  if (!data.ok()) return data.status();
  return SharedSegment(name, *data, bytes, false);
}

SharedSegment::SharedSegment(SharedSegment&& other) noexcept { *this = std::move(other); }

SharedSegment& SharedSegment::operator=(SharedSegment&& other) noexcept {
  std::swap(name_, other.name_);
  std::swap(data_, other.data_);
  std::swap(bytes_, other.bytes_);
  std::swap(owner_, other.owner_);
  return *this;
}

SharedSegment::~SharedSegment() {
  Unlink();
  if (data_ != nullptr) munmap(data_, bytes_);
}

void SharedSegment::Unlink() {
  if (owner_) shm_unlink(name_.c_str());
  owner_ = false;
}

bool AllLoopback(const std::vector<std::string>& addresses) {
  for (const std::string& a : addresses) {
    const std::string host = a.substr(0, a.rfind(':'));
    if (host != "localhost" && host != "[::1]" && !absl::StartsWith(host, "127.")) return false;
  }
  return !addresses.empty();
}

}  // namespace tw
