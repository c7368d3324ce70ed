// TopKV2 (the k largest entries of the last dim, with their indices) and InTopK/InTopKV2
// (is each target among the k highest predictions of its row), as TensorFlow declares them.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// k as a number when the graph shows it (a Const scalar), else -1.
int64_t KnownK(const InferenceContext& c, int input) {
  std::vector<int64_t> k;
  if (c.input_shape(input).rank() == 0 && c.ConstantIntVector(input, &k) && k.size() == 1) return k[0];
  return -1;
}

absl::Status TopKShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, 1));
  TW_RETURN_IF_ERROR(c.WithRank(1, 0));
  const int64_t k = KnownK(c, 1);
  if (c.input_tensor(1) != nullptr && k < 0) {
    return absl::InvalidArgumentError(absl::StrCat("Input k must be >= 0, got ", k));
  }
  const PartialShape& in = c.input_shape(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    c.set_output(1, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  const int64_t cols = in.dim(in.rank() - 1);
  if (k >= 0 && cols >= 0 && cols < k) {
    return absl::InvalidArgumentError(absl::StrCat("input must have last dimension >= k = ", k,
                                                   " but is ", cols));
  }
  DimVector dims(in.dims().begin(), in.dims().end());
  dims.back() = k;
  c.set_output(0, PartialShape(dims));
  c.set_output(1, PartialShape(dims));
  return absl::OkStatus();
}

// predictions [batch, classes], targets [batch] -> [batch] bools.
absl::Status InTopKShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 2));
  TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  if (c.num_inputs() == 3) TW_RETURN_IF_ERROR(c.WithRank(2, 0));
  const PartialShape& p = c.input_shape(0);
  const PartialShape& t = c.input_shape(1);
  int64_t batch = p.known_rank() ? p.dim(0) : -1;
  const int64_t targets = t.known_rank() ? t.dim(0) : -1;
  if (batch >= 0 && targets >= 0 && batch != targets) {
    return absl::InvalidArgumentError(absl::StrCat("First dimension of predictions ", batch,
                                                   " must match length of targets ", targets));
  }
  if (batch < 0) batch = targets;
  c.set_output(0, PartialShape({batch}));
  return absl::OkStatus();
}

}  // namespace

void RegisterNnTopKOps(OpRegistry& r) {
  r.Register(OpDefBuilder("TopKV2")
                 .Input("input: T")
                 .Input("k: Tk")
                 .Output("values: T")
                 .Output("indices: index_type")
                 .Attr("sorted: bool = true")
                 .Attr("T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16}")
                 .Attr("Tk: {int32, int64} = int32")
                 .Attr("index_type: {int32, int64} = int32")
                 .SetShapeFn(TopKShape));
  r.Register(OpDefBuilder("InTopK")
                 .Input("predictions: float32")
                 .Input("targets: T")
                 .Output("precision: bool")
                 .Attr("k: int")
                 .Attr("T: {int32, int64} = int32")
                 .SetShapeFn(InTopKShape));
  r.Register(OpDefBuilder("InTopKV2")
                 .Input("predictions: float32")
                 .Input("targets: T")
                 .Input("k: T")
                 .Output("precision: bool")
                 .Attr("T: {int32, int64} = int32")
                 .SetShapeFn(InTopKShape));
}

}  // namespace tw
