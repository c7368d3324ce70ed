// FusedBatchNorm (V1, V2, V3) and FusedBatchNormGrad (V1, V2, V3) with TensorFlow's schemas
// and attrs. Rank-4 inputs (NHWC or NCHW); unknown dims stay unknown in the shapes, and a
// channel count that disagrees with x's is an InvalidArgument naming the tensor.
#include <string>

#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

struct NormAttrs {
  bool nchw = false;
  bool is_training = true;
  float exponential_avg_factor = 1.0f;
};

absl::StatusOr<NormAttrs> ReadNormAttrs(const AttrMap& attrs, bool has_factor) {
  NormAttrs a;
  TW_ASSIGN_OR_RETURN(std::string format, GetStringAttr(attrs, "data_format"));
  if (format != "NHWC" && format != "NCHW") {
    return absl::InvalidArgumentError(
        absl::StrCat("batch norm takes data_format NHWC or NCHW (4-D inputs), got '", format, "'"));
  }
  a.nchw = format == "NCHW";
  TW_ASSIGN_OR_RETURN(a.is_training, GetBoolAttr(attrs, "is_training"));
  if (has_factor) {
    TW_ASSIGN_OR_RETURN(a.exponential_avg_factor, GetFloatAttr(attrs, "exponential_avg_factor"));
  }
  return a;
}

// The channel dim of x (input `x_input`, rank 4), -1 when unknown.
absl::StatusOr<int64_t> Channels(InferenceContext& c, int x_input, const NormAttrs& a) {
  TW_RETURN_IF_ERROR(c.WithRank(x_input, 4));
  const PartialShape& x = c.input_shape(x_input);
  return x.known_rank() ? x.dim(a.nchw ? 1 : 3) : -1;
}

// Input `i` (named `what`) must be a vector of `channels` elements; `when` prefixes the error.
absl::Status CheckChannelVector(InferenceContext& c, int i, const char* what, int64_t channels,
                                const char* when = "") {
  TW_RETURN_IF_ERROR(c.WithRank(i, 1));
  const PartialShape& s = c.input_shape(i);
  if (!s.known_rank() || s.dim(0) < 0 || channels < 0 || s.dim(0) == channels) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(when, what, " must have the same number of elements as the channels of x, got ",
                                                 s.dim(0), " and ", channels));
}

absl::Status FusedBatchNormShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(NormAttrs a, ReadNormAttrs(c.attrs(), true));
  TW_ASSIGN_OR_RETURN(int64_t channels, Channels(c, 0, a));
  TW_RETURN_IF_ERROR(CheckChannelVector(c, 1, "scale", channels));
  TW_RETURN_IF_ERROR(CheckChannelVector(c, 2, "offset", channels));
  // Training without averaging ignores mean and variance (TF's Python passes empty ones),
  // and, as TF, does not check them.
  if (!a.is_training || a.exponential_avg_factor != 1.0f) {
    const char* when = a.is_training ? "When exponential_avg_factor != 1, " : "When is_training=false, ";
    TW_RETURN_IF_ERROR(CheckChannelVector(c, 3, "mean", channels, when));
    TW_RETURN_IF_ERROR(CheckChannelVector(c, 4, "variance", channels, when));
  }
  c.set_output(0, c.input_shape(0));
  for (int i = 1; i <= 4; ++i) c.set_output(i, PartialShape({channels}));
  if (c.num_outputs() == 6) c.set_output(5, PartialShape({0}));
  return absl::OkStatus();
}

// FusedBatchNormGrad(y_backprop, x, scale, reserve_space_1, reserve_space_2[, reserve_space_3]).
absl::Status FusedBatchNormGradShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(NormAttrs a, ReadNormAttrs(c.attrs(), false));
  TW_ASSIGN_OR_RETURN(int64_t channels, Channels(c, 1, a));
  TW_RETURN_IF_ERROR(c.WithRank(0, 4));
  if (!c.input_shape(0).IsCompatibleWith(c.input_shape(1))) {
    return absl::InvalidArgumentError(absl::StrCat("y_backprop has shape ", c.input_shape(0).DebugString(),
                                                   " but x has ", c.input_shape(1).DebugString()));
  }
  TW_RETURN_IF_ERROR(CheckChannelVector(c, 2, "scale", channels));
  TW_RETURN_IF_ERROR(CheckChannelVector(c, 3, "reserve_space_1", channels));
  TW_RETURN_IF_ERROR(CheckChannelVector(c, 4, "reserve_space_2", channels));
  c.set_output(0, c.input_shape(1).known_rank() ? c.input_shape(1) : c.input_shape(0));
  c.set_output(1, PartialShape({channels}));
  c.set_output(2, PartialShape({channels}));
  // TF's placeholders for the gradients of the reserve spaces: zero scalars.
  c.set_output(3, PartialShape(DimVector{}));
  c.set_output(4, PartialShape(DimVector{}));
  return absl::OkStatus();
}

// version 1: every tensor is T; versions 2 and 3: statistics are U; 3 adds reserve_space_3.
OpDefBuilder ForwardOp(const std::string& name, int version) {
  const char* u = version == 1 ? "T" : "U";
  OpDefBuilder b(name);
  b.Input("x: T");
  for (const char* in : {"scale", "offset", "mean", "variance"}) b.Input(absl::StrCat(in, ": ", u));
  b.Output("y: T");
  for (const char* out : {"batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"}) {
    b.Output(absl::StrCat(out, ": ", u));
  }
  if (version == 3) b.Output(absl::StrCat("reserve_space_3: ", u));
  b.Attr("T: {float32}");
  if (version > 1) b.Attr("U: {float32}");
  return b.Attr("epsilon: float = 0.0001")
      .Attr("exponential_avg_factor: float = 1.0")
      .Attr("data_format: string = 'NHWC'")
      .Attr("is_training: bool = true")
      .SetShapeFn(FusedBatchNormShapeFn);
}

OpDefBuilder GradOp(const std::string& name, int version) {
  const char* u = version == 1 ? "T" : "U";
  OpDefBuilder b(name);
  b.Input("y_backprop: T").Input("x: T").Input("scale: T");
  b.Input(absl::StrCat("reserve_space_1: ", u)).Input(absl::StrCat("reserve_space_2: ", u));
  if (version == 3) b.Input(absl::StrCat("reserve_space_3: ", u));
  b.Output("x_backprop: T");
  for (const char* out : {"scale_backprop", "offset_backprop", "reserve_space_3", "reserve_space_4"}) {
    b.Output(absl::StrCat(out, ": ", u));
  }
  b.Attr("T: {float32}");
  if (version > 1) b.Attr("U: {float32}");
  return b.Attr("epsilon: float = 0.0001")
      .Attr("data_format: string = 'NHWC'")
      .Attr("is_training: bool = true")
      .SetShapeFn(FusedBatchNormGradShapeFn);
}

}  // namespace

void RegisterNnNormOps(OpRegistry& r) {
  r.Register(ForwardOp("FusedBatchNorm", 1));
  r.Register(ForwardOp("FusedBatchNormV2", 2));
  r.Register(ForwardOp("FusedBatchNormV3", 3));
  r.Register(GradOp("FusedBatchNormGrad", 1));
  r.Register(GradOp("FusedBatchNormGradV2", 2));
  r.Register(GradOp("FusedBatchNormGradV3", 3));
}

}  // namespace tw
