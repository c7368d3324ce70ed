// PyFunc, PyFuncStateless and EagerPyFunc as TensorFlow's: a call into a function of the
// client's Python process, named by `token`. Outputs have unknown shapes (the function
// decides); PyFuncStateless is the only one the graph may merge or prune as a duplicate.
#include "ops/ops.h"

namespace tw {
namespace {

absl::Status UnknownShapes(InferenceContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape::UnknownRank());
  return absl::OkStatus();
}

OpDefBuilder ScriptOp(const char* name) {
  return OpDefBuilder(name)
      .Input("input: Tin")
      .Output("output: Tout")
      .Attr("token: string")
      .Attr("Tin: list(type) >= 0")
      .Attr("Tout: list(type) >= 0")
      .SetShapeFn(UnknownShapes);
}

}  // namespace

void RegisterScriptOps(OpRegistry& r) {
  r.Register(ScriptOp("PyFunc").SetStateful());
  r.Register(ScriptOp("PyFuncStateless"));
  r.Register(ScriptOp("EagerPyFunc").Attr("is_async: bool = false").SetStateful());
}

}  // namespace tw
