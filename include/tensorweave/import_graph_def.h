// Importing a GraphDef into a Graph the way TensorFlow's tf.import_graph_def does: node
// names under a prefix, some of its inputs spliced onto tensors already in the graph
// (input_map), and named operations and tensors handed back (return_elements).
//
//   tw::ImportGraphDefOptions options;
//   options.prefix = "model";
//   options.input_map["input:0"] = preprocessed;     // a tensor of `graph`
//   options.return_elements = {"probs:0", "init"};
//   auto imported = tw::ImportGraphDef(frozen, options, &graph);
#ifndef TENSORWEAVE_IMPORT_GRAPH_DEF_H_
#define TENSORWEAVE_IMPORT_GRAPH_DEF_H_

#include <map>
#include <string>
#include <vector>

#include "tensorweave/graph.h"
#include "tensorweave/status.h"

namespace tw {

struct ImportGraphDefOptions {
  // Node "x" becomes "<prefix>/x"; "" keeps the names (made unique where they clash with
  // the graph's, "x" -> "x_1", as TensorFlow does for name="").
  std::string prefix;
  // "node:k" (or "node", meaning "node:0") of the GraphDef -> a tensor of the graph: every
  // consumer of that output in the GraphDef reads the mapped tensor instead.
  std::map<std::string, Output> input_map;
  // "node" of the GraphDef -> an operation of the graph: control inputs "^node" become
  // control inputs on it.
  std::map<std::string, Operation> control_input_map;
  // "node" (an Operation) or "node:k" (a Tensor), named as in the GraphDef.
  std::vector<std::string> return_elements;
  // Operations of the graph every imported node runs after (TF's import under
  // tf.control_dependencies).
  std::vector<Operation> control_dependencies;
};

// One return element: an operation, or a tensor when `is_tensor`.
struct ImportedElement {
  bool is_tensor = false;
  Operation operation;
  Output tensor;
};

// Adds every node of `def` to `graph` (validated as any client graph). Errors, with the
// graph unchanged: InvalidArgument naming the node for a missing input, a duplicate node
// name, a bad attr or edge; NotFound for an op this build lacks; InvalidArgument for a
// key of input_map/control_input_map that no node of `def` has ("Attempted to map inputs
// that were not found in graph_def: [...]") and for a return element `def` lacks.
StatusOr<std::vector<ImportedElement>> ImportGraphDef(const GraphDef& def, const ImportGraphDefOptions& options,
                                                      Graph* graph);

}  // namespace tw

#endif  // TENSORWEAVE_IMPORT_GRAPH_DEF_H_
