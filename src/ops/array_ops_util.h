// Shape logic shared by the array ops' shape functions and their CPU kernels, so an error
// found while building the graph reads the same as the one found at run time. Dims of
// -1 mean "unknown" (shape inference only); kernels always pass known dims.
#ifndef TENSORWEAVE_SRC_OPS_ARRAY_OPS_UTIL_H_
#define TENSORWEAVE_SRC_OPS_ARRAY_OPS_UTIL_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "tensorweave/tensor_shape.h"

namespace tw::array_util {

// Maps `axis` in [-rank, rank) to [0, rank); the error names `what` ("axis", "split_dim").
absl::StatusOr<int> CanonicalAxis(int64_t axis, int rank, const char* what);

// a * b for dims >= 0, or kMaxTensorElements + 1 when the product is larger.
int64_t SaturatingMul(int64_t a, int64_t b);

// Reshape's output dims: one -1 is inferred from the input's dims (it stays unknown
// while any input dim is).
absl::StatusOr<DimVector> ReshapeDims(const PartialShape& input,
                                      absl::Span<const int64_t> requested);

// Squeeze: the dims left after removing `squeeze_dims` (or every size-1 dim when empty).
// Unknown rank, or unknown dims with an empty list, give an unknown-rank result.
absl::StatusOr<PartialShape> SqueezeShape(const PartialShape& input,
                                          absl::Span<const int64_t> squeeze_dims);

// ExpandDims: the position of the new dim for `dim` in [-rank-1, rank].
absl::StatusOr<int> ExpandDimsIndex(int64_t dim, int rank);

// Slice: checks begin/size against dims and resolves size -1 ("to the end").
absl::StatusOr<DimVector> SliceSizes(absl::Span<const int64_t> dims,
                                     absl::Span<const int64_t> begin,
                                     absl::Span<const int64_t> size);

struct StridedSliceMasks {
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
          shrink_axis_mask = 0;
};
struct StridedSliceResult {
  DimVector processing_dims;      // One per input dim: what the strided walk produces.
  DimVector final_dims;           // After new axes are added and shrunk axes removed.
  DimVector begin, end, strides;  // Dense per input dim; begin/end canonical when given.
  bool is_identity = false;       // Takes every element in order: the output may share.
};
// TensorFlow's StridedSlice semantics (in array_ops_strided_slice.cc). `input` must have
// a known rank; begin and end may be null while unknown (shape inference), then unknown
// sizes come out as -1.
absl::Status ValidateStridedSlice(const PartialShape& input, const DimVector* begin,
                                  const DimVector* end, const DimVector& strides,
                                  const StridedSliceMasks& masks, StridedSliceResult* out);

// Concat: the output shape of joining `inputs` along `axis` (not yet canonical).
absl::StatusOr<PartialShape> ConcatShape(absl::Span<const PartialShape> inputs, int64_t axis);
// Pack: the output shape of stacking `inputs` along a new `axis`.
absl::StatusOr<PartialShape> PackShape(absl::Span<const PartialShape> inputs, int64_t axis);
// Unpack: the canonical axis, after checking that dim `axis` of `input` equals num.
absl::StatusOr<int> UnpackAxis(const PartialShape& input, int64_t axis, int64_t num);
// Split: the size of each piece (-1 when the dim is unknown).
absl::StatusOr<int64_t> SplitSize(int64_t dim_size, int64_t split_dim, int64_t num_split);
// SplitV: the sizes with one -1 resolved; dim_size -1 when unknown.
absl::StatusOr<DimVector> SplitVSizes(absl::Span<const int64_t> sizes, int64_t dim_size,
                                      int64_t num_split);

// Transpose: checks that perm is a permutation of [0, rank).
absl::Status CheckPermutation(absl::Span<const int64_t> perm, int rank);
// Tile: output dims (unknown input dims stay unknown).
absl::StatusOr<DimVector> TiledDims(absl::Span<const int64_t> dims,
                                    absl::Span<const int64_t> multiples);
// BroadcastTo: checks `input` broadcasts to `target` and that target is a valid shape.
absl::Status CheckBroadcastTo(const PartialShape& input, absl::Span<const int64_t> target);
// BroadcastGradientArgs: the axes to reduce each input's gradient over.
absl::Status BroadcastGradientArgs(absl::Span<const int64_t> s0, absl::Span<const int64_t> s1,
                                   DimVector* r0, DimVector* r1);
// Fill: the shape `dims` as a checked TensorShape.
absl::StatusOr<TensorShape> FillShape(absl::Span<const int64_t> dims);
// OneHot: the canonical axis of the new depth dim for indices of rank `indices_rank`.
absl::StatusOr<int> OneHotAxis(int64_t axis, int indices_rank);

// The number of elements of Range(start, limit, delta), as TensorFlow computes it.
template <typename T>
absl::StatusOr<int64_t> RangeSize(T start, T limit, T delta) {
  if (delta == 0) return absl::InvalidArgumentError(absl::StrCat("Requires delta != 0: ", delta));
  if (delta > 0 && start > limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("Requires start <= limit when delta > 0: ", start, "/", limit));
  }
  if (delta < 0 && start < limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("Requires start >= limit when delta < 0: ", start, "/", limit));
  }
  int64_t size;
  if constexpr (std::is_floating_point_v<T>) {
    const T n = std::ceil(std::abs((limit - start) / delta));
    if (!(n <= static_cast<T>(kMaxTensorElements))) {  // Also catches NaN and infinity.
      return absl::InvalidArgumentError(absl::StrCat(
          "Requires ((limit - start) / delta) <= ", kMaxTensorElements, ", got ", n));
    }
    size = static_cast<int64_t>(n);
  } else {
    // |limit - start| in unsigned arithmetic cannot overflow.
    const uint64_t diff = delta > 0 ? uint64_t(limit) - uint64_t(start)
                                    : uint64_t(start) - uint64_t(limit);
    const uint64_t step = delta > 0 ? uint64_t(delta) : uint64_t(0) - uint64_t(delta);
    const uint64_t n = diff / step + (diff % step != 0 ? 1 : 0);
    if (n > static_cast<uint64_t>(kMaxTensorElements)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Requires ((limit - start) / delta) <= ", kMaxTensorElements, ", got ", n));
    }
    size = static_cast<int64_t>(n);
  }
  return size;
}

}  // namespace tw::array_util

#endif  // TENSORWEAVE_SRC_OPS_ARRAY_OPS_UTIL_H_
