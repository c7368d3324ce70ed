// Reads a checkpoint file (format: checkpoint_format.h), validating as it goes.
#ifndef TENSORWEAVE_SRC_CHECKPOINT_CHECKPOINT_READER_H_
#define TENSORWEAVE_SRC_CHECKPOINT_CHECKPOINT_READER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "tensorweave/tensor.h"
#include "checkpoint/checkpoint_format.h"

namespace tw::checkpoint {

class CheckpointReader {
 public:
  // Opens `path` and validates its header, footer and index (not yet the tensor data,
  // whose checksums Read checks). NotFound when the file does not exist; DataLoss
  // ("checkpoint '<path>' is corrupted: ..." / "... is truncated: ...") when it is damaged;
  // Unimplemented for a newer format version.
  static absl::StatusOr<std::unique_ptr<CheckpointReader>> Open(const std::string& path);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  const std::string& path() const { return path_; }
  // In file order.
  const std::vector<EntryInfo>& entries() const { return entries_; }
  // NotFound ("checkpoint '<path>' has no tensor '<name>'") when absent.
  absl::StatusOr<const EntryInfo*> Find(const std::string& name) const;
  // Reads one tensor, checking its entry header against the index, its checksum and (for
  // bool) that every byte is 0 or 1.
  absl::StatusOr<Tensor> Read(const EntryInfo& entry) const;
  absl::StatusOr<Tensor> Read(const std::string& name) const;

 private:
  CheckpointReader(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), file_size_(size) {}
  absl::Status ReadAt(uint64_t offset, void* dst, size_t n) const;
  absl::Status ParseHeaderAndFooter(uint32_t* entry_count, uint64_t* index_offset,
                                    uint64_t* index_size, uint32_t* index_crc);
  absl::Status ParseIndex(uint32_t entry_count, uint64_t index_offset, uint64_t index_size,
                          uint32_t index_crc);

  std::string path_;
  int fd_;
  uint64_t file_size_;
  std::vector<EntryInfo> entries_;
  absl::flat_hash_map<std::string, size_t> by_name_;
};

}  // namespace tw::checkpoint

#endif  // TENSORWEAVE_SRC_CHECKPOINT_CHECKPOINT_READER_H_
