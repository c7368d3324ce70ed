// TensorFlow's StridedSlice semantics (masks, ellipsis, new and shrunk axes, negative
// strides), shared by the op's shape function and its kernel.
#include <algorithm>

#include "ops/array_ops_util.h"

namespace tw::array_util {
namespace {

absl::Status Invalid(auto&&... parts) {
  return absl::InvalidArgumentError(absl::StrCat(parts...));
}

}  // namespace

absl::Status ValidateStridedSlice(const PartialShape& input, const DimVector* begin,
                                  const DimVector* end, const DimVector& strides,
                                  const StridedSliceMasks& masks, StridedSliceResult* out) {
  const int64_t n = static_cast<int64_t>(strides.size());
  if ((begin && static_cast<int64_t>(begin->size()) != n) ||
      (end && static_cast<int64_t>(end->size()) != n) || n >= 32) {
    return Invalid("Expected begin, end, and strides to be 1-D tensors of equal size (at most 31), "
                   "but got sizes ", begin ? absl::StrCat(begin->size()) : "?", ", ",
                   end ? absl::StrCat(end->size()) : "?", " and ", n);
  }
  const int64_t ellipsis = masks.ellipsis_mask;
  if (ellipsis != 0 && (ellipsis & (ellipsis - 1)) != 0) {
    return Invalid("Multiple ellipses in slice spec not allowed");
  }
  // Step 1: the sparse spec, with an implicit ellipsis at the end when none is given.
  int64_t sparse_dims = n, sparse_ellipsis = ellipsis, new_after_ellipsis = 0;
  bool seen = false;
  for (int64_t i = 0; i < n; ++i) {
    if (seen && ((int64_t{1} << i) & masks.new_axis_mask)) ++new_after_ellipsis;
    if ((int64_t{1} << i) & ellipsis) seen = true;
  }
  if (!seen) sparse_ellipsis |= int64_t{1} << sparse_dims++;

  // Step 2: expand to one entry per input dim. kNewAxis/kShrink mark final-shape entries.
  constexpr int64_t kNewAxis = -1, kShrink = -2;
  const int dims = input.rank();
  DimVector b(dims, 0), e(dims, 0), s(dims, 1);
  int64_t begin_mask = 0, end_mask = 0, shrink_mask = 0;
  DimVector gather;  // For each final dim: a dense dim, or kNewAxis / kShrink.
  int full = 0;
  for (int64_t i = 0; i < sparse_dims; ++i) {
    const int64_t bit = int64_t{1} << i;
    if (bit & sparse_ellipsis) {
      const int64_t next = std::min<int64_t>(dims - (sparse_dims - i) + 1 + new_after_ellipsis, dims);
      for (; full < next; ++full) {
        begin_mask |= int64_t{1} << full;
        end_mask |= int64_t{1} << full;
        gather.push_back(full);
      }
    } else if (bit & masks.new_axis_mask) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims) {
        return Invalid("Index out of range using input dim ", full, "; input has only ", dims,
                       " dims");
      }
      if (begin) b[full] = (*begin)[i];
      if (end) e[full] = (*end)[i];
      s[full] = strides[i];
      if (masks.begin_mask & bit) begin_mask |= int64_t{1} << full;
      if (masks.end_mask & bit) end_mask |= int64_t{1} << full;
      if (masks.shrink_axis_mask & bit) {
        gather.push_back(kShrink);
        shrink_mask |= int64_t{1} << full;
      } else {
        gather.push_back(full);
      }
      ++full;
    }
  }

  // Step 3: canonical ranges, bounds checks and the size of each dense dim.
  out->is_identity = true;
  out->processing_dims.clear();
  const bool known = begin != nullptr && end != nullptr;
  for (int i = 0; i < dims; ++i) {
    const int64_t bit = int64_t{1} << i;
    const int64_t stride = s[i], dim = input.dim(i);
    if (stride == 0) return Invalid("strides[", i, "] must be non-zero");
    const bool shrink = shrink_mask & bit;
    if (shrink && stride < 0) return Invalid("only stride 1 allowed on non-range indexing.");
    if (dim < 0) {
      out->processing_dims.push_back(shrink ? 1 : -1);
      out->is_identity = false;
      continue;
    }
    const bool masked_begin = begin_mask & bit, masked_end = end_mask & bit;
    const int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_end) {
      if (masked) return (stride > 0) != is_end ? lo : hi;
      const int64_t fwd = x < 0 ? dim + x : x;
      return std::clamp(fwd, lo, hi);
    };
    int64_t length = -1;
    bool known_length = false;
    if (known) {
      if (shrink) {
        const int64_t fwd = b[i] < 0 ? dim + b[i] : b[i];
        if (fwd < 0 || fwd >= dim) {
          return Invalid("slice index ", b[i], " of dimension ", i, " out of bounds.");
        }
        b[i] = fwd;
        e[i] = fwd + 1;
      } else {
        b[i] = canonical(b[i], masked_begin, false);
        e[i] = canonical(e[i], masked_end, true);
      }
      out->is_identity &= stride == 1 && b[i] == 0 && e[i] == dim;
      length = e[i] - b[i];
      known_length = true;
    } else {
      out->is_identity &= stride == 1 && masked_begin && masked_end;
      if (shrink) {
        length = 1;
        known_length = true;
      } else if (masked_begin && masked_end) {
        length = stride < 0 ? -dim : dim;
        known_length = true;
      }
    }
    int64_t size = -1;
    if (known_length) {
      if (length == 0 || (length < 0) != (stride < 0)) {
        size = 0;
      } else {
        size = length / stride + (length % stride != 0 ? 1 : 0);
      }
    }
    out->processing_dims.push_back(size);
  }

  // Step 4: the final shape, with new axes added and shrunk axes dropped.
  out->final_dims.clear();
  for (int64_t g : gather) {
    if (g >= 0) {
      out->final_dims.push_back(out->processing_dims[g]);
    } else if (g == kNewAxis) {
      out->final_dims.push_back(1);
    }
  }
  if (out->final_dims.size() > kMaxRank) {
    return Invalid("StridedSlice output rank ", out->final_dims.size(), " exceeds the limit of ",
                   kMaxRank);
  }
  out->begin = std::move(b);
  out->end = std::move(e);
  out->strides = std::move(s);
  return absl::OkStatus();
}

}  // namespace tw::array_util
