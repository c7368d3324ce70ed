// UnravelIndex: flat indices into a shape `dims` as coordinates (row-major), TensorFlow's
// names and attrs.
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {

void RegisterArrayUnravelIndexOps(OpRegistry& r) {
  r.Register(OpDefBuilder("UnravelIndex")
                 .Input("indices: Tidx")
                 .Input("dims: Tidx")
                 .Output("output: Tidx")
                 .Attr("Tidx: {int32, int64} = int32")
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(1, 1));
                   const PartialShape& idx = c.input_shape(0);
                   const PartialShape& dims = c.input_shape(1);
                   const int64_t n = dims.known_rank() ? dims.dim(0) : -1;
                   if (!idx.known_rank()) {
                     c.set_output(0, PartialShape::UnknownRank());
                   } else if (idx.rank() == 0) {
                     c.set_output(0, PartialShape({n}));
                   } else if (idx.rank() == 1) {
                     c.set_output(0, PartialShape({n, idx.dim(0)}));
                   } else {
                     return absl::InvalidArgumentError("indices must be a scalar or a vector");
                   }
                   return absl::OkStatus();
                 }));
}

}  // namespace tw
