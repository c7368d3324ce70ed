// TensorFlow's stateless random ops (stateless_random_ops.cc): values are a function of the
// shape and a [2] seed input alone, so the ops are not stateful.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "ops/random_shape.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// TensorFlow's StatelessShape: the seed is a vector of 2, the output shape from input 0.
absl::Status StatelessShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  const PartialShape& seed = c.input_shape(1);
  if (seed.known_rank() && seed.dim(0) >= 0 && seed.dim(0) != 2) {
    return absl::InvalidArgumentError(absl::StrCat("Dimension must be 2 but is ", seed.dim(0)));
  }
  return RandomShape(c);
}

absl::Status StatelessIntShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(2, 0));
  TW_RETURN_IF_ERROR(c.WithRank(3, 0));
  return StatelessShape(c);
}

OpDefBuilder StatelessFloatOp(const char* name) {
  return OpDefBuilder(name)
      .Input("shape: T")
      .Input("seed: Tseed")
      .Output("output: dtype")
      .Attr("dtype: {float32, float64} = float32")
      .Attr("T: {int32, int64} = int32")
      .Attr("Tseed: {int32, int64} = int64")
      .SetShapeFn(StatelessShape);
}

}  // namespace

void RegisterStatelessRandomOps(OpRegistry& r) {
  r.Register(StatelessFloatOp("StatelessRandomUniform"));
  r.Register(StatelessFloatOp("StatelessRandomNormal"));
  r.Register(StatelessFloatOp("StatelessTruncatedNormal"));
  r.Register(OpDefBuilder("StatelessRandomUniformInt")
                 .Input("shape: T")
                 .Input("seed: Tseed")
                 .Input("minval: dtype")
                 .Input("maxval: dtype")
                 .Output("output: dtype")
                 .Attr("dtype: {int32, int64}")
                 .Attr("T: {int32, int64}")
                 .Attr("Tseed: {int32, int64} = int64")
                 .SetShapeFn(StatelessIntShape));
  // TensorFlow also allows uint32/uint64 (its default), which tensorweave has no dtype for.
  r.Register(OpDefBuilder("StatelessRandomUniformFullInt")
                 .Input("shape: T")
                 .Input("seed: Tseed")
                 .Output("output: dtype")
                 .Attr("dtype: {int32, int64} = int64")
                 .Attr("T: {int32, int64} = int32")
                 .Attr("Tseed: {int32, int64} = int64")
                 .SetShapeFn(StatelessShape));
}

}  // namespace tw
