// Dataflow control flow (TF1's cond and while_loop): Switch routes a tensor to one of two
// outputs and leaves the other dead; Merge forwards whichever input is live; Enter, Exit
// and NextIteration move a tensor into, out of and around a loop's frame; LoopCond marks a
// loop's predicate. The executor implements deadness and frames (src/runtime/executor.cc);
// these are only the schemas.
#include <vector>

#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status SwitchShape(InferenceContext& c) {
  if (c.input_shape(1).known_rank() && c.input_shape(1).rank() != 0) {
    return absl::InvalidArgumentError("Switch: pred must be a scalar, got shape " +
                                      c.input_shape(1).DebugString());
  }
  c.set_output(0, c.input_shape(0));
  c.set_output(1, c.input_shape(0));
  return absl::OkStatus();
}

// The branches may disagree: keep the rank when they share it and the dims they agree on,
// as TF's Merge shape function does.
absl::Status MergeShape(InferenceContext& c) {
  PartialShape out = c.input_shape(0);
  for (int i = 1; i < c.num_inputs() && out.known_rank(); ++i) {
    const PartialShape& s = c.input_shape(i);
    if (!s.known_rank() || s.rank() != out.rank()) {
      out = PartialShape::UnknownRank();
      break;
    }
    std::vector<int64_t> dims(out.dims().begin(), out.dims().end());
    for (int d = 0; d < out.rank(); ++d) {
      if (dims[d] != s.dim(d)) dims[d] = -1;
    }
    out = PartialShape(absl::MakeConstSpan(dims));
  }
  c.set_output(0, out);
  c.set_output(1, PartialShape({}));
  return absl::OkStatus();
}

absl::Status SameAsInput(InferenceContext& c) {
  c.set_output(0, c.input_shape(0));
  return absl::OkStatus();
}

}  // namespace

void RegisterControlFlowOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Switch")
                 .Input("data: T")
                 .Input("pred: bool")
                 .Output("output_false: T")
                 .Output("output_true: T")
                 .Attr("T: type")
                 .SetShapeFn(SwitchShape));
  r.Register(OpDefBuilder("Merge")
                 .Input("inputs: N * T")
                 .Output("output: T")
                 .Output("value_index: int32")
                 .Attr("T: type")
                 .Attr("N: int >= 1")
                 .SetShapeFn(MergeShape));
  r.Register(OpDefBuilder("Enter")
                 .Input("data: T")
                 .Output("output: T")
                 .Attr("T: type")
                 .Attr("frame_name: string")
                 .Attr("is_constant: bool = false")
                 .Attr("parallel_iterations: int = 10")
                 .SetShapeFn(SameAsInput));
  r.Register(OpDefBuilder("Exit").Input("data: T").Output("output: T").Attr("T: type").SetShapeFn(SameAsInput));
  r.Register(
      OpDefBuilder("NextIteration").Input("data: T").Output("output: T").Attr("T: type").SetShapeFn(SameAsInput));
  r.Register(OpDefBuilder("LoopCond")
                 .Input("input: bool")
                 .Output("output: bool")
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   if (c.input_shape(0).known_rank() && c.input_shape(0).rank() != 0) {
                     return absl::InvalidArgumentError("LoopCond: input must be a scalar, got shape " +
                                                       c.input_shape(0).DebugString());
                   }
                   c.set_output(0, PartialShape({}));
                   return absl::OkStatus();
                 }));
  // A resource variable's shape: TF's cond gradient makes the untaken side's zeros for a
  // variable read in a branch from it (so TF-written cond training graphs need it).
  r.Register(OpDefBuilder("VariableShape")
                 .Input("input: resource")
                 .Output("output: out_type")
                 .Attr("out_type: {int32, int64} = int32")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   c.set_output(0, PartialShape::Unknown(1));
                   return absl::OkStatus();
                 }));
}

}  // namespace tw
