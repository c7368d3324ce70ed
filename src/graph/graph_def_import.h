// Turning an untrusted GraphDef into FlowGraph nodes, and reading/writing GraphDef files.
#ifndef TENSORWEAVE_SRC_GRAPH_GRAPH_DEF_IMPORT_H_
#define TENSORWEAVE_SRC_GRAPH_GRAPH_DEF_IMPORT_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "tensorweave/resource_limits.h"

namespace tw {

// Adds every node of `def` to `graph` (which may already hold nodes: a graph extension).
// Nodes may appear in any order. Errors are InvalidArgument naming the node: unknown op,
// missing or mistyped attr, an input naming no node, a cycle, a duplicate name, a dtype
// mismatch on an edge, a shape function's complaint. On error `graph` is left unchanged.
// `limits` (max_graph_nodes counting the nodes already in `graph`, max_graph_bytes,
// max_tensor_bytes for every tensor attr) are checked first: ResourceExhausted, with
// nothing allocated for a constant that declares a huge shape.
// Ops whose names start with '_' (_Arg, _Retval, _Send, _Recv, ...) are internal: only the
// partitioner may create them, since the runtime trusts their attrs (slot indexes,
// rendezvous keys). A client's graph that uses one is refused, naming the node.
enum class GraphSource { kClient, kPartitioner };
// `cancelled` (may be empty) is asked every few thousand nodes: a caller that gave up
// (a cancelled CreateSession) stops a long import with Cancelled, adding nothing.
absl::Status ImportGraphDef(const GraphDef& def, FlowGraph* graph, const ResourceLimits& limits = {},
                            GraphSource source = GraphSource::kClient,
                            const std::function<bool()>& cancelled = {});
// The limits check on its own.
absl::Status CheckGraphDefLimits(const GraphDef& def, int existing_nodes, const ResourceLimits& limits);

// Parses a GraphDef from binary or text format (text when `text` is true).
absl::StatusOr<GraphDef> ParseGraphDef(const std::string& bytes, bool text);
// Reads a file: ".pbtxt"/".txt" as text, anything else binary, falling back to text.
absl::StatusOr<GraphDef> ReadGraphDefFile(const std::string& path);
absl::Status WriteGraphDefFile(const GraphDef& def, const std::string& path);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_GRAPH_GRAPH_DEF_IMPORT_H_
