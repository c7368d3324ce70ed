// Per-device state that outlives a step, by (container, name): variables, and other
// resources (queues, accumulators) derived from ResourceBase.
// Lives with the kernels (not the runtime) because the state kernels read and write it.
#ifndef TENSORWEAVE_SRC_KERNELS_RESOURCE_MGR_H_
#define TENSORWEAVE_SRC_KERNELS_RESOURCE_MGR_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "tensorweave/status.h"
#include "tensorweave/tensor.h"

namespace tw {

// A variable's value. Readers take a snapshot (a Tensor sharing the buffer); writers
// replace the tensor or, when nobody else holds the buffer, update it in place.
class Var {
 public:
  Var(DType dtype, PartialShape shape) : dtype_(dtype), shape_(std::move(shape)) {}
  DType dtype() const { return dtype_; }
  const PartialShape& declared_shape() const { return shape_; }
  absl::Mutex* mu() ABSL_LOCK_RETURNED(mu_) { return &mu_; }
  bool initialized() const ABSL_SHARED_LOCKS_REQUIRED(mu_) { return value_.IsInitialized(); }
  Tensor& value() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return value_; }

 private:
  const DType dtype_;
  const PartialShape shape_;
  absl::Mutex mu_;
  Tensor value_ ABSL_GUARDED_BY(mu_);
};

// A resource other than a variable. TypeName() names its kind in errors ("FIFOQueue").
class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  virtual std::string TypeName() const = 0;
};

class ResourceMgr {
 public:
  using Creator = std::function<absl::StatusOr<std::shared_ptr<ResourceBase>>()>;

  // The resource (container, name) as a T; made by `create` when missing. InvalidArgument
  // when it exists as another kind of resource.
  template <typename T>
  absl::StatusOr<std::shared_ptr<T>> LookupOrCreateResource(
      const std::string& container, const std::string& name,
      const std::function<absl::StatusOr<std::shared_ptr<T>>()>& create) {
    Creator create_base = [&create]() -> absl::StatusOr<std::shared_ptr<ResourceBase>> {
      absl::StatusOr<std::shared_ptr<T>> made = create();
      if (!made.ok()) return made.status();
      return std::shared_ptr<ResourceBase>(*std::move(made));
    };
    TW_ASSIGN_OR_RETURN(std::shared_ptr<ResourceBase> found,
                        LookupOrCreateBase(container, name, create_base));
    return Cast<T>(name, std::move(found));
  }
  // The resource (container, name) as a T; NotFound naming it when missing.
  template <typename T>
  absl::StatusOr<std::shared_ptr<T>> LookupResource(const std::string& container,
                                                    const std::string& name) const {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<ResourceBase> found, LookupBase(container, name));
    return Cast<T>(name, std::move(found));
  }

  // The variable (container, name), created with dtype and shape if missing. An existing
  // variable with another dtype is an InvalidArgument naming both.
  absl::StatusOr<std::shared_ptr<Var>> LookupOrCreate(const std::string& container,
                                                      const std::string& name, DType dtype,
                                                      const PartialShape& shape);
  // NotFound naming the variable when missing.
  absl::StatusOr<std::shared_ptr<Var>> Lookup(const std::string& container,
                                              const std::string& name) const;
  // Removes one variable or resource; NotFound naming it when missing. Holders of it (a
  // step that looked it up) keep it alive until they finish.
  absl::Status Delete(const std::string& container, const std::string& name);
  // Drops every variable and resource in the given containers (all of them when empty).
  void Clear(const std::vector<std::string>& containers);
  std::vector<std::string> ListNames(const std::string& container) const;

 private:
  absl::StatusOr<std::shared_ptr<ResourceBase>> LookupOrCreateBase(const std::string& container,
                                                                   const std::string& name,
                                                                   const Creator& create);
  absl::StatusOr<std::shared_ptr<ResourceBase>> LookupBase(const std::string& container,
                                                           const std::string& name) const;
  template <typename T>
  static absl::StatusOr<std::shared_ptr<T>> Cast(const std::string& name,
                                                 std::shared_ptr<ResourceBase> found) {
    std::shared_ptr<T> typed = std::dynamic_pointer_cast<T>(found);
    if (typed == nullptr) return WrongKind(name, *found);
    return typed;
  }
  static absl::Status WrongKind(const std::string& name, const ResourceBase& found);

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, std::shared_ptr<Var>>>
      containers_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, std::shared_ptr<ResourceBase>>>
      resources_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_RESOURCE_MGR_H_
