// TensorFlow's V2 checkpoint format (a "tensor bundle"), read and written:
//   <prefix>.index                 an SSTable in LevelDB's table format (Debian's libleveldb
//                                  reads and writes it): key "" -> BundleHeaderProto, then one
//                                  key per tensor, ascending -> BundleEntryProto (dtype, shape,
//                                  shard, offset, size, masked CRC-32C of the bytes)
//   <prefix>.data-00000-of-00001   the tensors' little-endian bytes back to back
// as TensorFlow's tf.train.Saver (write_version V2), tf.train.load_checkpoint and
// BundleReader/BundleWriter use it. A partitioned variable is saved as TensorFlow saves it:
// its entry lists the slices and each slice has a key of its own (the name and the
// slice's extents in TensorFlow's OrderedCode); it is read whole.
#ifndef TENSORWEAVE_SRC_CHECKPOINT_TENSOR_BUNDLE_H_
#define TENSORWEAVE_SRC_CHECKPOINT_TENSOR_BUNDLE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tensorweave/tensor.h"
#include "checkpoint/checkpoint_writer.h"
#include "checkpoint/tensor_slices.h"

namespace tw::checkpoint {

std::string BundleIndexPath(const std::string& prefix);  // <prefix>.index
std::string BundleDataPath(const std::string& prefix, int shard, int num_shards);
// True when <prefix>.index exists (a V2 checkpoint rather than a TWCKPT01 file).
bool IsTensorBundle(const std::string& prefix);
// Deletes the checkpoint at `prefix` in either format: its index first, then its data
// (or the TWCKPT01 file). Files already gone are no error; nothing is reported.
void RemoveCheckpoint(const std::string& prefix);

// A block of the variable `name` (a shard of a partitioned variable), saved as a slice.
struct NamedSlice {
  std::string name;
  ShapeAndSlice spec;  // not whole; `tensor` has its SliceShape()
  Tensor tensor;
};

// Writes `tensors` and `slices` as one data shard and the index, each through a temporary
// file renamed into place: the data first, the index last (a stale index of the same
// prefix is removed before), so an index names complete data. InvalidArgument for an empty
// or duplicate name, a dtype that cannot be saved, or slices of one name that disagree on
// dtype or full shape, repeat a block or do not tile the variable.
absl::Status WriteTensorBundle(const std::string& prefix, absl::Span<const NamedTensor> tensors,
                               absl::Span<const NamedSlice> slices = {});

struct BundleEntryInfo {
  std::string name;  // the tensor's key
  DType dtype;
  TensorShape shape;
  int shard = 0;
  int64_t offset = 0, size = 0;
  uint32_t masked_crc = 0;
  // A partitioned variable: its slices (each a vector of per-dim extents); no data here.
  std::vector<std::vector<SliceExtent>> slices;
};

// The key TensorFlow stores a slice of `name` under (checkpoint::EncodeTensorNameSlice).
std::string SliceKey(const std::string& name, const std::vector<SliceExtent>& extents);

class TensorBundleReader {
 public:
  // Reads and validates the whole index (header, every entry's dtype, shape, shard and
  // size). NotFound when <prefix>.index does not exist; DataLoss naming the file when the
  // table or a record is damaged; Unimplemented for big-endian bundles, string tensors and
  // partitioned variables.
  static absl::StatusOr<std::unique_ptr<TensorBundleReader>> Open(const std::string& prefix);

  const std::string& prefix() const { return prefix_; }
  // The tensors, ascending by key (the slices of partitioned variables are not listed:
  // Read assembles the whole variable).
  const std::vector<BundleEntryInfo>& entries() const { return entries_; }
  // NotFound ("checkpoint '<prefix>' has no tensor '<key>'") when absent.
  absl::StatusOr<const BundleEntryInfo*> Find(const std::string& key) const;
  // Reads the bytes from the data shard and checks their length and CRC (DataLoss naming
  // the shard file and the key otherwise).
  absl::StatusOr<Tensor> Read(const BundleEntryInfo& entry) const;
  absl::StatusOr<Tensor> Read(const std::string& key) const;

 private:
  explicit TensorBundleReader(std::string prefix) : prefix_(std::move(prefix)) {}

  absl::StatusOr<Tensor> ReadData(const BundleEntryInfo& entry) const;
  absl::StatusOr<Tensor> ReadSliced(const BundleEntryInfo& entry) const;

  std::string prefix_;
  int num_shards_ = 1;
  std::vector<BundleEntryInfo> entries_;
  absl::flat_hash_map<std::string, size_t> by_key_;
  absl::flat_hash_map<std::string, BundleEntryInfo> slice_entries_;  // by SliceKey
};

}  // namespace tw::checkpoint

#endif  // TENSORWEAVE_SRC_CHECKPOINT_TENSOR_BUNDLE_H_
