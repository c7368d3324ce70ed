// _Send and _Recv: inserted by the partitioner on every edge that crosses devices.
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {

void RegisterSendRecvOps(OpRegistry& r) {
  r.Register(OpDefBuilder("_Send").Input("tensor: T").Attr("T: type").Attr("tensor_name: string")
                 .Attr("send_device: string").Attr("send_device_incarnation: int = 0")
                 .Attr("recv_device: string").Attr("client_terminated: bool = false")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext&) { return absl::OkStatus(); }));
  r.Register(OpDefBuilder("_Recv").Output("tensor: tensor_type").Attr("tensor_type: type")
                 .Attr("tensor_name: string").Attr("send_device: string")
                 .Attr("send_device_incarnation: int = 0").Attr("recv_device: string")
                 .Attr("client_terminated: bool = false")
                 // Our addition: the sender's static shape, so the receiving side keeps it.
                 .Attr("shape: shape = unknown")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_ASSIGN_OR_RETURN(PartialShape shape, GetShapeAttr(c.attrs(), "shape"));
                   c.set_output(0, shape);
                   return absl::OkStatus();
                 }));
}

}  // namespace tw
