// A FunctionDef (TF's function library format) and the plain graph that runs it, both
// ways. Inside a FunctionDef, node inputs name an argument ("x"), an output of a node by
// its op's output arg ("node:out_arg:k") or a control input ("^node"); the graph form uses
// "node:n" with n counted over the op's expanded outputs, arguments become _Arg nodes and
// results _Retval nodes (as a pruned session graph has them).
#ifndef TENSORWEAVE_SRC_GRAPH_FUNCTION_BODY_H_
#define TENSORWEAVE_SRC_GRAPH_FUNCTION_BODY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/op_registry.h"
#include "tensorweave/proto/graph.pb.h"
#include "core/proto_namespace.h"

namespace tw {

// The function's body as a GraphDef with one _Arg per input arg (named after it, attr
// index) and one _Retval per output arg (named "_retval_<name>"). InvalidArgument naming
// the function on a malformed body: an arg whose type is not fixed, an input naming
// nothing, an output arg missing from `ret`.
absl::StatusOr<GraphDef> FunctionBodyGraphDef(const FunctionDef& fn, const OpRegistry& registry);

// The FunctionDef `name` whose arguments are the Placeholders `inputs` of `body` (in
// order; named "arg0", ...) and whose results are the tensors `outputs` ("node:k";
// named "output0", ...). Every other node of `body` goes into the function.
absl::StatusOr<FunctionDef> FunctionDefFromGraphDef(const GraphDef& body, const std::string& name,
                                                    const std::vector<std::string>& inputs,
                                                    const std::vector<std::string>& outputs,
                                                    const OpRegistry& registry);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_GRAPH_FUNCTION_BODY_H_
