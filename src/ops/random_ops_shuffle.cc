// RandomShuffle: the rows (first dim) of a tensor in a random order, with TensorFlow's
// seed attrs (op seed and graph seed as seed2).
#include "ops/ops.h"

namespace tw {

void RegisterRandomShuffleOps(OpRegistry& r) {
  r.Register(OpDefBuilder("RandomShuffle")
                 .Input("value: T")
                 .Output("output: T")
                 .Attr("seed: int = 0")
                 .Attr("seed2: int = 0")
                 .Attr("T: {bool, float32, float64, int32, int64}")
                 .SetStateful()
                 .SetShapeFn(UnchangedShape));
}

}  // namespace tw
