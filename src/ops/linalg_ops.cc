// Matrix products: MatMul, BatchMatMul (equal batch dims), BatchMatMulV2 (broadcast batch).
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status MatMulShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(bool ta, GetBoolAttr(c.attrs(), "transpose_a"));
  TW_ASSIGN_OR_RETURN(bool tb, GetBoolAttr(c.attrs(), "transpose_b"));
  const PartialShape& a = c.input_shape(0);
  const PartialShape& b = c.input_shape(1);
  for (int i = 0; i < 2; ++i) {
    const PartialShape& s = c.input_shape(i);
    if (s.known_rank() && s.rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[", i, "] is not a matrix. Instead it has shape ", s.DebugString()));
    }
  }
  const int64_t m = a.known_rank() ? a.dim(ta ? 1 : 0) : -1;
  const int64_t ka = a.known_rank() ? a.dim(ta ? 0 : 1) : -1;
  const int64_t kb = b.known_rank() ? b.dim(tb ? 1 : 0) : -1;
  const int64_t n = b.known_rank() ? b.dim(tb ? 0 : 1) : -1;
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Matrix size-incompatible: In[0]: ", a.DebugString(), ", In[1]: ", b.DebugString()));
  }
  c.set_output(0, PartialShape({m, n}));
  return absl::OkStatus();
}

// Shared by BatchMatMul (kBroadcast false: batch dims must be equal) and BatchMatMulV2.
template <bool kBroadcast>
absl::Status BatchMatMulShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(bool adj_x, GetBoolAttr(c.attrs(), "adj_x"));
  TW_ASSIGN_OR_RETURN(bool adj_y, GetBoolAttr(c.attrs(), "adj_y"));
  const PartialShape& x = c.input_shape(0);
  const PartialShape& y = c.input_shape(1);
  for (int i = 0; i < 2; ++i) {
    const PartialShape& s = c.input_shape(i);
    if (s.known_rank() && s.rank() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[", i, "] ndims must be >= 2, got shape ", s.DebugString()));
    }
  }
  if (!x.known_rank() || !y.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  const int rx = x.rank(), ry = y.rank();
  const int64_t kx = x.dim(adj_x ? rx - 2 : rx - 1);
  const int64_t ky = y.dim(adj_y ? ry - 1 : ry - 2);
  if (kx >= 0 && ky >= 0 && kx != ky) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Matrix size-incompatible: In[0]: ", x.DebugString(), ", In[1]: ", y.DebugString()));
  }
  PartialShape bx(x.dims().subspan(0, rx - 2)), by(y.dims().subspan(0, ry - 2));
  PartialShape batch;
  if (kBroadcast) {
    TW_ASSIGN_OR_RETURN(batch, BroadcastShapes(bx, by));
  } else {
    if (rx != ry) {
      return absl::InvalidArgumentError(absl::StrCat(
          "In[0] and In[1] have different ndims: ", x.DebugString(), " vs. ", y.DebugString()));
    }
    auto merged = bx.Merge(by);
    if (!merged.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[0] and In[1] must have the same batch dims: ", x.DebugString(), " vs. ",
                       y.DebugString()));
    }
    batch = *merged;
  }
  DimVector dims(batch.dims().begin(), batch.dims().end());
  dims.push_back(x.dim(adj_x ? rx - 1 : rx - 2));
  dims.push_back(y.dim(adj_y ? ry - 2 : ry - 1));
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

}  // namespace

void RegisterLinalgOps(OpRegistry& r) {
  // grad_a/grad_b (grad_x/grad_y) mark a MatMul that computes a gradient: a hint for
  // TensorFlow's GPU kernels that newer TensorFlow writes into every GraphDef; accepted and
  // ignored so that those graphs load.
  r.Register(OpDefBuilder("MatMul")
                 .Input("a: T")
                 .Input("b: T")
                 .Output("product: T")
                 .Attr("transpose_a: bool = false")
                 .Attr("transpose_b: bool = false")
                 .Attr("T: {float16, float32, float64, int32, int64, complex64, complex128}")
                 .Attr("grad_a: bool = false")
                 .Attr("grad_b: bool = false")
                 .SetShapeFn(MatMulShape));
  r.Register(OpDefBuilder("BatchMatMul")
                 .Input("x: T")
                 .Input("y: T")
                 .Output("output: T")
                 .Attr("T: {float32, float64, int32, int64, complex64, complex128}")
                 .Attr("adj_x: bool = false")
                 .Attr("adj_y: bool = false")
                 .SetShapeFn(BatchMatMulShape<false>));
  r.Register(OpDefBuilder("BatchMatMulV2")
                 .Input("x: T")
                 .Input("y: T")
                 .Output("output: T")
                 .Attr("T: {float16, float32, float64, int16, int32, int64, complex64, complex128}")
                 .Attr("adj_x: bool = false")
                 .Attr("adj_y: bool = false")
                 .Attr("grad_x: bool = false")
                 .Attr("grad_y: bool = false")
                 .SetShapeFn(BatchMatMulShape<true>));
}

}  // namespace tw
