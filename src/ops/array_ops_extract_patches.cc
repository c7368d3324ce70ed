// ExtractImagePatches: every (dilated) ksizes window of an NHWC image, flattened into the
// channels of one output pixel, with TensorFlow's name, attrs and shape function.
#include "ops/ops.h"
#include "ops/patches_geometry.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status ExtractImagePatchesShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 4));
  TW_ASSIGN_OR_RETURN(patches::PatchesAttrs a, patches::ReadPatchesAttrs(c.attrs()));
  const PartialShape& s = c.input_shape(0);
  if (!s.known_rank()) {
    c.set_output(0, PartialShape::Unknown(4));
    return absl::OkStatus();
  }
  DimVector d(s.dims().begin(), s.dims().end());
  if (d[3] >= 0) d[3] *= a.k_h * a.k_w;
  // TensorFlow leaves both unknown unless both are known; bad list entries are the kernel's
  // to report (with TensorFlow's error codes, which graph building would turn to InvalidArgument).
  if (d[1] < 0 || d[2] < 0 || !patches::CheckPatchesEntries(c.attrs()).ok()) {
    d[1] = d[2] = -1;
  } else {
    TW_ASSIGN_OR_RETURN(patches::PatchesDim rows, patches::ComputePatchesDim(d[1], a.k_h, a.stride_h, a.rate_h, a.same));
    TW_ASSIGN_OR_RETURN(patches::PatchesDim cols, patches::ComputePatchesDim(d[2], a.k_w, a.stride_w, a.rate_w, a.same));
    d[1] = rows.out;
    d[2] = cols.out;
  }
  c.set_output(0, PartialShape(d));
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayExtractPatchesOps(OpRegistry& r) {
  r.Register(OpDefBuilder("ExtractImagePatches")
                 .Input("images: T")
                 .Output("patches: T")
                 .Attr("ksizes: list(int) >= 4")
                 .Attr("strides: list(int) >= 4")
                 .Attr("rates: list(int) >= 4")
                 .Attr("T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16, complex64, "
                       "complex128, bool}")
                 .Attr("padding: string")
                 .SetShapeFn(ExtractImagePatchesShape));
}

}  // namespace tw
