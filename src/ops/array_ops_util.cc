#include "ops/array_ops_util.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "tensorweave/status.h"

namespace tw::array_util {
namespace {

std::string Dims(absl::Span<const int64_t> dims) { return PartialShape(dims).DebugString(); }

absl::Status Invalid(auto&&... parts) {
  return absl::InvalidArgumentError(absl::StrCat(parts...));
}

}  // namespace

absl::StatusOr<int> CanonicalAxis(int64_t axis, int rank, const char* what) {
  if (axis < -rank || axis >= rank) {
    return Invalid(what, " ", axis, " is out of range for a tensor of rank ", rank,
                   " (expected -", rank, " <= ", what, " < ", rank, ")");
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

int64_t SaturatingMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > kMaxTensorElements || b > kMaxTensorElements / a) return kMaxTensorElements + 1;
  return std::min(a * b, kMaxTensorElements + 1);
}

absl::StatusOr<DimVector> ReshapeDims(const PartialShape& input,
                                      absl::Span<const int64_t> requested) {
  if (requested.size() > kMaxRank) {
    return Invalid("requested shape has rank ", requested.size(), ", more than the limit of ",
                   kMaxRank);
  }
  int unknown = -1;
  bool has_zero = false;
  int64_t product = 1;  // Of the requested sizes other than -1 and 0.
  for (int i = 0; i < static_cast<int>(requested.size()); ++i) {
    const int64_t d = requested[i];
    if (d == -1) {
      if (unknown >= 0) {
        return Invalid("Only one input size may be -1, not both ", unknown, " and ", i);
      }
      unknown = i;
    } else if (d < 0) {
      return Invalid("Size ", i, " must be non-negative, not ", d);
    } else if (d == 0) {
      has_zero = true;
    } else {
      product = SaturatingMul(product, d);
    }
  }
  DimVector out(requested.begin(), requested.end());
  const int64_t input_elements = input.num_elements();
  if (input_elements < 0) return out;  // The -1 (if any) stays unknown.
  if (unknown >= 0) {
    // As TensorFlow does: with a 0 among the requested sizes, the input's zero dims are
    // left out so the -1 can still be inferred from the others ([0,3] -> [3,-1,0]).
    int64_t elements = 1;
    bool input_has_zero = false;
    for (int64_t d : input.dims()) {
      if (d > 0 || !has_zero) {
        elements *= d;
      } else {
        input_has_zero = true;
      }
    }
    if (!input_has_zero && elements % product != 0) {
      return Invalid("Input to reshape is a tensor with ", elements,
                     " values, but the requested shape requires a multiple of ", product);
    }
    out[unknown] = elements / product;
  }
  int64_t total = 1;
  for (int64_t d : out) total = SaturatingMul(total, d);
  if (total != input_elements) {
    if (total > kMaxTensorElements) {
      return Invalid("Input to reshape is a tensor with ", input_elements,
                     " values, but the requested shape ", Dims(requested), " has more than ",
                     kMaxTensorElements);
    }
    return Invalid("Input to reshape is a tensor with ", input_elements,
                   " values, but the requested shape has ", total);
  }
  return out;
}

absl::StatusOr<PartialShape> SqueezeShape(const PartialShape& input,
                                          absl::Span<const int64_t> squeeze_dims) {
  if (!input.known_rank()) return PartialShape::UnknownRank();
  const int rank = input.rank();
  std::vector<bool> drop(rank, false);
  if (squeeze_dims.empty()) {
    for (int i = 0; i < rank; ++i) {
      if (input.dim(i) < 0) return PartialShape::UnknownRank();  // Might be 1, or not.
      drop[i] = input.dim(i) == 1;
    }
  }
  for (int64_t a : squeeze_dims) {
    if (a < -rank || a >= rank) {
      return Invalid("Tried to squeeze dim index ", a, " for tensor with ", rank, " dimensions.");
    }
    const int c = static_cast<int>(a < 0 ? a + rank : a);
    if (input.dim(c) != 1 && input.dim(c) != -1) {
      return Invalid("Can not squeeze dim[", c, "], expected a dimension of 1, got ",
                     input.dim(c));
    }
    drop[c] = true;
  }
  DimVector out;
  for (int i = 0; i < rank; ++i)
    if (!drop[i]) out.push_back(input.dim(i));
  return PartialShape(out);
}

absl::StatusOr<int> ExpandDimsIndex(int64_t dim, int rank) {
  if (dim < -rank - 1 || dim > rank) {
    return Invalid("Tried to expand dim index ", dim, " for tensor with ", rank, " dimensions.");
  }
  if (rank + 1 > kMaxRank) {
    return Invalid("ExpandDims would give rank ", rank + 1, ", more than the limit of ", kMaxRank);
  }
  return static_cast<int>(dim < 0 ? dim + rank + 1 : dim);
}

absl::StatusOr<DimVector> SliceSizes(absl::Span<const int64_t> dims,
                                     absl::Span<const int64_t> begin,
                                     absl::Span<const int64_t> size) {
  if (begin.size() != dims.size() || size.size() != dims.size()) {
    return Invalid("Expected begin and size arguments to be 1-D tensors of size ", dims.size(),
                   ", but got shapes [", begin.size(), "] and [", size.size(), "] instead.");
  }
  DimVector out(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i], b = begin[i];
    int64_t s = size[i];
    if (d < 0) {  // Unknown dim: only the obvious errors can be caught.
      if (b < 0) return Invalid("Expected begin[", i, "] >= 0, but got ", b);
      if (s < -1) return Invalid("Expected size[", i, "] >= -1, but got ", s);
      out[i] = s;
      continue;
    }
    if (b < 0 || b > d) return Invalid("Expected begin[", i, "] in [0, ", d, "], but got ", b);
    if (s == -1) s = d - b;
    if (s < 0 || s > d - b) {
      return Invalid("Expected size[", i, "] in [0, ", d - b, "], but got ", s);
    }
    out[i] = s;
  }
  return out;
}

absl::StatusOr<PartialShape> ConcatShape(absl::Span<const PartialShape> inputs, int64_t axis) {
  int ref = -1;
  for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
    if (inputs[i].known_rank()) {
      ref = i;
      break;
    }
  }
  if (ref < 0) return PartialShape::UnknownRank();
  const int rank = inputs[ref].rank();
  if (rank == 0) return Invalid("Can't concatenate scalars (use tf.stack instead)");
  if (axis < -rank || axis >= rank) {
    return Invalid("Expected concatenating dimensions in the range [", -rank, ", ", rank,
                   "), but got ", axis);
  }
  const int c = static_cast<int>(axis < 0 ? axis + rank : axis);
  DimVector out(inputs[ref].dims().begin(), inputs[ref].dims().end());
  std::vector<int> source(rank, ref);  // Which input each known dim came from.
  int64_t axis_size = 0;
  for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
    const PartialShape& in = inputs[i];
    if (!in.known_rank()) {
      axis_size = -1;
      continue;
    }
    if (in.rank() != rank) {
      return Invalid("Ranks of all input tensors should match: shape[", ref,
                     "] = ", inputs[ref].DebugString(), " vs. shape[", i,
                     "] = ", in.DebugString());
    }
    for (int j = 0; j < rank; ++j) {
      const int64_t d = in.dim(j);
      if (j == c) {
        axis_size = (axis_size < 0 || d < 0) ? -1 : axis_size + d;
      } else if (out[j] < 0) {
        out[j] = d;
        source[j] = i;
      } else if (d >= 0 && d != out[j]) {
        return Invalid("Dimension ", j, " in both shapes must be equal: shape[", source[j],
                       "] = ", inputs[source[j]].DebugString(), " vs. shape[", i,
                       "] = ", in.DebugString());
      }
    }
  }
  out[c] = axis_size;
  return PartialShape(out);
}

absl::StatusOr<PartialShape> PackShape(absl::Span<const PartialShape> inputs, int64_t axis) {
  PartialShape merged = PartialShape::UnknownRank();
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto m = merged.Merge(inputs[i]);
    if (!m.ok()) {
      return Invalid("Shapes of all inputs must match: values[0].shape = ",
                     inputs[0].DebugString(), " != values[", i,
                     "].shape = ", inputs[i].DebugString());
    }
    merged = *std::move(m);
  }
  if (!merged.known_rank()) return merged;
  const int rank = merged.rank() + 1;
  if (axis < -rank || axis >= rank) {
    return Invalid("axis = ", axis, " not in [", -rank, ", ", rank, ")");
  }
  if (rank > kMaxRank) return Invalid("Pack would give rank ", rank, ", over the limit");
  DimVector out(merged.dims().begin(), merged.dims().end());
  out.insert(out.begin() + (axis < 0 ? axis + rank : axis), static_cast<int64_t>(inputs.size()));
  return PartialShape(out);
}

absl::StatusOr<int> UnpackAxis(const PartialShape& input, int64_t axis, int64_t num) {
  const int rank = input.rank();
  if (axis < -rank || axis >= rank) {
    return Invalid("axis = ", axis, " not in [", -rank, ", ", rank, ")");
  }
  const int c = static_cast<int>(axis < 0 ? axis + rank : axis);
  if (input.dim(c) >= 0 && input.dim(c) != num) {
    return Invalid("Input shape axis ", c, " must equal ", num, ", got shape ",
                   input.DebugString());
  }
  return c;
}

absl::StatusOr<int64_t> SplitSize(int64_t dim_size, int64_t split_dim, int64_t num_split) {
  if (dim_size < 0) return -1;
  if (dim_size % num_split != 0) {
    return Invalid("Number of ways to split should evenly divide the split dimension, but got "
                   "split_dim ", split_dim, " (size = ", dim_size, ") and num_split ", num_split);
  }
  return dim_size / num_split;
}

absl::StatusOr<DimVector> SplitVSizes(absl::Span<const int64_t> sizes, int64_t dim_size,
                                      int64_t num_split) {
  if (static_cast<int64_t>(sizes.size()) != num_split) {
    return Invalid("size_splits must have num_split = ", num_split, " elements, but has ",
                   sizes.size());
  }
  int unknown = -1;
  int64_t sum = 0;
  for (int i = 0; i < static_cast<int>(sizes.size()); ++i) {
    if (sizes[i] == -1) {
      if (unknown >= 0) return Invalid("There can only be one -1 in the input.");
      unknown = i;
    } else if (sizes[i] < 0) {
      return Invalid("Split size at index ", i, " must be >= 0. Got: ", sizes[i]);
    } else {
      sum = std::min(sum + std::min(sizes[i], kMaxTensorElements + 1), kMaxTensorElements + 1);
    }
  }
  DimVector out(sizes.begin(), sizes.end());
  if (dim_size < 0) return out;
  if ((unknown < 0 && sum != dim_size) || (unknown >= 0 && sum > dim_size)) {
    return Invalid("Determined shape must either match input shape along split_dim exactly if "
                   "fully specified, or be less than the size of the input along split_dim if "
                   "not fully specified.  Got: ", sum, " for a dimension of size ", dim_size);
  }
  if (unknown >= 0) out[unknown] = dim_size - sum;
  return out;
}

absl::Status CheckPermutation(absl::Span<const int64_t> perm, int rank) {
  if (static_cast<int>(perm.size()) != rank) {
    return Invalid("transpose expects a vector of size ", rank, ". But input(1) is a vector of size ",
                   perm.size());
  }
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank) {
      return Invalid("perm[", i, "] = ", perm[i], " is out of range [0, ", rank, ")");
    }
    seen[perm[i]] = true;
  }
  for (int i = 0; i < rank; ++i) {
    if (!seen[i]) return Invalid(i, " is missing from perm {", absl::StrJoin(perm, ","), "}");
  }
  return absl::OkStatus();
}

absl::StatusOr<DimVector> TiledDims(absl::Span<const int64_t> dims,
                                    absl::Span<const int64_t> multiples) {
  if (multiples.size() != dims.size()) {
    return Invalid("Expected multiples argument to be a vector of length ", dims.size(),
                   " but got length ", multiples.size());
  }
  DimVector out(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t m = multiples[i];
    if (m < 0) return Invalid("Expected multiples[", i, "] >= 0, but got ", m);
    if (dims[i] < 0) {
      out[i] = m == 0 ? 0 : -1;
      continue;
    }
    out[i] = SaturatingMul(dims[i], m);
    if (out[i] > kMaxTensorElements) {
      return Invalid("Tiled dimension ", i, " (", dims[i], " * ", m, ") is too large");
    }
  }
  return out;
}

absl::Status CheckBroadcastTo(const PartialShape& input, absl::Span<const int64_t> target) {
  TW_RETURN_IF_ERROR(TensorShape::Build(target).status());
  if (!input.known_rank()) return absl::OkStatus();
  const int in_rank = input.rank(), rank = static_cast<int>(target.size());
  if (in_rank > rank) {
    return Invalid("Rank of input (", in_rank, ") must be no greater than rank of output shape (",
                   rank, ").");
  }
  for (int i = 0; i < in_rank; ++i) {
    const int64_t d = input.dim(i), t = target[rank - in_rank + i];
    if (d >= 0 && d != 1 && d != t) {
      return Invalid("Unable to broadcast tensor of shape ", input.DebugString(),
                     " to tensor of shape ", Dims(target));
    }
  }
  return absl::OkStatus();
}

absl::Status BroadcastGradientArgs(absl::Span<const int64_t> s0, absl::Span<const int64_t> s1,
                                   DimVector* r0, DimVector* r1) {
  r0->clear();
  r1->clear();
  for (int64_t d : s0)
    if (d < 0) return Invalid("s0 has a negative dimension: ", Dims(s0));
  for (int64_t d : s1)
    if (d < 0) return Invalid("s1 has a negative dimension: ", Dims(s1));
  if (std::equal(s0.begin(), s0.end(), s1.begin(), s1.end())) return absl::OkStatus();
  const int n0 = static_cast<int>(s0.size()), n1 = static_cast<int>(s1.size());
  const int rank = std::max(n0, n1);
  for (int i = 0; i < rank; ++i) {
    const int64_t x = i - (rank - n0) >= 0 ? s0[i - (rank - n0)] : 1;
    const int64_t y = i - (rank - n1) >= 0 ? s1[i - (rank - n1)] : 1;
    if (x == y) {
      if (x == 1) {  // Both broadcast along it (TensorFlow reduces both).
        r0->push_back(i);
        r1->push_back(i);
      }
    } else if (x == 1) {
      r0->push_back(i);
    } else if (y == 1) {
      r1->push_back(i);
    } else {
      return Invalid("Incompatible shapes: ", Dims(s0), " vs. ", Dims(s1));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<TensorShape> FillShape(absl::Span<const int64_t> dims) {
  return TensorShape::Build(dims);
}

absl::StatusOr<int> OneHotAxis(int64_t axis, int indices_rank) {
  const int out_rank = indices_rank + 1;
  if (axis != -1 && (axis < 0 || axis >= out_rank)) {
    return Invalid("Expected axis to be -1 or between [0, ", out_rank, ").  But received: ", axis);
  }
  if (out_rank > kMaxRank) return Invalid("OneHot output rank ", out_rank, " is over the limit");
  return static_cast<int>(axis == -1 ? indices_rank : axis);
}

}  // namespace tw::array_util
