// TF1 reference variables in a GraphDef, lowered to resource variables on import.
//
// TensorFlow 1 (and tf.compat.v1 with resource variables disabled) writes training graphs
// whose variables are VariableV2 nodes with "ref" outputs that Assign, Apply* and Scatter*
// ops update in place. tensorweave has resource variables only, so ImportGraphDef rewrites
// such a graph before building it:
//   VariableV2 / Variable v      -> VarHandleOp "v/handle" (shared_name v unless set; dtype,
//                                   shape, container and device kept), and "v" a read of it:
//                                   fetching "v:0" gives the value, as in TF1; a control input
//                                   "^v" becomes "^v/handle"; when an Assign of v has
//                                   validate_shape=false, the handle declares no shape (TF
//                                   lets such an Assign change the variable's shape)
//   Identity(v) (e.g. "v/read")  -> ReadVariableOp of the same name
//   any other op reading v       -> a ReadVariableOp inserted for that consumer, on v's
//                                   device, with the consumer's control inputs (a ref is
//                                   read when its consumer runs)
//   Assign / AssignAdd / AssignSub -> AssignVariableOp / AssignAddVariableOp /
//                                   AssignSubVariableOp (same name; they output the new value)
//   IsVariableInitialized        -> VarIsInitializedOp
//   ApplyGradientDescent, ApplyMomentum, ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp,
//   ApplyAdam
//                                -> ResourceApply* ; ScatterUpdate / ScatterAdd / ScatterSub
//                                   -> ResourceScatterUpdate / ...Add / ...Sub. These have no
//                                   output, so the update is named "<name>/update" and
//                                   "<name>" is a ReadVariableOp after it: the name still
//                                   runs the update and gives the new value (the read shares
//                                   the variable's buffer, it copies nothing).
// Every node keeps its name, so what a program fetches or runs by name still exists.
#ifndef TENSORWEAVE_SRC_GRAPH_REF_VARIABLE_LOWERING_H_
#define TENSORWEAVE_SRC_GRAPH_REF_VARIABLE_LOWERING_H_

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace tw {

// True when `def` holds an op this pass rewrites.
bool HasRefVariableOps(const GraphDef& def);

// The rewritten graph. The ref ops' attrs are checked against their schemas
// (src/ops/ref_variable_ops.cc) first. Errors are InvalidArgument naming the node: a ref
// input that is not a variable of `def` (or one an earlier import lowered into `graph`),
// a dtype that differs from the variable's, a wrong number of inputs, an output of a
// variable other than 0.
absl::StatusOr<GraphDef> LowerRefVariables(const GraphDef& def, const FlowGraph& graph);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_GRAPH_REF_VARIABLE_LOWERING_H_
