// ClipByValue: t clipped to [clip_value_min, clip_value_max], each bound a scalar or of t's
// shape, as TensorFlow declares it (tf.clip_by_value itself builds Minimum/Maximum).
#include "absl/strings/str_cat.h"
#include "ops/ops.h"

namespace tw {
namespace {

absl::Status ClipShape(InferenceContext& c) {
  const PartialShape& t = c.input_shape(0);
  const char* names[] = {"clip_value_min", "clip_value_max"};
  for (int i = 1; i <= 2; ++i) {
    const PartialShape& b = c.input_shape(i);
    if (b.known_rank() && b.rank() != 0 && !t.Merge(b).ok()) {
      return absl::InvalidArgumentError(absl::StrCat(names[i - 1], " must be either a scalar or have the same "
                                                     "shape as t: ", b.DebugString(), " vs. ", t.DebugString()));
    }
  }
  c.set_output(0, t);
  return absl::OkStatus();
}

}  // namespace

void RegisterMathClipOps(OpRegistry& r) {
  r.Register(OpDefBuilder("ClipByValue")
                 .Input("t: T")
                 .Input("clip_value_min: T")
                 .Input("clip_value_max: T")
                 .Output("output: T")
                 .Attr("T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16}")
                 .SetShapeFn(ClipShape));
}

}  // namespace tw
