// Freezing a GraphDef (src/graph/freeze_graph.h) for tf.graph_util.convert_variables_to_constants,
// and its sub-graph extraction for tf.graph_util.extract_sub_graph.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bindings.h"
#include "graph/freeze_graph.h"

namespace tw::python {

void BindFreeze(py::module_& m) {
  // freeze_graph_def(graph_def_bytes, {variable node name: ndarray}, output_names,
  //                  whitelist=None, blacklist=None, clear_devices=False) -> frozen GraphDef bytes.
  // convert_variables_to_constants keeps devices, as TensorFlow's does: clear_devices is
  // freeze_graph's option.
  m.def(
      "freeze_graph_def",
      [](const py::bytes& graph_def, const std::map<std::string, py::array>& values,
         const std::vector<std::string>& outputs, const std::optional<std::vector<std::string>>& whitelist,
         const std::optional<std::vector<std::string>>& blacklist, bool clear_devices) {
        GraphDef def;
        if (!def.ParseFromString(std::string(graph_def))) {
          throw StatusError(absl::InvalidArgumentError("freeze_graph_def: not a serialized GraphDef"));
        }
        std::map<std::string, Tensor> tensors;
        for (const auto& [name, array] : values) tensors.emplace(name, TensorFromArray(array));
        FreezeOptions options;
        if (whitelist) options.whitelist.insert(whitelist->begin(), whitelist->end());
        if (blacklist) options.blacklist.insert(blacklist->begin(), blacklist->end());
        options.clear_devices = clear_devices;
        auto value_of = [&](const std::string& name) -> absl::StatusOr<Tensor> {
          auto it = tensors.find(name);
          if (it == tensors.end()) return absl::NotFoundError("no value was given for it");
          return it->second;
        };
        GraphDef frozen;
        {
          py::gil_scoped_release release;
          frozen = ValueOrThrow(FreezeGraphDef(def, value_of, outputs, options));
        }
        return py::bytes(frozen.SerializeAsString());
      },
      py::arg("graph_def"), py::arg("values"), py::arg("output_names"), py::arg("whitelist") = py::none(),
      py::arg("blacklist") = py::none(), py::arg("clear_devices") = false);

  // extract_sub_graph(graph_def_bytes, dest_nodes) -> GraphDef bytes of the nodes they need.
  m.def(
      "extract_sub_graph",
      [](const py::bytes& graph_def, const std::vector<std::string>& dest_nodes) {
        GraphDef def;
        if (!def.ParseFromString(std::string(graph_def))) {
          throw StatusError(absl::InvalidArgumentError("extract_sub_graph: not a serialized GraphDef"));
        }
        return py::bytes(ValueOrThrow(ExtractSubGraph(def, dest_nodes)).SerializeAsString());
      },
      py::arg("graph_def"), py::arg("dest_nodes"));
}

}  // namespace tw::python
