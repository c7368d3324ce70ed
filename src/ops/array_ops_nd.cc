// GatherNd, ScatterNd and TensorScatter{Update,Add,Sub,Min,Max}: slices addressed by index tuples. indices' last dim K picks the
// first K coordinates; the rest of params (or of `shape`) is the slice moved per tuple.
#include "absl/strings/str_cat.h"
#include "ops/array_ops_internal.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// indices.shape[:-1] + params.shape[K:].
absl::Status GatherNdShape(InferenceContext& c) {
  const PartialShape& params = c.input_shape(0);
  const PartialShape& indices = c.input_shape(1);
  if (indices.known_rank() && indices.rank() < 1) {
    return absl::InvalidArgumentError("indices must be at least 1 dimensional");
  }
  if (!params.known_rank() || !indices.known_rank() || indices.dim(indices.rank() - 1) < 0) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  const int64_t k = indices.dim(indices.rank() - 1);
  if (k > params.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("indices.shape[-1] = ", k, " must be <= params rank ",
                                                   params.rank()));
  }
  DimVector dims(indices.dims().begin(), indices.dims().end() - 1);
  dims.insert(dims.end(), params.dims().begin() + k, params.dims().end());
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

// The constant `shape` input when known, else its rank from its length.
absl::Status ScatterNdShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(2, 1));
  DimVector dims;
  if (array_util::ConstantDims(c, 2, &dims)) {
    c.set_output(0, PartialShape(dims));
  } else {
    const PartialShape& s = c.input_shape(2);
    c.set_output(0, s.dim(0) >= 0 ? PartialShape(DimVector(s.dim(0), -1)) : PartialShape::UnknownRank());
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayNdOps(OpRegistry& r) {
  r.Register(OpDefBuilder("GatherNd")
                 .Input("params: Tparams")
                 .Input("indices: Tindices")
                 .Output("output: Tparams")
                 .Attr("Tparams: type")
                 .Attr("Tindices: {int32, int64}")
                 .SetShapeFn(GatherNdShape));
  r.Register(OpDefBuilder("ScatterNd")
                 .Input("indices: Tindices")
                 .Input("updates: T")
                 .Input("shape: Tindices")
                 .Output("output: T")
                 .Attr("T: {float32, float64, int32, int64}")
                 .Attr("Tindices: {int32, int64}")
                 .SetShapeFn(ScatterNdShape));
  // The output is `tensor` with `updates` applied at `indices` (checked by the kernel).
  for (const char* op : {"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMin",
                         "TensorScatterMax"}) {
    r.Register(OpDefBuilder(op)
                   .Input("tensor: T")
                   .Input("indices: Tindices")
                   .Input("updates: T")
                   .Output("output: T")
                   .Attr("T: {float32, float64, int32, int64}")
                   .Attr("Tindices: {int32, int64}")
                   .Attr("bad_indices_policy: string = ''")
                   .SetShapeFn(UnchangedShape));
  }
}

}  // namespace tw
