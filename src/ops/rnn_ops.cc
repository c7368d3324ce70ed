// BlockLSTM and BlockLSTMGrad with TensorFlow's schemas (tensorflow/core/ops/rnn_ops.cc): a
// whole LSTM sequence in one op, gates in TF's order [i, ci, f, o] (BasicLSTMCell's
// [i, j, f, o]), as tf.contrib.rnn.LSTMBlockFusedCell calls it. x is [time, batch, input],
// the states [batch, cell], w [input + cell, 4 * cell], b [4 * cell], peepholes [cell];
// every output is [time, batch, cell].
#include <string>

#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

constexpr const char* kForwardInputs[] = {"x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"};
constexpr const char* kForwardOutputs[] = {"i", "cs", "f", "o", "ci", "co", "h"};

// Known dims of input `i` that must equal `want` (when known): an InvalidArgument naming it.
absl::Status CheckDim(const InferenceContext& c, int i, int d, int64_t want, const char* what) {
  const PartialShape& s = c.input_shape(i);
  if (!s.known_rank() || want < 0 || s.dim(d) < 0 || s.dim(d) == want) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("BlockLSTM: ", what, " has shape ", s.DebugString(), ", dim ", d, " should be ", want));
}

// The forward inputs follow seq_len_max (input 0): x at 1 .. b at 8. Sets `time`, `batch`
// and `cell` (-1 when unknown) after checking the ranks and the dims that must agree.
absl::Status BlockLstmDims(const InferenceContext& c, int64_t* time, int64_t* batch, int64_t* cell) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 0));
  TW_RETURN_IF_ERROR(c.WithRank(1, 3));
  for (int i : {2, 3, 4}) TW_RETURN_IF_ERROR(c.WithRank(i, 2));
  for (int i : {5, 6, 7, 8}) TW_RETURN_IF_ERROR(c.WithRank(i, 1));
  const PartialShape& x = c.input_shape(1);
  const PartialShape& w = c.input_shape(4);
  *time = x.known_rank() ? x.dim(0) : -1;
  *batch = x.known_rank() ? x.dim(1) : -1;
  *cell = c.input_shape(8).known_rank() && c.input_shape(8).dim(0) >= 0 ? c.input_shape(8).dim(0) / 4 : -1;
  if (*cell < 0 && w.known_rank() && w.dim(1) >= 0) *cell = w.dim(1) / 4;
  TW_RETURN_IF_ERROR(CheckDim(c, 2, 0, *batch, "cs_prev"));
  TW_RETURN_IF_ERROR(CheckDim(c, 2, 1, *cell, "cs_prev"));
  TW_RETURN_IF_ERROR(CheckDim(c, 3, 0, *batch, "h_prev"));
  TW_RETURN_IF_ERROR(CheckDim(c, 3, 1, *cell, "h_prev"));
  TW_RETURN_IF_ERROR(CheckDim(c, 4, 1, *cell < 0 ? -1 : 4 * *cell, "w"));
  const int64_t input = x.known_rank() ? x.dim(2) : -1;
  TW_RETURN_IF_ERROR(CheckDim(c, 4, 0, input < 0 || *cell < 0 ? -1 : input + *cell, "w"));
  for (int i : {5, 6, 7}) TW_RETURN_IF_ERROR(CheckDim(c, i, 0, *cell, kForwardInputs[i - 1]));
  return absl::OkStatus();
}

absl::Status BlockLstmShapeFn(InferenceContext& c) {
  int64_t time, batch, cell;
  TW_RETURN_IF_ERROR(BlockLstmDims(c, &time, &batch, &cell));
  for (int i = 0; i < 7; ++i) c.set_output(i, PartialShape({time, batch, cell}));
  return absl::OkStatus();
}

absl::Status BlockLstmGradShapeFn(InferenceContext& c) {
  int64_t time, batch, cell;
  TW_RETURN_IF_ERROR(BlockLstmDims(c, &time, &batch, &cell));
  for (int i = 9; i < 18; ++i) TW_RETURN_IF_ERROR(c.WithRank(i, 3));
  // The gradients have the shapes of the forward inputs x .. b.
  for (int i = 0; i < 8; ++i) c.set_output(i, c.input_shape(i + 1));
  return absl::OkStatus();
}

}  // namespace

void RegisterRnnOps(OpRegistry& r) {
  OpDefBuilder forward("BlockLSTM");
  forward.Input("seq_len_max: int64");
  for (const char* in : kForwardInputs) forward.Input(absl::StrCat(in, ": T"));
  for (const char* out : kForwardOutputs) forward.Output(absl::StrCat(out, ": T"));
  r.Register(forward.Attr("forget_bias: float = 1.0")
                 .Attr("cell_clip: float = 3.0")
                 .Attr("use_peephole: bool = false")
                 .Attr("T: {float32}")
                 .SetShapeFn(BlockLstmShapeFn));

  OpDefBuilder grad("BlockLSTMGrad");
  grad.Input("seq_len_max: int64");
  for (const char* in : kForwardInputs) grad.Input(absl::StrCat(in, ": T"));
  for (const char* out : kForwardOutputs) grad.Input(absl::StrCat(out, ": T"));
  grad.Input("cs_grad: T").Input("h_grad: T");
  for (const char* in : kForwardInputs) grad.Output(absl::StrCat(in, "_grad: T"));
  r.Register(grad.Attr("use_peephole: bool").Attr("T: {float32}").SetShapeFn(BlockLstmGradShapeFn));
}

}  // namespace tw
