// Schemas of SpaceToBatchND, BatchToSpaceND, SpaceToBatch and BatchToSpace, with
// TensorFlow's names, attrs and shape checks.
#include "ops/array_ops_space_batch.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace array_util {

absl::StatusOr<DimVector> SpaceBatchDims(bool to_batch, absl::Span<const int64_t> input,
                                         absl::Span<const int64_t> block, absl::Span<const int64_t> edges) {
  const int m = static_cast<int>(block.size());
  const char* edge_name = to_batch ? "paddings" : "crops";
  if (static_cast<int>(input.size()) < 1 + m) {
    return absl::InvalidArgumentError(absl::StrCat("input rank should be >= ", 1 + m, " instead of ", input.size()));
  }
  if (static_cast<int>(edges.size()) != 2 * m) {
    return absl::InvalidArgumentError(absl::StrCat(edge_name, " should have shape [", m, ", 2]"));
  }
  int64_t product = 1;
  for (int64_t b : block) {
    if (__builtin_mul_overflow(product, b, &product)) {
      return absl::InvalidArgumentError("Product of block sizes overflows int64");
    }
  }
  if (product <= 0) return absl::InvalidArgumentError(absl::StrCat("Product of block sizes must be positive, got ", product));
  for (int i = 0; i < m; ++i) {
    if (block[i] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("block_shape[", i, "]=", block[i], " must be positive"));
    }
    if (edges[2 * i] < 0 || edges[2 * i + 1] < 0) {
      return absl::InvalidArgumentError(to_batch ? "Paddings must be non-negative" : "Crops must be non-negative");
    }
  }
  DimVector out(input.begin(), input.end());
  if (to_batch) {
    if (out[0] >= 0 && __builtin_mul_overflow(out[0], product, &out[0])) {
      return absl::InvalidArgumentError("the output batch overflows int64");
    }
  } else if (out[0] >= 0) {
    if (out[0] % product != 0) {
      return absl::InvalidArgumentError(absl::StrCat("Input batch dimension (", out[0],
                                                     ") is not divisible by product of block sizes (", product, ")"));
    }
    out[0] /= product;
  }
  for (int i = 0; i < m; ++i) {
    int64_t& d = out[1 + i];
    if (d < 0) continue;
    if (to_batch) {
      int64_t padded = 0;
      if (__builtin_add_overflow(d, edges[2 * i], &padded) || __builtin_add_overflow(padded, edges[2 * i + 1], &padded)) {
        return absl::InvalidArgumentError(absl::StrCat("padded_shape[", i, "] overflows int64"));
      }
      if (padded % block[i] != 0) {
        return absl::InvalidArgumentError(absl::StrCat("padded_shape[", i, "]=", padded,
                                                       " is not divisible by block_shape[", i, "]=", block[i]));
      }
      d = padded / block[i];
    } else {
      int64_t cropped = 0;
      if (__builtin_mul_overflow(d, block[i], &cropped) || __builtin_sub_overflow(cropped, edges[2 * i], &cropped) ||
          __builtin_sub_overflow(cropped, edges[2 * i + 1], &cropped)) {
        return absl::InvalidArgumentError(absl::StrCat("cropped_shape[", i, "] overflows int64"));
      }
      if (cropped < 0) {
        return absl::InvalidArgumentError(absl::StrCat("cropped_shape[", i, "]=", cropped, " must be non-negative"));
      }
      d = cropped;
    }
  }
  return out;
}

}  // namespace array_util

namespace {

// The values of constant int input i, any rank; false while it is not known.
bool ConstantFlatInts(const InferenceContext& c, int i, std::vector<int64_t>* out) {
  const Tensor* t = c.input_tensor(i);
  if (t == nullptr) return false;
  out->clear();
  if (t->dtype() == DType::kInt32) {
    for (int32_t v : t->flat<int32_t>()) out->push_back(v);
  } else {
    for (int64_t v : t->flat<int64_t>()) out->push_back(v);
  }
  return true;
}

// ND forms: block_shape is input 1, paddings / crops input 2. The 4-D forms: block_size
// (attr) on both spatial dims, paddings / crops input 1.
template <bool kToBatch, bool kNd>
absl::Status SpaceBatchShape(InferenceContext& c) {
  const int edges_input = kNd ? 2 : 1;
  TW_RETURN_IF_ERROR(c.WithRank(edges_input, 2));
  DimVector block;
  if (kNd) {
    TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  } else {
    TW_RETURN_IF_ERROR(c.WithRank(0, 4));
    TW_ASSIGN_OR_RETURN(int64_t size, GetIntAttr(c.attrs(), "block_size"));
    block = {size, size};
  }
  const PartialShape& in = c.input_shape(0);
  std::vector<int64_t> edges, block_values;
  const bool known_block = !kNd || ConstantFlatInts(c, 1, &block_values);
  if (kNd && known_block) block.assign(block_values.begin(), block_values.end());
  if (!in.known_rank() || !known_block || !ConstantFlatInts(c, edges_input, &edges)) {
    // The rank is the input's; the dims follow once block and edges are known.
    c.set_output(0, in.known_rank() ? PartialShape::Unknown(in.rank()) : PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(DimVector out, array_util::SpaceBatchDims(kToBatch, in.dims(), block, edges));
  c.set_output(0, PartialShape(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterArraySpaceBatchOps(OpRegistry& r) {
  r.Register(OpDefBuilder("SpaceToBatchND")
                 .Input("input: T")
                 .Input("block_shape: Tblock_shape")
                 .Input("paddings: Tpaddings")
                 .Output("output: T")
                 .Attr("T: type")
                 .Attr("Tblock_shape: {int32, int64} = int32")
                 .Attr("Tpaddings: {int32, int64} = int32")
                 .SetShapeFn(SpaceBatchShape<true, true>));
  r.Register(OpDefBuilder("BatchToSpaceND")
                 .Input("input: T")
                 .Input("block_shape: Tblock_shape")
                 .Input("crops: Tcrops")
                 .Output("output: T")
                 .Attr("T: type")
                 .Attr("Tblock_shape: {int32, int64} = int32")
                 .Attr("Tcrops: {int32, int64} = int32")
                 .SetShapeFn(SpaceBatchShape<false, true>));
  r.Register(OpDefBuilder("SpaceToBatch")
                 .Input("input: T")
                 .Input("paddings: Tpaddings")
                 .Output("output: T")
                 .Attr("T: type")
                 .Attr("Tpaddings: {int32, int64} = int32")
                 .Attr("block_size: int >= 2")
                 .SetShapeFn(SpaceBatchShape<true, false>));
  r.Register(OpDefBuilder("BatchToSpace")
                 .Input("input: T")
                 .Input("crops: Tidx")
                 .Output("output: T")
                 .Attr("T: type")
                 .Attr("block_size: int >= 2")
                 .Attr("Tidx: {int32, int64} = int32")
                 .SetShapeFn(SpaceBatchShape<false, false>));
}

}  // namespace tw
