// Summary ops (tf.summary.*): each outputs one serialized Summary proto (a string scalar)
// that a FileWriter puts in an event file. Schemas as TensorFlow's, so that graphs move
// both ways; the shape functions also reject what can never run (a non-scalar tag of
// HistogramSummary, an image that is not [batch, height, width, 1|3|4]).
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

constexpr char kRealTypes[] = "T: {float32, float64, int32, int64, uint8, int8, int16, uint16, float16} = float32";

absl::Status ScalarTagShape(InferenceContext& c, int input, const char* message) {
  const PartialShape& tag = c.input_shape(input);
  if (tag.known_rank() && tag.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(message, ", got shape ", tag.DebugString()));
  }
  return ScalarShape(c);
}

absl::Status HistogramSummaryShape(InferenceContext& c) { return ScalarTagShape(c, 0, "tags must be scalar"); }

absl::Status ImageSummaryShape(InferenceContext& c) {
  const PartialShape& image = c.input_shape(1);
  if (image.known_rank()) {
    const bool depth_ok = image.rank() == 4 && (image.dim(3) < 0 || image.dim(3) == 1 ||
                                                image.dim(3) == 3 || image.dim(3) == 4);
    if (!depth_ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tensor must be 4-D with last dim 1, 3, or 4, not ", image.DebugString()));
    }
  }
  return ScalarShape(c);
}

absl::Status AudioSummaryShape(InferenceContext& c) {
  const PartialShape& audio = c.input_shape(1);
  if (audio.known_rank() && (audio.rank() < 2 || audio.rank() > 3)) {
    return absl::InvalidArgumentError(absl::StrCat("Tensor must be 3-D or 2-D, got: ", audio.DebugString()));
  }
  return ScalarShape(c);
}

absl::Status TensorSummaryShape(InferenceContext& c) {
  const PartialShape& metadata = c.input_shape(2);
  if (metadata.known_rank() && metadata.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("serialized_summary_metadata must be scalar, got shape ", metadata.DebugString()));
  }
  return ScalarTagShape(c, 0, "tag must be scalar");
}

}  // namespace

void RegisterSummaryOps(OpRegistry& r) {
  r.Register(OpDefBuilder("ScalarSummary").Input("tags: string").Input("values: T").Output("summary: string")
                 .Attr(kRealTypes).SetShapeFn(ScalarShape));
  r.Register(OpDefBuilder("HistogramSummary").Input("tag: string").Input("values: T").Output("summary: string")
                 .Attr(kRealTypes).SetShapeFn(HistogramSummaryShape));
  // bad_color (TF's default [255, 0, 0, 255]) has no default here: the op registry has no
  // tensor-default syntax, so clients pass it (tf.summary.image does). Nor can an attr have
  // both a minimum and a default: the kernel checks TF's max_images >= 1.
  r.Register(OpDefBuilder("ImageSummary").Input("tag: string").Input("tensor: T").Output("summary: string")
                 .Attr("max_images: int = 3").Attr("T: {uint8, float32, float16, float64} = float32")
                 .Attr("bad_color: tensor").SetShapeFn(ImageSummaryShape));
  r.Register(OpDefBuilder("AudioSummaryV2").Input("tag: string").Input("tensor: float32")
                 .Input("sample_rate: float32").Output("summary: string").Attr("max_outputs: int = 3")
                 .SetShapeFn(AudioSummaryShape));
  r.Register(OpDefBuilder("MergeSummary").Input("inputs: N * string").Output("summary: string")
                 .Attr("N: int >= 1").SetShapeFn(ScalarShape));
  r.Register(OpDefBuilder("TensorSummaryV2").Input("tag: string").Input("tensor: T")
                 .Input("serialized_summary_metadata: string").Output("summary: string").Attr("T: type")
                 .SetShapeFn(TensorSummaryShape));
}

}  // namespace tw
