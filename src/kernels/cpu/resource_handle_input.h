// Reading a resource handle input in a kernel.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_RESOURCE_HANDLE_INPUT_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_RESOURCE_HANDLE_INPUT_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/op_kernel.h"

namespace tw {

// Input i as a scalar resource handle that belongs to this kernel's device; errors name
// the resource as `kind` ("queue", "accumulator").
inline absl::StatusOr<ResourceHandle> ResourceHandleInput(const OpKernelContext& ctx, int i,
                                                          const char* kind) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kResource || t.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(kind, " handle must be a scalar resource, got ",
                                                   DTypeName(t.dtype()), " ",
                                                   t.shape().DebugString()));
  }
  const ResourceHandle& h = t.resource();
  if (!h.device.empty() && h.device != ctx.device_name()) {
    return absl::InvalidArgumentError(absl::StrCat(kind, " '", h.name, "' lives on ", h.device,
                                                   " and cannot be used on ", ctx.device_name()));
  }
  return h;
}

// The resource of kind T that input i names; NotFound naming it when it does not exist.
template <typename T>
absl::StatusOr<std::shared_ptr<T>> LookupResourceInput(const OpKernelContext& ctx, int i,
                                                       const char* kind) {
  TW_ASSIGN_OR_RETURN(ResourceHandle h, ResourceHandleInput(ctx, i, kind));
  auto found = ctx.resource_mgr()->LookupResource<T>(h.container, h.name);
  if (absl::IsNotFound(found.status())) {
    return absl::NotFoundError(absl::StrCat(kind, " '", h.name, "' does not exist on ",
                                            ctx.device_name()));
  }
  return found;
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_RESOURCE_HANDLE_INPUT_H_
