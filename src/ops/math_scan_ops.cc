// Cumsum and Cumprod: running sums/products along one axis (exclusive: shifted by one,
// starting from the identity; reverse: from the end), as TensorFlow declares them.
#include "ops/ops.h"

namespace tw {

void RegisterMathScanOps(OpRegistry& r) {
  for (const char* op : {"Cumsum", "Cumprod"}) {
    r.Register(OpDefBuilder(op)
                   .Input("x: T")
                   .Input("axis: Tidx")
                   .Output("out: T")
                   .Attr("exclusive: bool = false")
                   .Attr("reverse: bool = false")
                   .Attr("T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16}")
                   .Attr("Tidx: {int32, int64} = int32")
                   .SetShapeFn(UnchangedShape));
  }
}

}  // namespace tw
