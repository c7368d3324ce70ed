// Per-device state that outlives a step: variables, by (container, name).
// Lives with the kernels (not the runtime) because the state kernels read and write it.
#ifndef TENSORWEAVE_SRC_KERNELS_RESOURCE_MGR_H_
#define TENSORWEAVE_SRC_KERNELS_RESOURCE_MGR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
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

class ResourceMgr {
 public:
  // The variable (container, name), created with dtype and shape if missing. An existing
  // variable with another dtype is an InvalidArgument naming both.
  absl::StatusOr<std::shared_ptr<Var>> LookupOrCreate(const std::string& container,
                                                      const std::string& name, DType dtype,
                                                      const PartialShape& shape);
  // NotFound naming the variable when missing.
  absl::StatusOr<std::shared_ptr<Var>> Lookup(const std::string& container,
                                              const std::string& name) const;
  // Removes one variable; NotFound naming it when missing. Holders of the Var (a step
  // that looked it up) keep it alive until they finish.
  absl::Status Delete(const std::string& container, const std::string& name);
  // Drops every variable in the given containers (all of them when empty).
  void Clear(const std::vector<std::string>& containers);
  std::vector<std::string> ListNames(const std::string& container) const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, std::shared_ptr<Var>>>
      containers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_RESOURCE_MGR_H_
