// Kernels of SaveTensors and RestoreTensors (schemas and rationale: src/ops/io_ops.cc).
// They write TensorFlow's V2 checkpoint format (src/checkpoint/tensor_bundle.h) and read it or
// tensorweave's earlier TWCKPT01 file (src/checkpoint/checkpoint_format.h).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/file_access.h"
#include "kernels/cpu/checkpoint_access.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/iterator_state.h"
#include "kernels/op_kernel.h"
#include "checkpoint/checkpoint_reader.h"
#include "checkpoint/checkpoint_writer.h"
#include "checkpoint/tensor_bundle.h"

namespace tw {
namespace {

// Reads path and names; the shape function already checked them when the node was added.
class CheckpointIoKernel : public OpKernel {
 public:
  CheckpointIoKernel(OpKernelConstruction& c, int num_tensors)
      : OpKernel(c), file_access_root_(FileAccessRootOf(c.resource_mgr())) {
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
      return;
    }
    auto specs = GetStringListAttr(c.attrs(), "shape_and_slices");  // absent in older graphs: all whole
    slices_.resize(num_tensors);
    for (size_t i = 0; specs.ok() && i < specs->size() && i < slices_.size(); ++i) {
      auto spec = checkpoint::ParseShapeAndSlice((*specs)[i]);
      if (!spec.ok()) {
        c.Fail(absl::InvalidArgumentError(absl::StrCat("tensor '", names_[i], "': ", spec.status().message())));
        return;
      }
      slices_[i] = *std::move(spec);
    }
  }

 protected:
  absl::Status CheckPaths() const { return CheckCheckpointAccess(path_, file_access_root_); }

  std::string file_access_root_;
  std::string path_;
  std::vector<std::string> names_;
  std::vector<checkpoint::ShapeAndSlice> slices_;  // One per tensor; whole() unless a shard.
};

class SaveTensorsOp : public CheckpointIoKernel {
 public:
  explicit SaveTensorsOp(OpKernelConstruction& c) : CheckpointIoKernel(c, c.num_inputs()) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(CheckPaths());
    std::vector<checkpoint::NamedTensor> tensors;
    std::vector<checkpoint::NamedSlice> slices;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      Tensor value = ctx.input(i);
      if (value.dtype() == DType::kVariant) {
        // Only serialized bytes (an iterator's state) have a file form: a string scalar.
        absl::StatusOr<std::string> bytes = SerializedVariantBytes(value);
        if (!bytes.ok()) {
          return absl::InvalidArgumentError(absl::StrCat("tensor '", names_[i], "': cannot save a variant of type ",
                                                         value.NumElements() == 1 ? value.variant().type_name : "?"));
        }
        value = Tensor(DType::kString, TensorShape());
        value.scalar<std::string>() = *std::move(bytes);
      }
      if (slices_[i].whole()) tensors.push_back({names_[i], value});
      else slices.push_back({names_[i], slices_[i], value});
    }
    return checkpoint::WriteTensorBundle(path_, tensors, slices);
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
    TW_RETURN_IF_ERROR(CheckPaths());
    if (checkpoint::IsTensorBundle(path_)) {
      TW_ASSIGN_OR_RETURN(auto reader, checkpoint::TensorBundleReader::Open(path_));
      return RestoreFrom(*reader, ctx);
    }
    TW_ASSIGN_OR_RETURN(auto reader, checkpoint::CheckpointReader::Open(path_));
    return RestoreFrom(*reader, ctx);
  }

 private:
  // Every entry is checked before any tensor is read or output: a bad file gives nothing.
  template <typename Reader>
  absl::Status RestoreFrom(const Reader& reader, OpKernelContext& ctx) const {
    const int n = ctx.num_outputs();
    using Entry = typename std::remove_pointer_t<typename decltype(reader.Find(""))::value_type>;
    std::vector<Entry*> found(n);
    for (int i = 0; i < n; ++i) {
      TW_ASSIGN_OR_RETURN(found[i], reader.Find(names_[i]));
      TW_RETURN_IF_ERROR(CheckFits(found[i]->name, found[i]->dtype, found[i]->shape, i));
    }
    std::vector<Tensor> values(n);
    checkpoint::SavedTensorReads reads;
    for (int i = 0; i < n; ++i) {
      TW_ASSIGN_OR_RETURN(values[i],
                          reads.Block(names_[i], slices_[i], path_, [&] { return reader.Read(*found[i]); }));
    }
    for (int i = 0; i < n; ++i) {
      // A variant saved as its serialized bytes (see SaveTensors) comes back as one.
      if (dtypes_[i] == DType::kVariant) values[i] = SerializedVariant(values[i].scalar<std::string>());
      ctx.set_output(i, std::move(values[i]));
    }
    return absl::OkStatus();
  }

  // The saved tensor must have the dtype and a shape compatible with the declared shape
  // of the variable it restores (named as the tensor); for a shard, the partitioned
  // variable's whole shape (any shards it was saved in), and the shard its block's.
  absl::Status CheckFits(const std::string& name, DType dtype, const TensorShape& shape, int i) const {
    const std::string what = absl::StrCat("checkpoint '", path_, "': tensor '", name, "' ");
    if (!slices_[i].whole()) {
      if (dtype != dtypes_[i] || shape != slices_[i].full_shape || !shapes_[i].Matches(slices_[i].SliceShape())) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, "is ", DTypeName(dtype), " ", shape.DebugString(), " but the shard restored from it is ",
            DTypeName(dtypes_[i]), " ", shapes_[i].DebugString(), ", slice '",
            checkpoint::FormatShapeAndSlice(slices_[i]), "' of a variable of shape ",
            slices_[i].full_shape.DebugString()));
      }
      return absl::OkStatus();
    }
    const bool serialized_variant = dtypes_[i] == DType::kVariant && dtype == DType::kString && shape.num_elements() == 1;
    if (dtype != dtypes_[i] && !serialized_variant) {
      return absl::InvalidArgumentError(absl::StrCat(what, "has dtype ", DTypeName(dtype),
                                                     " but variable '", names_[i], "' has dtype ",
                                                     DTypeName(dtypes_[i])));
    }
    if (!serialized_variant && !shapes_[i].Matches(shape)) {
      return absl::InvalidArgumentError(absl::StrCat(what, "has shape ", shape.DebugString(),
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
