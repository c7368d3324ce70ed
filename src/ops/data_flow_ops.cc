// Queues and gradient accumulators (TensorFlow's data_flow_ops): a FIFOQueueV2 or a
// ResourceConditionalAccumulator names its state in the device's ResourceMgr (by
// shared_name, or the node's name when shared_name is empty); the other ops act on the
// state a handle names. Shapes of dequeued values and taken gradients are the queue's and
// accumulator's, which these nodes cannot see: they are left unknown.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status QueueShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(std::vector<DType> types, GetTypeListAttr(c.attrs(), "component_types"));
  TW_ASSIGN_OR_RETURN(std::vector<PartialShape> shapes, GetShapeListAttr(c.attrs(), "shapes"));
  if (types.empty()) return absl::InvalidArgumentError("component_types must not be empty");
  if (!shapes.empty() && shapes.size() != types.size()) {
    return absl::InvalidArgumentError(absl::StrCat("shapes has ", shapes.size(),
                                                   " entries but component_types has ",
                                                   types.size()));
  }
  c.set_output(0, PartialShape({}));
  return absl::OkStatus();
}

absl::Status AccumulatorShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(PartialShape shape, GetShapeAttr(c.attrs(), "shape"));
  (void)shape;
  c.set_output(0, PartialShape({}));
  return absl::OkStatus();
}

// A dense or sparse accumulator's handle-making op: TensorFlow's attrs.
OpDefBuilder AccumulatorDef(const char* name) {
  OpDefBuilder b(name);
  b.Output("handle: resource")
      .Attr("dtype: {float, double}")
      .Attr("shape: shape")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Attr("reduction_type: string = 'MEAN'")
      .SetStateful()
      .SetShapeFn(AccumulatorShape);
  return b;
}

// Inputs `scalars` must be scalars (the handle and step-like arguments); outputs are
// scalars too when `scalar_outputs`, else unknown.
ShapeFn ScalarInputs(std::vector<int> scalars, bool scalar_outputs) {
  return [scalars, scalar_outputs](InferenceContext& c) -> absl::Status {
    for (int i : scalars) TW_RETURN_IF_ERROR(c.WithRank(i, 0));
    for (int i = 0; i < c.num_outputs(); ++i) {
      c.set_output(i, scalar_outputs ? PartialShape({}) : PartialShape::UnknownRank());
    }
    return absl::OkStatus();
  };
}

}  // namespace

void RegisterDataFlowOps(OpRegistry& r) {
  // capacity < 0: unbounded. shapes: one per component, or none (any shape).
  r.Register(OpDefBuilder("FIFOQueueV2")
                 .Output("handle: resource")
                 .Attr("component_types: list(type)")
                 .Attr("shapes: list(shape) = []")
                 .Attr("capacity: int = -1")
                 .Attr("container: string = ''")
                 .Attr("shared_name: string = ''")
                 .SetStateful()
                 .SetShapeFn(QueueShape));
  // timeout_ms is accepted as in TensorFlow, where it is not supported either.
  r.Register(OpDefBuilder("QueueEnqueueV2")
                 .Input("handle: resource")
                 .Input("components: Tcomponents")
                 .Attr("Tcomponents: list(type)")
                 .Attr("timeout_ms: int = -1")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0}, false)));
  r.Register(OpDefBuilder("QueueEnqueueManyV2")
                 .Input("handle: resource")
                 .Input("components: Tcomponents")
                 .Attr("Tcomponents: list(type)")
                 .Attr("timeout_ms: int = -1")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0}, false)));
  r.Register(OpDefBuilder("QueueDequeueV2")
                 .Input("handle: resource")
                 .Output("components: component_types")
                 .Attr("component_types: list(type)")
                 .Attr("timeout_ms: int = -1")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0}, false)));
  r.Register(OpDefBuilder("QueueDequeueManyV2")
                 .Input("handle: resource")
                 .Input("n: int32")
                 .Output("components: component_types")
                 .Attr("component_types: list(type)")
                 .Attr("timeout_ms: int = -1")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0, 1}, false)));
  // A closed queue hands over what it has (at least one element) instead of failing.
  r.Register(OpDefBuilder("QueueDequeueUpToV2")
                 .Input("handle: resource")
                 .Input("n: int32")
                 .Output("components: component_types")
                 .Attr("component_types: list(type)")
                 .Attr("timeout_ms: int = -1")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0, 1}, false)));
  // Dequeues a random element while more than min_after_dequeue remain (all once closed).
  r.Register(OpDefBuilder("PaddingFIFOQueueV2")
                 .Output("handle: resource")
                 .Attr("component_types: list(type)")
                 .Attr("shapes: list(shape) = []")
                 .Attr("capacity: int = -1")
                 .Attr("container: string = ''")
                 .Attr("shared_name: string = ''")
                 .SetStateful()
                 .SetShapeFn(QueueShape));
  r.Register(OpDefBuilder("RandomShuffleQueueV2")
                 .Output("handle: resource")
                 .Attr("component_types: list(type)")
                 .Attr("shapes: list(shape) = []")
                 .Attr("capacity: int = -1")
                 .Attr("min_after_dequeue: int = 0")
                 .Attr("seed: int = 0")
                 .Attr("seed2: int = 0")
                 .Attr("container: string = ''")
                 .Attr("shared_name: string = ''")
                 .SetStateful()
                 .SetShapeFn(QueueShape));
  r.Register(OpDefBuilder("QueueCloseV2")
                 .Input("handle: resource")
                 .Attr("cancel_pending_enqueues: bool = false")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0}, true)));
  r.Register(OpDefBuilder("QueueSizeV2")
                 .Input("handle: resource")
                 .Output("size: int32")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0}, true)));

  r.Register(AccumulatorDef("ResourceConditionalAccumulator"));
  r.Register(OpDefBuilder("ResourceAccumulatorApplyGradient")
                 .Input("handle: resource")
                 .Input("local_step: int64")
                 .Input("gradient: dtype")
                 .Attr("dtype: {float, double}")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0, 1}, true)));
  r.Register(OpDefBuilder("ResourceAccumulatorTakeGradient")
                 .Input("handle: resource")
                 .Input("num_required: int32")
                 .Output("average: dtype")
                 .Attr("dtype: {float, double}")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0, 1}, false)));
  // TensorFlow's sparse accumulator takes its handle as a Ref(string); ours is a resource,
  // as ResourceConditionalAccumulator's (the NumAccumulated and SetGlobalStep ops serve both).
  r.Register(AccumulatorDef("SparseConditionalAccumulator"));
  r.Register(OpDefBuilder("SparseAccumulatorApplyGradient")
                 .Input("handle: resource")
                 .Input("local_step: int64")
                 .Input("gradient_indices: int64")
                 .Input("gradient_values: dtype")
                 .Input("gradient_shape: int64")
                 .Attr("dtype: {float, double}")
                 .Attr("has_known_shape: bool")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(0, 0));
                   TW_RETURN_IF_ERROR(c.WithRank(1, 0));
                   TW_RETURN_IF_ERROR(c.WithRank(2, 1));
                   return c.WithRank(4, 1);
                 }));
  r.Register(OpDefBuilder("SparseAccumulatorTakeGradient")
                 .Input("handle: resource")
                 .Input("num_required: int32")
                 .Output("indices: int64")
                 .Output("values: dtype")
                 .Output("shape: int64")
                 .Attr("dtype: {float, double}")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(0, 0));
                   TW_RETURN_IF_ERROR(c.WithRank(1, 0));
                   c.set_output(0, PartialShape({-1}));
                   c.set_output(1, PartialShape::UnknownRank());
                   c.set_output(2, PartialShape({-1}));
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("ResourceAccumulatorNumAccumulated")
                 .Input("handle: resource")
                 .Output("num_accumulated: int32")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0}, true)));
  r.Register(OpDefBuilder("ResourceAccumulatorSetGlobalStep")
                 .Input("handle: resource")
                 .Input("new_global_step: int64")
                 .SetStateful()
                 .SetShapeFn(ScalarInputs({0, 1}, true)));
}

}  // namespace tw
