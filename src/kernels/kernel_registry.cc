#include "kernels/kernel_registry.h"

#include <algorithm>

#include "graph/graph.h"

namespace tw {

const KernelRegistry& KernelRegistry::Global() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry;
    RegisterAllKernels(*r);
    return r;
  }();
  return *registry;
}

void KernelRegistry::Register(Registration r) { by_op_[r.op].push_back(std::move(r)); }

void KernelRegistry::Register(const std::string& op, const std::string& device_type,
                              KernelFactory factory) {
  Register(Registration{op, device_type, std::move(factory), "", {}});
}

absl::StatusOr<const KernelRegistry::Registration*> KernelRegistry::Find(
    const Node& node, const std::string& device_type) const {
  auto it = by_op_.find(node.op());
  if (it != by_op_.end()) {
    for (const Registration& r : it->second) {
      if (r.device_type != device_type) continue;
      if (!r.allowed_types.empty()) {
        auto t = GetTypeAttr(node.attrs(), r.type_attr);
        if (!t.ok() ||
            std::find(r.allowed_types.begin(), r.allowed_types.end(), *t) == r.allowed_types.end()) {
          continue;
        }
      }
      return &r;
    }
  }
  return absl::NotFoundError(
      absl::StrCat("no ", device_type, " kernel for op ", node.op(), " with these attrs"));
}

const KernelRegistry::Registration* KernelRegistry::FindForType(const std::string& op,
                                                               const std::string& device_type,
                                                               DType dtype) const {
  auto it = by_op_.find(op);
  if (it == by_op_.end()) return nullptr;
  for (const Registration& r : it->second) {
    if (r.device_type != device_type) continue;
    if (r.allowed_types.empty() ||
        std::find(r.allowed_types.begin(), r.allowed_types.end(), dtype) != r.allowed_types.end()) {
      return &r;
    }
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::Create(const Node& node,
                                                                 const std::string& device_name,
                                                                 const std::string& device_type,
                                                                 ResourceMgr* resource_mgr,
                                                                 FunctionLibraryRuntime* function_library) const {
  auto reg = Find(node, device_type);
  if (!reg.ok()) return NodeError(node.name(), node.op(), reg.status());
  OpKernelConstruction c(node, device_name, device_type, resource_mgr);
  c.set_function_library(function_library);
  auto kernel = (*reg)->factory(c);
  if (!kernel.ok()) return NodeError(node.name(), node.op(), kernel.status());
  return kernel;
}

}  // namespace tw
