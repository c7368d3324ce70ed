#include "checkpoint/tensor_slices.h"

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace tw::checkpoint {
namespace {

absl::Status BadSpec(const std::string& spec, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("shape_and_slice '", spec, "': ", why));
}

// Calls fn(full_index, slice_index, n) for each run of n consecutive elements (a row of the
// last dimension) of the block of shape `slice` at `extents` of a `full`-shaped tensor.
template <typename Fn>
void ForEachSliceRow(const TensorShape& full, const TensorShape& slice, const std::vector<SliceExtent>& extents,
                     Fn fn) {
  const int rank = full.rank();
  if (slice.num_elements() == 0) return;
  if (rank == 0) return fn(0, 0, 1);
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * full.dim(d + 1);
  const int64_t row = slice.dim(rank - 1);
  const int64_t rows = slice.num_elements() / row;
  std::vector<int64_t> idx(rank, 0);  // the row's index within the slice, last dim at 0
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += (extents[d].start + idx[d]) * strides[d];
    fn(offset, r * row, row);
    for (int d = rank - 2; d >= 0 && ++idx[d] == slice.dim(d); --d) idx[d] = 0;
  }
}

// Copies between a whole tensor and a block of it, in the direction `into_full` says.
void CopyBlock(const Tensor& from, Tensor* to, const std::vector<SliceExtent>& extents, bool into_full) {
  const TensorShape& full = into_full ? to->shape() : from.shape();
  const TensorShape& slice = into_full ? from.shape() : to->shape();
  if (from.dtype() == DType::kString) {  // Objects: assigned one by one, never memcpy'd.
    const std::string* src = from.data<std::string>();
    std::string* dst = to->data<std::string>();
    ForEachSliceRow(full, slice, extents, [&](int64_t f, int64_t s, int64_t n) {
      for (int64_t k = 0; k < n; ++k) {
        if (into_full) dst[f + k] = src[s + k];
        else dst[s + k] = src[f + k];
      }
    });
    return;
  }
  const int64_t elem = static_cast<int64_t>(DTypeSize(from.dtype()));
  const char* src = static_cast<const char*>(from.raw_data());
  char* dst = static_cast<char*>(to->raw_data());
  ForEachSliceRow(full, slice, extents, [&](int64_t f, int64_t s, int64_t n) {
    if (into_full) std::memcpy(dst + f * elem, src + s * elem, n * elem);
    else std::memcpy(dst + s * elem, src + f * elem, n * elem);
  });
}

}  // namespace

TensorShape ShapeAndSlice::SliceShape() const {
  if (whole()) return full_shape;
  DimVector dims;
  for (int d = 0; d < full_shape.rank(); ++d) dims.push_back(extents[d].length < 0 ? full_shape.dim(d) : extents[d].length);
  return TensorShape(dims);
}

absl::StatusOr<ShapeAndSlice> ParseShapeAndSlice(const std::string& spec) {
  ShapeAndSlice out;
  if (spec.empty()) return out;
  std::vector<std::string> parts = absl::StrSplit(spec, ' ');
  if (parts.size() < 2) return BadSpec(spec, "expected the full shape's dims, then the slice");
  const std::string slice = parts.back();
  parts.pop_back();
  std::vector<int64_t> dims;
  for (const std::string& p : parts) {
    int64_t d;
    if (!absl::SimpleAtoi(p, &d) || d < 0) return BadSpec(spec, absl::StrCat("bad dimension '", p, "'"));
    dims.push_back(d);
  }
  auto shape = TensorShape::Build(dims);
  if (!shape.ok()) return BadSpec(spec, shape.status().message());
  out.full_shape = *shape;
  std::vector<std::string> extents = absl::StrSplit(slice, ':');
  if (static_cast<int>(extents.size()) != out.full_shape.rank()) {
    return BadSpec(spec, absl::StrCat("the slice has ", extents.size(), " dimensions, the shape ", out.full_shape.rank()));
  }
  for (int d = 0; d < out.full_shape.rank(); ++d) {
    SliceExtent e;
    if (extents[d] != "-") {
      std::vector<std::string> sl = absl::StrSplit(extents[d], ',');
      if (sl.size() != 2 || !absl::SimpleAtoi(sl[0], &e.start) || !absl::SimpleAtoi(sl[1], &e.length) ||
          e.start < 0 || e.length < 1 || e.start > out.full_shape.dim(d) - e.length) {
        return BadSpec(spec, absl::StrCat("extent '", extents[d], "' is not a block of dimension ", d, " (size ",
                                          out.full_shape.dim(d), ")"));
      }
    }
    out.extents.push_back(e);
  }
  return out;
}

std::string FormatShapeAndSlice(const ShapeAndSlice& s) {
  if (s.whole()) return "";
  std::vector<std::string> extents;
  for (const SliceExtent& e : s.extents) extents.push_back(e.length < 0 ? "-" : absl::StrCat(e.start, ",", e.length));
  return absl::StrCat(absl::StrJoin(s.full_shape.dims(), " "), " ", absl::StrJoin(extents, ":"));
}

void CopySliceInto(const Tensor& slice, const std::vector<SliceExtent>& extents, Tensor* full) {
  CopyBlock(slice, full, extents, /*into_full=*/true);
}

Tensor ExtractSlice(const Tensor& full, const std::vector<SliceExtent>& extents) {
  DimVector dims;
  for (int d = 0; d < full.rank(); ++d) dims.push_back(extents[d].length < 0 ? full.dim(d) : extents[d].length);
  Tensor slice(full.dtype(), TensorShape(dims));
  CopyBlock(full, &slice, extents, /*into_full=*/false);
  return slice;
}

absl::StatusOr<Tensor> SliceOfSaved(Tensor saved, const ShapeAndSlice& spec, const std::string& name,
                                    const std::string& prefix) {
  if (spec.whole()) return saved;
  if (saved.shape() != spec.full_shape) {
    return absl::InvalidArgumentError(absl::StrCat("checkpoint '", prefix, "': tensor '", name, "' has shape ",
                                                   saved.shape().DebugString(), " but the slice '",
                                                   FormatShapeAndSlice(spec), "' is of a variable of shape ",
                                                   spec.full_shape.DebugString()));
  }
  return ExtractSlice(saved, spec.extents);
}

}  // namespace tw::checkpoint
