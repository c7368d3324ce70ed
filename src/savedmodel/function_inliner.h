// Inlining of function calls (StatefulPartitionedCall / PartitionedCall), the form TF2's
// tf.saved_model.save gives every tf.function: each call node is replaced by the nodes of
// its function's body, named "<call>/<body node>", so the graph runs on our executor,
// which has no function runtime.
#ifndef TENSORWEAVE_SRC_SAVEDMODEL_FUNCTION_INLINER_H_
#define TENSORWEAVE_SRC_SAVEDMODEL_FUNCTION_INLINER_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tensorweave/proto/function.pb.h"
#include "tensorweave/proto/graph.pb.h"
#include "core/proto_namespace.h"

namespace tw {

bool IsFunctionCall(const NodeDef& node);
// The function a call node names (its "f" attr); InvalidArgument naming the node if none.
absl::StatusOr<std::string> CalledFunction(const NodeDef& node);
// The library of a GraphDef (its field 2, which graph.proto does not model).
FunctionDefLibrary LibraryOf(const GraphDef& def);

// Replaces every call in `def` by its function's body, nested calls too (up to a depth
// of 16, and 200000 nodes: ResourceExhausted beyond). A call with N outputs becomes an
// Identity named as the call (its output 0, which also waits for the whole body) and, for
// outputs 1..N-1, Identities "<call>/_output_k": *renamed maps "call:k" to those
// (consumers in `def` are rewritten; callers rename the signature's tensor names).
// Errors: NotFound for a function not in `library`, Unimplemented for a body op we lack,
// InvalidArgument for a malformed body.
absl::Status InlineFunctionCalls(GraphDef* def, const FunctionDefLibrary& library,
                                 std::map<std::string, std::string>* renamed);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_SAVEDMODEL_FUNCTION_INLINER_H_
