// Kernels of SaveVariables and RestoreVariables (schemas and rationale: src/ops/io_ops.cc;
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

// Handle i, checked to be a scalar handle belonging to this kernel's device.
absl::StatusOr<ResourceHandle> HandleInput(const OpKernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kResource || t.NumElements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("resources[", i, "] must be a scalar resource handle, got ",
                     DTypeName(t.dtype()), " ", t.shape().DebugString()));
  }
  const ResourceHandle& h = t.resource();
  if (!h.device.empty() && h.device != ctx.device_name()) {
    return absl::InvalidArgumentError(absl::StrCat("variable '", h.name, "' lives on ", h.device,
                                                   " and cannot be used on ", ctx.device_name()));
  }
  return h;
}

// Reads path and names; the shape function already checked them when the node was added.
class VariablesIoKernel : public OpKernel {
 public:
  explicit VariablesIoKernel(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("path", &path_);
    auto names = GetStringListAttr(c.attrs(), "names");
    if (!names.ok()) {
      c.Fail(names.status());
      return;
    }
    names_ = *std::move(names);
    if (static_cast<int>(names_.size()) != c.num_inputs()) {
      c.Fail(absl::InvalidArgumentError(absl::StrCat("attr 'names' has ", names_.size(),
                                                      " entries for ", c.num_inputs(),
                                                      " variables")));
    }
  }

 protected:
  std::string path_;
  std::vector<std::string> names_;
};

class SaveVariablesOp : public VariablesIoKernel {
 public:
  using VariablesIoKernel::VariablesIoKernel;

  absl::Status Compute(OpKernelContext& ctx) override {
    std::vector<checkpoint::NamedTensor> tensors;
    tensors.reserve(names_.size());
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      TW_ASSIGN_OR_RETURN(ResourceHandle h, HandleInput(ctx, i));
      auto var = ctx.resource_mgr()->Lookup(h.container, h.name);
      Tensor value;
      if (var.ok()) {
        absl::MutexLock lock((*var)->mu());
        // A snapshot: copy-on-write keeps it unchanged while the file is written.
        if ((*var)->initialized()) value = (*var)->value();
      }
      if (!value.IsInitialized()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot save variable '", h.name, "' to '", path_,
            "': it is uninitialized (run its initializer, or restore it, first)"));
      }
      tensors.push_back({names_[i], std::move(value)});
    }
    return checkpoint::WriteCheckpoint(path_, tensors);
  }
};

class RestoreVariablesOp : public VariablesIoKernel {
 public:
  using VariablesIoKernel::VariablesIoKernel;

  absl::Status Compute(OpKernelContext& ctx) override {
    const int n = ctx.num_inputs();
    std::vector<ResourceHandle> handles(n);
    for (int i = 0; i < n; ++i) {
      TW_ASSIGN_OR_RETURN(handles[i], HandleInput(ctx, i));
    }
    TW_ASSIGN_OR_RETURN(std::unique_ptr<checkpoint::CheckpointReader> reader,
                        checkpoint::CheckpointReader::Open(path_));
    // Every check comes before any assignment: a bad file changes nothing.
    std::vector<const checkpoint::EntryInfo*> entries(n);
    std::vector<std::shared_ptr<Var>> vars(n);
    for (int i = 0; i < n; ++i) {
      TW_ASSIGN_OR_RETURN(entries[i], reader->Find(names_[i]));
      if (auto var = ctx.resource_mgr()->Lookup(handles[i].container, handles[i].name); var.ok()) {
        vars[i] = *std::move(var);
        TW_RETURN_IF_ERROR(CheckFits(*entries[i], handles[i].name, *vars[i]));
      }
    }
    std::vector<Tensor> values(n);
    for (int i = 0; i < n; ++i) {
      TW_ASSIGN_OR_RETURN(values[i], reader->Read(*entries[i]));
    }
    for (int i = 0; i < n; ++i) {
      if (vars[i] == nullptr) {
        // A fed handle whose variable does not exist yet: create it, as assignment does.
        TW_ASSIGN_OR_RETURN(vars[i], ctx.resource_mgr()->LookupOrCreate(
                                         handles[i].container, handles[i].name,
                                         values[i].dtype(), PartialShape::UnknownRank()));
      }
      absl::MutexLock lock(vars[i]->mu());
      vars[i]->value() = std::move(values[i]);
    }
    return absl::OkStatus();
  }

 private:
  // The saved tensor must have the variable's dtype, its declared shape and, when it
  // holds a value, that value's shape.
  absl::Status CheckFits(const checkpoint::EntryInfo& entry, const std::string& var_name,
                         Var& var) const {
    const std::string what =
        absl::StrCat("checkpoint '", path_, "': tensor '", entry.name, "' ");
    if (entry.dtype != var.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(what, "has dtype ", DTypeName(entry.dtype),
                                                     " but variable '", var_name, "' has dtype ",
                                                     DTypeName(var.dtype())));
    }
    if (!var.declared_shape().Matches(entry.shape)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, "has shape ", entry.shape.DebugString(), " but variable '", var_name,
          "' has shape ", var.declared_shape().DebugString()));
    }
    absl::MutexLock lock(var.mu());
    if (var.initialized() && var.value().shape() != entry.shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, "has shape ", entry.shape.DebugString(), " but variable '", var_name,
          "' holds a value of shape ", var.value().shape().DebugString()));
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterIoKernels(KernelRegistry& r) {
  r.Register("SaveVariables", kDeviceCpu, Factory<SaveVariablesOp>());
  r.Register("RestoreVariables", kDeviceCpu, Factory<RestoreVariablesOp>());
}

}  // namespace tw
