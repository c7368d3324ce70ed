// tf.train.load_checkpoint / NewCheckpointReader: the tensors of a checkpoint file, TF's V2
// bundle (slices of a partitioned variable read whole) or tensorweave's TWCKPT01.
#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.h"
#include "checkpoint/checkpoint_reader.h"
#include "checkpoint/tensor_bundle.h"

namespace tw::python {

namespace {

// One open checkpoint, in whichever format the path holds.
class CheckpointFile {
 public:
  explicit CheckpointFile(const std::string& prefix) {
    if (checkpoint::IsTensorBundle(prefix)) {
      bundle_ = ValueOrThrow(checkpoint::TensorBundleReader::Open(prefix));
    } else {
      twckpt_ = ValueOrThrow(checkpoint::CheckpointReader::Open(prefix));
    }
  }

  // (name, dtype, dims) of every tensor, by name.
  std::vector<std::tuple<std::string, DType, std::vector<int64_t>>> Entries() const {
    std::vector<std::tuple<std::string, DType, std::vector<int64_t>>> out;
    auto add = [&](const auto& entries) {
      for (const auto& e : entries) {
        out.emplace_back(e.name, e.dtype, std::vector<int64_t>(e.shape.dims().begin(), e.shape.dims().end()));
      }
    };
    if (bundle_ != nullptr) add(bundle_->entries());
    else add(twckpt_->entries());
    std::sort(out.begin(), out.end());
    return out;
  }

  py::object Read(const std::string& name) const {
    Tensor value;
    {
      py::gil_scoped_release no_gil;
      value = ValueOrThrow(bundle_ != nullptr ? bundle_->Read(name) : twckpt_->Read(name));
    }
    return ArrayFromTensor(std::move(value));
  }

 private:
  std::unique_ptr<checkpoint::TensorBundleReader> bundle_;
  std::unique_ptr<checkpoint::CheckpointReader> twckpt_;
};

}  // namespace

void BindCheckpointReader(py::module_& m) {
  py::class_<CheckpointFile>(m, "CheckpointFile")
      .def(py::init<const std::string&>(), py::arg("prefix"))
      .def("entries", &CheckpointFile::Entries)
      .def("read", &CheckpointFile::Read, py::arg("name"));
}

}  // namespace tw::python
