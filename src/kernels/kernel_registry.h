// Kernels by (op, device type). A registration may list the dtypes it supports for its
// type attr, so placement can tell whether a device can run a node.
#ifndef TENSORWEAVE_SRC_KERNELS_KERNEL_REGISTRY_H_
#define TENSORWEAVE_SRC_KERNELS_KERNEL_REGISTRY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "kernels/op_kernel.h"

namespace tw {

inline constexpr char kDeviceCpu[] = "CPU";
inline constexpr char kDeviceGpu[] = "GPU";

class KernelRegistry {
 public:
  // The process-wide registry with every kernel of tensorweave, built on first use.
  static const KernelRegistry& Global();

  struct Registration {
    std::string op;
    std::string device_type;
    KernelFactory factory;
    std::string type_attr;            // Attr the dtype constraint applies to ("T").
    std::vector<DType> allowed_types;  // Empty: any dtype.
  };
  void Register(Registration r);
  // Shorthand for a registration without dtype constraint.
  void Register(const std::string& op, const std::string& device_type, KernelFactory factory);

  // The registration that can run `node` on `device_type`, or NotFound saying why.
  absl::StatusOr<const Registration*> Find(const Node& node, const std::string& device_type) const;
  // The registration for `op` on `device_type` whose type attr admits `dtype` (one without
  // a dtype constraint qualifies), or null.
  const Registration* FindForType(const std::string& op, const std::string& device_type,
                                  DType dtype) const;
  // Builds the kernel for `node`, prefixing construction errors with the node.
  absl::StatusOr<std::unique_ptr<OpKernel>> Create(const Node& node, const std::string& device_name,
                                                   const std::string& device_type,
                                                   ResourceMgr* resource_mgr,
                                                   FunctionLibraryRuntime* function_library = nullptr) const;

 private:
  absl::flat_hash_map<std::string, std::vector<Registration>> by_op_;
};

// Each family's CPU kernels register themselves here (src/kernels/cpu/<family>_kernels.cc).
void RegisterAllKernels(KernelRegistry& registry);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_KERNEL_REGISTRY_H_
