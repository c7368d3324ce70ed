// Softmax family, bias ops and L2Loss.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status SoftmaxShape(InferenceContext& c) {
  const PartialShape& s = c.input_shape(0);
  if (s.known_rank() && s.rank() < 1) {
    return absl::InvalidArgumentError("logits must have rank at least 1, got a scalar");
  }
  c.set_output(0, s);
  return absl::OkStatus();
}

absl::Status SoftmaxCrossEntropyShape(InferenceContext& c) {
  const char* names[] = {"features", "labels"};
  for (int i = 0; i < 2; ++i) {
    const PartialShape& s = c.input_shape(i);
    if (s.known_rank() && s.rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(names[i], " must be 2-dimensional, got shape ", s.DebugString()));
    }
  }
  PartialShape f = c.input_shape(0).known_rank() ? c.input_shape(0) : PartialShape::Unknown(2);
  PartialShape l = c.input_shape(1).known_rank() ? c.input_shape(1) : PartialShape::Unknown(2);
  auto merged = f.Merge(l);
  if (!merged.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("logits and labels must be the same size: logits_size=", f.DebugString(),
                     " labels_size=", l.DebugString()));
  }
  c.set_output(0, PartialShape({merged->dim(0)}));
  c.set_output(1, *merged);
  return absl::OkStatus();
}

absl::StatusOr<bool> IsNchw(const InferenceContext& c) {
  auto format = GetStringAttr(c.attrs(), "data_format");
  if (!format.ok()) return false;  // BiasAddV1 has no data_format: NHWC.
  if (*format != "NHWC" && *format != "NCHW") {
    return absl::InvalidArgumentError("data_format must be NHWC or NCHW, got " + *format);
  }
  return *format == "NCHW";
}

absl::Status BiasAddShape(InferenceContext& c) {
  const PartialShape& v = c.input_shape(0);
  const PartialShape& bias = c.input_shape(1);
  TW_ASSIGN_OR_RETURN(bool nchw, IsNchw(c));
  if (v.known_rank() && v.rank() < 2) {
    return absl::InvalidArgumentError("Input tensor must be at least 2D: " + v.DebugString());
  }
  if (bias.known_rank() && bias.rank() != 1) {
    return absl::InvalidArgumentError("Biases must be 1D: " + bias.DebugString());
  }
  PartialShape out = v.known_rank() ? v : PartialShape::UnknownRank();
  if (v.known_rank() && bias.known_rank()) {
    const int channel = nchw ? 1 : v.rank() - 1;
    const int64_t cv = v.dim(channel), cb = bias.dim(0);
    if (cv >= 0 && cb >= 0 && cv != cb) {
      return absl::InvalidArgumentError(
          absl::StrCat("Must provide as many biases as the channel dimension of the input tensor: ",
                       bias.DebugString(), " vs. ", v.DebugString()));
    }
    if (cv < 0 && cb >= 0) {
      DimVector dims(v.dims().begin(), v.dims().end());
      dims[channel] = cb;
      out = PartialShape(dims);
    }
  }
  c.set_output(0, out);
  return absl::OkStatus();
}

absl::Status BiasAddGradShape(InferenceContext& c) {
  const PartialShape& g = c.input_shape(0);
  TW_ASSIGN_OR_RETURN(bool nchw, IsNchw(c));
  if (!g.known_rank()) {
    c.set_output(0, PartialShape::Unknown(1));
    return absl::OkStatus();
  }
  if (g.rank() < 2) {
    return absl::InvalidArgumentError("Input tensor must be at least 2D: " + g.DebugString());
  }
  c.set_output(0, PartialShape({g.dim(nchw ? 1 : g.rank() - 1)}));
  return absl::OkStatus();
}

}  // namespace

void RegisterNnOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Softmax")
                 .Input("logits: T")
                 .Output("softmax: T")
                 .Attr("T: {float16, float32, float64}")
                 .SetShapeFn(SoftmaxShape));
  r.Register(OpDefBuilder("LogSoftmax")
                 .Input("logits: T")
                 .Output("logsoftmax: T")
                 .Attr("T: {float16, float32, float64}")
                 .SetShapeFn(SoftmaxShape));
  r.Register(OpDefBuilder("SoftmaxCrossEntropyWithLogits")
                 .Input("features: T")
                 .Input("labels: T")
                 .Output("loss: T")
                 .Output("backprop: T")
                 .Attr("T: {float32, float64}")
                 .SetShapeFn(SoftmaxCrossEntropyShape));
  r.Register(OpDefBuilder("BiasAdd")
                 .Input("value: T")
                 .Input("bias: T")
                 .Output("output: T")
                 .Attr("T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16}")
                 .Attr("data_format: string = 'NHWC'")
                 .SetShapeFn(BiasAddShape));
  r.Register(OpDefBuilder("BiasAddV1")
                 .Input("value: T")
                 .Input("bias: T")
                 .Output("output: T")
                 .Attr("T: {float32, float64, int32, int64}")
                 .SetShapeFn(BiasAddShape));
  r.Register(OpDefBuilder("BiasAddGrad")
                 .Input("out_backprop: T")
                 .Output("output: T")
                 .Attr("T: {float32, float64, int32, int64}")
                 .Attr("data_format: string = 'NHWC'")
                 .SetShapeFn(BiasAddGradShape));
  // sum(t ** 2) / 2, the weight-decay term (tf.nn.l2_loss's op).
  r.Register(OpDefBuilder("L2Loss")
                 .Input("t: T")
                 .Output("output: T")
                 .Attr("T: {float32, float64}")
                 .SetShapeFn(ScalarShape));
}

}  // namespace tw
