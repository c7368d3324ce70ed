// Freezing a graph: what TensorFlow's freeze_graph / convert_variables_to_constants do.
// The nodes the outputs need are kept (extract_sub_graph), each variable among them
// becomes a Const holding its value (VariableV2/Variable and VarHandleOp), a ReadVariableOp
// of a converted handle becomes an Identity, and everything else (Assign, initializers,
// the saver) falls away because no output depends on it.
#ifndef TENSORWEAVE_SRC_GRAPH_FREEZE_GRAPH_H_
#define TENSORWEAVE_SRC_GRAPH_FREEZE_GRAPH_H_

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tensorweave/proto/graph.pb.h"
#include "tensorweave/tensor.h"
#include "core/proto_namespace.h"

namespace tw {

// The nodes `outputs` depend on (data and control inputs), in the order of `def`;
// InvalidArgument "output node 'x' is not in the graph" for an unknown name. An output may
// be written "name", "name:k" or "^name".
absl::StatusOr<GraphDef> ExtractSubGraph(const GraphDef& def, const std::vector<std::string>& outputs);

struct FreezeOptions {
  // Only these variables are converted when non-empty; those in `blacklist` never are.
  std::set<std::string> whitelist;
  std::set<std::string> blacklist;
  // Clears every node's device, as freeze_graph's --clear_devices (its default) does.
  bool clear_devices = true;
};

// The value of a variable, by its node's name (a reference variable's or a VarHandleOp's):
// NotFound naming it when there is none.
using VariableValueFn = std::function<absl::StatusOr<Tensor>(const std::string& node_name)>;

// The frozen GraphDef. Errors: an unknown output (InvalidArgument), a variable without a
// value (the lookup's error, prefixed with the node), a value whose dtype differs from the
// variable's.
absl::StatusOr<GraphDef> FreezeGraphDef(const GraphDef& def, const VariableValueFn& value_of,
                                        const std::vector<std::string>& outputs, const FreezeOptions& options = {});

// Whether `op` is a variable freezing turns into a Const.
bool IsFreezableVariableOp(const std::string& op);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_GRAPH_FREEZE_GRAPH_H_
