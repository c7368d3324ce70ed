// TensorFlow's ResourceSparseApplyXxx: optimizer updates of the rows `indices` of a resource
// variable (and its slots); grad holds one row per index. And ResourceGather, the rows of a
// resource variable read without reading the rest. Kernels: sparse_training_kernels.cc.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// Scalars (handles, hyperparameters) by position, and indices a vector whose length is
// grad's first dim; the rest needs the variable's shape, known at run time.
ShapeFn SparseApplyShape(std::vector<std::pair<int, std::string>> scalars, int grad, int indices) {
  return [scalars = std::move(scalars), grad, indices](InferenceContext& c) -> absl::Status {
    for (const auto& [i, name] : scalars) {
      const PartialShape& s = c.input_shape(i);
      if (s.known_rank() && s.rank() != 0) {
        return absl::InvalidArgumentError(absl::StrCat(name, " is not a scalar: ", s.DebugString()));
      }
    }
    const PartialShape& ids = c.input_shape(indices);
    const PartialShape& g = c.input_shape(grad);
    if (ids.known_rank() && ids.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("indices must be one-dimensional, got ", ids.DebugString()));
    }
    if (ids.known_rank() && g.known_rank() && g.rank() >= 1 && ids.dim(0) >= 0 && g.dim(0) >= 0 &&
        ids.dim(0) != g.dim(0)) {
      return absl::InvalidArgumentError(absl::StrCat("grad ", g.DebugString(), " must have one row per index of ",
                                                     ids.DebugString()));
    }
    return absl::OkStatus();
  };
}

OpDefBuilder& Common(OpDefBuilder& b) {
  return b.Attr("T: {float32, float64}").Attr("Tindices: {int32, int64}").Attr("use_locking: bool = false")
      .SetStateful();
}

// indices.shape + the variable's shape[1:] (from the handle's shape when known).
absl::Status ResourceGatherShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(int64_t batch_dims, GetIntAttr(c.attrs(), "batch_dims"));
  if (batch_dims != 0) {
    return absl::UnimplementedError(absl::StrCat("batch_dims = ", batch_dims, " is not supported (only 0)"));
  }
  const PartialShape params = c.input_handle_shape(0);
  const PartialShape& indices = c.input_shape(1);
  if (!params.known_rank() || !indices.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  DimVector dims(indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + std::min<int>(1, params.rank()), params.dims().end());
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

}  // namespace

void RegisterSparseTrainingOps(OpRegistry& r) {
  r.Register(OpDefBuilder("ResourceGather")
                 .Input("resource: resource")
                 .Input("indices: Tindices")
                 .Output("output: dtype")
                 .Attr("batch_dims: int = 0")
                 .Attr("validate_indices: bool = true")
                 .Attr("dtype: type")
                 .Attr("Tindices: {int32, int64}")
                 .SetStateful()
                 .SetShapeFn(ResourceGatherShape));
  {
    OpDefBuilder b("ResourceSparseApplyProximalGradientDescent");
    b.Input("var: resource").Input("alpha: T").Input("l1: T").Input("l2: T").Input("grad: T")
        .Input("indices: Tindices");
    b.SetShapeFn(SparseApplyShape({{0, "var"}, {1, "alpha"}, {2, "l1"}, {3, "l2"}}, 4, 5));
    r.Register(Common(b));
  }
  {
    OpDefBuilder b("ResourceSparseApplyMomentum");
    b.Input("var: resource").Input("accum: resource").Input("lr: T").Input("grad: T").Input("indices: Tindices")
        .Input("momentum: T").Attr("use_nesterov: bool = false");
    b.SetShapeFn(SparseApplyShape({{0, "var"}, {1, "accum"}, {2, "lr"}, {5, "momentum"}}, 3, 4));
    r.Register(Common(b));
  }
  {
    OpDefBuilder b("ResourceSparseApplyAdagrad");
    b.Input("var: resource").Input("accum: resource").Input("lr: T").Input("grad: T").Input("indices: Tindices")
        .Attr("update_slots: bool = true");
    b.SetShapeFn(SparseApplyShape({{0, "var"}, {1, "accum"}, {2, "lr"}}, 3, 4));
    r.Register(Common(b));
  }
  {
    OpDefBuilder b("ResourceSparseApplyRMSProp");
    b.Input("var: resource").Input("ms: resource").Input("mom: resource").Input("lr: T").Input("rho: T")
        .Input("momentum: T").Input("epsilon: T").Input("grad: T").Input("indices: Tindices");
    b.SetShapeFn(SparseApplyShape(
        {{0, "var"}, {1, "ms"}, {2, "mom"}, {3, "lr"}, {4, "rho"}, {5, "momentum"}, {6, "epsilon"}}, 7, 8));
    r.Register(Common(b));
  }
}

}  // namespace tw
