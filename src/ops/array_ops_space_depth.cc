// SpaceToDepth and DepthToSpace: blocks of block_size x block_size pixels moved into the
// channels and back (NHWC), with TensorFlow's names and attrs.
#include <string>

#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

template <bool kToDepth>
absl::Status SpaceDepthShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(std::string format, GetStringAttr(c.attrs(), "data_format"));
  if (format != "NHWC") {
    return absl::InvalidArgumentError(absl::StrCat("Only NHWC data_format is supported on the CPU, got ", format));
  }
  TW_ASSIGN_OR_RETURN(int64_t bs, GetIntAttr(c.attrs(), "block_size"));
  TW_RETURN_IF_ERROR(c.WithRank(0, 4));
  const PartialShape& s = c.input_shape(0);
  if (!s.known_rank()) {
    c.set_output(0, PartialShape::Unknown(4));
    return absl::OkStatus();
  }
  DimVector d(s.dims().begin(), s.dims().end());
  if (kToDepth) {
    for (int i : {1, 2}) {
      if (d[i] >= 0 && d[i] % bs != 0) {
        return absl::InvalidArgumentError(absl::StrCat("Dimension size must be evenly divisible by ", bs,
                                                       " but is ", d[i]));
      }
      if (d[i] >= 0) d[i] /= bs;
    }
    if (d[3] >= 0) d[3] *= bs * bs;
  } else {
    if (d[3] >= 0 && d[3] % (bs * bs) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("Dimension size must be evenly divisible by ", bs * bs,
                                                     " but is ", d[3]));
    }
    for (int i : {1, 2}) {
      if (d[i] >= 0) d[i] *= bs;
    }
    if (d[3] >= 0) d[3] /= bs * bs;
  }
  c.set_output(0, PartialShape(d));
  return absl::OkStatus();
}

}  // namespace

void RegisterArraySpaceDepthOps(OpRegistry& r) {
  r.Register(OpDefBuilder("SpaceToDepth")
                 .Input("input: T")
                 .Output("output: T")
                 .Attr("T: {bool, float32, float64, int32, int64}")
                 .Attr("block_size: int >= 2")
                 .Attr("data_format: string = 'NHWC'")
                 .SetShapeFn(SpaceDepthShape<true>));
  r.Register(OpDefBuilder("DepthToSpace")
                 .Input("input: T")
                 .Output("output: T")
                 .Attr("T: {bool, float32, float64, int32, int64}")
                 .Attr("block_size: int >= 2")
                 .Attr("data_format: string = 'NHWC'")
                 .SetShapeFn(SpaceDepthShape<false>));
}

}  // namespace tw
