// Kernels of SaveTensors and RestoreTensors (schemas and rationale: src/ops/io_ops.cc;
// the file format: src/train/checkpoint_format.h).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/op_kernel.h"
#include "train/checkpoint_reader.h"
#include "train/checkpoint_writer.h"

namespace tw {
namespace {

// Reads path and names; the shape function already checked them when the node was added.
class CheckpointIoKernel : public OpKernel {
 public:
  CheckpointIoKernel(OpKernelConstruction& c, int num_tensors) : OpKernel(c) {
    c.GetAttr("path", &path_);
    auto names = GetStringListAttr(c.attrs(), "names");
    if (!names.ok()) {
      c.Fail(names.status());
      return;
    }
    names_ = *std::move(names);
    if (static_cast<int>(names_.size()) != num_tensors) {
      c.Fail(absl::InvalidArgumentError(absl::StrCat("attr 'names' has ", names_.size(),
                                                      " entries for ", num_tensors, " tensors")));
    }
  }

 protected:
  std::string path_;
  std::vector<std::string> names_;
};

class SaveTensorsOp : public CheckpointIoKernel {
 public:
  explicit SaveTensorsOp(OpKernelConstruction& c) : CheckpointIoKernel(c, c.num_inputs()) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    std::vector<checkpoint::NamedTensor> tensors;
    tensors.reserve(names_.size());
    for (int i = 0; i < ctx.num_inputs(); ++i) tensors.push_back({names_[i], ctx.input(i)});
    return checkpoint::WriteCheckpoint(path_, tensors);
  }
};

class RestoreTensorsOp : public CheckpointIoKernel {
 public:
  explicit RestoreTensorsOp(OpKernelConstruction& c) : CheckpointIoKernel(c, c.num_outputs()) {
    auto shapes = GetShapeListAttr(c.attrs(), "shapes");
    if (!shapes.ok()) {
      c.Fail(shapes.status());
      return;
    }
    shapes_ = *std::move(shapes);
    for (int i = 0; i < c.num_outputs(); ++i) dtypes_.push_back(c.output_type(i));
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::unique_ptr<checkpoint::CheckpointReader> reader,
                        checkpoint::CheckpointReader::Open(path_));
    // Every entry is checked before any tensor is read or output: a bad file gives nothing.
    const int n = ctx.num_outputs();
    std::vector<const checkpoint::EntryInfo*> entries(n);
    for (int i = 0; i < n; ++i) {
      TW_ASSIGN_OR_RETURN(entries[i], reader->Find(names_[i]));
      TW_RETURN_IF_ERROR(CheckFits(*entries[i], i));
    }
    std::vector<Tensor> values(n);
    for (int i = 0; i < n; ++i) {
      TW_ASSIGN_OR_RETURN(values[i], reader->Read(*entries[i]));
    }
    for (int i = 0; i < n; ++i) ctx.set_output(i, std::move(values[i]));
    return absl::OkStatus();
  }

 private:
  // The saved tensor must have the dtype and a shape compatible with the declared shape
  // of the variable it restores (named as the tensor).
  absl::Status CheckFits(const checkpoint::EntryInfo& entry, int i) const {
    const std::string what = absl::StrCat("checkpoint '", path_, "': tensor '", entry.name, "' ");
    if (entry.dtype != dtypes_[i]) {
      return absl::InvalidArgumentError(absl::StrCat(what, "has dtype ", DTypeName(entry.dtype),
                                                     " but variable '", names_[i], "' has dtype ",
                                                     DTypeName(dtypes_[i])));
    }
    if (!shapes_[i].Matches(entry.shape)) {
      return absl::InvalidArgumentError(absl::StrCat(what, "has shape ", entry.shape.DebugString(),
                                                     " but variable '", names_[i], "' has shape ",
                                                     shapes_[i].DebugString()));
    }
    return absl::OkStatus();
  }

  std::vector<DType> dtypes_;
  std::vector<PartialShape> shapes_;
};

}  // namespace

void RegisterIoKernels(KernelRegistry& r) {
  r.Register("SaveTensors", kDeviceCpu, Factory<SaveTensorsOp>());
  r.Register("RestoreTensors", kDeviceCpu, Factory<RestoreTensorsOp>());
}

}  // namespace tw
