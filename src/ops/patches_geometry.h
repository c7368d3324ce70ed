// The geometry of ExtractImagePatches: its attrs ksizes, strides, rates and padding read and
// checked with TensorFlow's messages, and each spatial dim's output size and padding computed
// as TensorFlow's GetWindowedOutputSize does. Shared by the schema
// (array_ops_extract_patches.cc) and the kernel (kernels/cpu/extract_patches_kernels.cc).
#ifndef TENSORWEAVE_SRC_OPS_PATCHES_GEOMETRY_H_
#define TENSORWEAVE_SRC_OPS_PATCHES_GEOMETRY_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "graph/attr_value.h"

namespace tw::patches {

struct PatchesAttrs {
  int64_t k_h = 1, k_w = 1, stride_h = 1, stride_w = 1, rate_h = 1, rate_w = 1;
  bool same = false;  // SAME padding, else VALID
};
// InvalidArgument for lists without 4 values or a padding other than SAME/VALID (the
// schema's checks). The lists' entries are checked by CheckPatchesEntries.
absl::StatusOr<PatchesAttrs> ReadPatchesAttrs(const AttrMap& attrs);
// TensorFlow's kernel checks: Unimplemented when a list's batch or depth entry is not 1,
// OutOfRange when a spatial entry is below 1.
absl::Status CheckPatchesEntries(const AttrMap& attrs);

struct PatchesDim {
  int64_t out = 0, pad_before = 0;
};
// One spatial dim: the window k dilated by `rate`, moved by `stride`. InvalidArgument with
// TensorFlow's text when the output size would be negative (VALID, window past the input).
absl::StatusOr<PatchesDim> ComputePatchesDim(int64_t in, int64_t k, int64_t stride, int64_t rate, bool same);

}  // namespace tw::patches

#endif  // TENSORWEAVE_SRC_OPS_PATCHES_GEOMETRY_H_
