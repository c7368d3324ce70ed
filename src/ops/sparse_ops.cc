// SparseToDense as TensorFlow's: scatters sparse_values at sparse_indices into a tensor of
// output_shape filled with default_value (what tf.sparse.to_dense builds on).
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status SparseToDenseShape(InferenceContext& c) {
  const PartialShape& indices = c.input_shape(0);
  if (indices.known_rank() && indices.rank() > 2) {
    return absl::InvalidArgumentError(absl::StrCat("sparse_indices should be a scalar, vector, or matrix, got shape ",
                                                   indices.DebugString()));
  }
  TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  TW_RETURN_IF_ERROR(c.WithRank(3, 0));
  std::vector<int64_t> dims;
  if (c.ConstantIntVector(1, &dims)) {
    c.set_output(0, PartialShape(dims));
    return absl::OkStatus();
  }
  const PartialShape& shape = c.input_shape(1);
  c.set_output(0, shape.known_rank() && shape.dim(0) >= 0 ? PartialShape::Unknown(static_cast<int>(shape.dim(0)))
                                                         : PartialShape::UnknownRank());
  return absl::OkStatus();
}

}  // namespace

void RegisterSparseOps(OpRegistry& r) {
  r.Register(OpDefBuilder("SparseToDense")
                 .Input("sparse_indices: Tindices")
                 .Input("output_shape: Tindices")
                 .Input("sparse_values: T")
                 .Input("default_value: T")
                 .Output("dense: T")
                 .Attr("validate_indices: bool = true")
                 .Attr("T: type")
                 .Attr("Tindices: {int32, int64}")
                 .SetShapeFn(SparseToDenseShape));
}

}  // namespace tw
