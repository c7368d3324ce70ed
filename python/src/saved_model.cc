// SavedModel loading's graph preparation (src/savedmodel/saved_model_loader.h) for
// tf.saved_model.loader.load: TF2 models, whose function calls are inlined in C++.
#include <map>
#include <string>

#include "bindings.h"
#include "savedmodel/saved_model_loader.h"

namespace tw::python {

void BindSavedModel(py::module_& m) {
  // (GraphDef bytes, restore op name or "", {old tensor name: new}) for a serialized
  // MetaGraphDef whose variables checkpoint is `variables_prefix`.
  m.def("graph_def_for_load", [](const py::bytes& meta_graph_def, const std::string& variables_prefix) {
    MetaGraphDef meta;
    if (!meta.ParseFromString(std::string(meta_graph_def))) {
      throw StatusError(absl::InvalidArgumentError("graph_def_for_load: not a serialized MetaGraphDef"));
    }
    std::string restore_op;
    std::map<std::string, std::string> renamed;
    GraphDef def = ValueOrThrow(GraphDefForLoad(meta, variables_prefix, &restore_op, &renamed));
    return py::make_tuple(py::bytes(def.SerializeAsString()), restore_op, renamed);
  });
}

}  // namespace tw::python
