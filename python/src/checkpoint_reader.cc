// TensorFlow's V2 checkpoints read by name (tf.train.NewCheckpointReader, list_variables,
// load_variable): src/checkpoint/tensor_bundle.h's reader, opened per call.
#include <string>
#include <tuple>
#include <vector>

#include "bindings.h"
#include "checkpoint/tensor_bundle.h"

namespace tw::python {

void BindCheckpointReader(py::module_& m) {
  // [(name, DType, dims)], ascending by name; a partitioned variable listed whole.
  m.def("checkpoint_entries", [](const std::string& prefix) {
    auto reader = ValueOrThrow(checkpoint::TensorBundleReader::Open(prefix));
    std::vector<std::tuple<std::string, DType, std::vector<int64_t>>> out;
    for (const checkpoint::BundleEntryInfo& e : reader->entries()) {
      out.emplace_back(e.name, e.dtype, std::vector<int64_t>(e.shape.dims().begin(), e.shape.dims().end()));
    }
    return out;
  });
  m.def("checkpoint_tensor", [](const std::string& prefix, const std::string& name) {
    auto reader = ValueOrThrow(checkpoint::TensorBundleReader::Open(prefix));
    return ArrayFromTensor(ValueOrThrow(reader->Read(name)));
  });
}

}  // namespace tw::python
