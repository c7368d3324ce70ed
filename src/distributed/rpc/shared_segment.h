// A POSIX shared-memory segment (shm_open + mmap) for the collectives of members on one host:
// the owner creates it and writes its tensor there, the others map it to read. RAII: the
// mapping goes with the object; the owner unlinks the name once every member mapped it (the
// memory lives on while mapped), or on destruction at the latest.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_SHARED_SEGMENT_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_SHARED_SEGMENT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tw {

class SharedSegment {
 public:
  // A new segment of `bytes` named `name` ("/..."), mapped read-write. A leftover of that
  // name (a crashed run's) is replaced.
  static absl::StatusOr<SharedSegment> Create(const std::string& name, size_t bytes);
  // Another member's segment, mapped read-only; it must hold exactly `bytes`.
  static absl::StatusOr<SharedSegment> Open(const std::string& name, size_t bytes);

  SharedSegment() = default;  // none: data() is null
  SharedSegment(SharedSegment&& other) noexcept;
  SharedSegment& operator=(SharedSegment&& other) noexcept;
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;
  ~SharedSegment();

  char* data() const { return data_; }
  // Removes the name (owner only); the mappings stay valid.
  void Unlink();

 private:
  SharedSegment(std::string name, char* data, size_t bytes, bool owner)
      : name_(std::move(name)), data_(data), bytes_(bytes), owner_(owner) {}

  std::string name_;
  char* data_ = nullptr;
  size_t bytes_ = 0;
  bool owner_ = false;  // created here: unlinks its name
};

// Whether every address ("host:port") names this machine's loopback, so that the tasks
// share its /dev/shm.
bool AllLoopback(const std::vector<std::string>& addresses);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_SHARED_SEGMENT_H_
