// TensorFlow's collective ops (v1 schemas): CollectiveReduce, CollectiveBcastSend,
// CollectiveBcastRecv. Members are the tasks running an op of the same group_key; the
// runtime behind them is src/kernels/collective.h.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// The attrs every collective op has, as TensorFlow declares them.
OpDefBuilder& CommonAttrs(OpDefBuilder& b) {
  return b.Attr("group_size: int").Attr("group_key: int").Attr("instance_key: int")
      .Attr("communication_hint: string = 'auto'").Attr("timeout_seconds: float = 0").SetStateful();
}

absl::Status BcastShapeFromAttr(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(PartialShape shape, GetShapeAttr(c.attrs(), "shape"));
  c.set_output(0, shape);
  return absl::OkStatus();
}

}  // namespace

void RegisterCollectiveOps(OpRegistry& r) {
  {
    OpDefBuilder b("CollectiveReduce");
    b.Input("input: T").Output("data: T").Attr("T: {float, double, int32, int64}")
        .Attr("merge_op: string").Attr("final_op: string")  // Min/Max/Mul/Add, Id/Div: checked by the kernel
        .Attr("subdiv_offsets: list(int)").Attr("wait_for: list(int) = []");
    r.Register(CommonAttrs(b).SetShapeFn(UnchangedShape));
  }
  {
    OpDefBuilder b("CollectiveBcastSend");
    b.Input("input: T").Output("data: T").Attr("T: {bool, float, double, int32, int64}").Attr("shape: shape");
    r.Register(CommonAttrs(b).SetShapeFn(UnchangedShape));
  }
  {
    OpDefBuilder b("CollectiveBcastRecv");
    b.Output("data: T").Attr("T: {bool, float, double, int32, int64}").Attr("shape: shape");
    r.Register(CommonAttrs(b).SetShapeFn(BcastShapeFromAttr));
  }
}

}  // namespace tw
