// Ops of TF1's queue-based input pipeline that are not queues: ResourceCountUpTo, the
// epoch counter of tf.train.limit_epochs (string_input_producer's num_epochs).
#include "graph/op_registry.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {

void RegisterInputOps(OpRegistry& r) {
  r.Register(OpDefBuilder("ResourceCountUpTo").Input("resource: resource").Output("output: T")
                 .Attr("limit: int").Attr("T: {int32, int64}").SetStateful()
                 .SetShapeFn([](InferenceContext& c) {
                   c.set_output(0, PartialShape({}));
                   return absl::OkStatus();
                 }));
}

}  // namespace tw
