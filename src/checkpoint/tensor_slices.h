// Slices of partitioned variables in TensorFlow's checkpoints: the shape_and_slice specs
// SaveV2/RestoreV2 take (Variable.SaveSliceInfo.spec), and copying a slice's block into or
// out of the whole tensor.
#ifndef TENSORWEAVE_SRC_CHECKPOINT_TENSOR_SLICES_H_
#define TENSORWEAVE_SRC_CHECKPOINT_TENSOR_SLICES_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "tensorweave/status.h"
#include "tensorweave/tensor.h"

namespace tw::checkpoint {

// One dimension of a saved slice; length -1 is the whole dimension.
struct SliceExtent {
  int64_t start = 0, length = -1;
  bool operator==(const SliceExtent& o) const { return start == o.start && length == o.length; }
};

// A spec such as "10 4 0,5:0,4": the whole variable's dims, then its block, one
// "start,length" ("-": the whole dimension) per dim, joined by ':'. "" is the whole tensor.
struct ShapeAndSlice {
  TensorShape full_shape;
  std::vector<SliceExtent> extents;  // empty: the whole tensor
  bool whole() const { return extents.empty(); }
  TensorShape SliceShape() const;
};

// InvalidArgument quoting the spec for a malformed one or a block outside the shape.
absl::StatusOr<ShapeAndSlice> ParseShapeAndSlice(const std::string& spec);
// The spec back in TensorFlow's text.
std::string FormatShapeAndSlice(const ShapeAndSlice& s);

// Copies `slice` (the block at `extents`) into `full`, or the block out of `full`; the
// shapes must agree (callers check).
void CopySliceInto(const Tensor& slice, const std::vector<SliceExtent>& extents, Tensor* full);
Tensor ExtractSlice(const Tensor& full, const std::vector<SliceExtent>& extents);

// The block `spec` names of `saved`, the whole tensor `name` read from checkpoint
// `prefix` (`saved` itself for a whole spec): restoring a shard of a partitioned variable,
// whatever the shards were when it was saved. InvalidArgument naming both shapes when the
// checkpoint's tensor is not of the spec's full shape.
absl::StatusOr<Tensor> SliceOfSaved(Tensor saved, const ShapeAndSlice& spec, const std::string& name,
                                    const std::string& prefix);

// One restore's reads: a saved tensor is read once (read() gives it whole) however many shards
// of its partitioned variable take their block of it (each block is a copy).
class SavedTensorReads {
 public:
  template <typename Read>
  absl::StatusOr<Tensor> Block(const std::string& name, const ShapeAndSlice& spec, const std::string& prefix,
                               Read read) {
    // A whole tensor is read afresh: two outputs must not share a buffer a variable may update in place.
    if (spec.whole()) return read();
    auto it = whole_.find(name);
    if (it == whole_.end()) {
      TW_ASSIGN_OR_RETURN(Tensor value, read());
      it = whole_.emplace(name, std::move(value)).first;
    }
    return SliceOfSaved(it->second, spec, name, prefix);
  }

 private:
  absl::flat_hash_map<std::string, Tensor> whole_;
};

}  // namespace tw::checkpoint

#endif  // TENSORWEAVE_SRC_CHECKPOINT_TENSOR_SLICES_H_
