#include "kernels/resource_mgr.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"

namespace tw {

absl::StatusOr<std::shared_ptr<Var>> ResourceMgr::LookupOrCreate(const std::string& container,
                                                                 const std::string& name,
                                                                 DType dtype,
                                                                 const PartialShape& shape) {
  absl::MutexLock lock(&mu_);
  auto& vars = containers_[container];
  auto it = vars.find(name);
  if (it != vars.end()) {
    if (it->second->dtype() != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", name, "' already exists as ", DTypeName(it->second->dtype()),
          ", not ", DTypeName(dtype)));
    }
    return it->second;
  }
  auto var = std::make_shared<Var>(dtype, shape);
  vars.emplace(name, var);
  return var;
}

absl::StatusOr<std::shared_ptr<Var>> ResourceMgr::Lookup(const std::string& container,
                                                         const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto c = containers_.find(container);
  if (c != containers_.end()) {
    auto it = c->second.find(name);
    if (it != c->second.end()) return it->second;
  }
  return absl::NotFoundError(absl::StrCat("variable '", name, "' does not exist"));
}

absl::StatusOr<std::shared_ptr<ResourceBase>> ResourceMgr::LookupOrCreateBase(
    const std::string& container, const std::string& name, const Creator& create) {
  absl::MutexLock lock(&mu_);
  auto& resources = resources_[container];
  auto it = resources.find(name);
  if (it != resources.end()) return it->second;
  TW_ASSIGN_OR_RETURN(std::shared_ptr<ResourceBase> made, create());
  resources.emplace(name, made);
  return made;
}

absl::StatusOr<std::shared_ptr<ResourceBase>> ResourceMgr::LookupBase(const std::string& container,
                                                                      const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto c = resources_.find(container);
  if (c != resources_.end()) {
    auto it = c->second.find(name);
    if (it != c->second.end()) return it->second;
  }
  return absl::NotFoundError(absl::StrCat("resource '", name, "' does not exist"));
}

absl::Status ResourceMgr::WrongKind(const std::string& name, const ResourceBase& found) {
  return absl::InvalidArgumentError(absl::StrCat("resource '", name, "' is a ", found.TypeName(),
                                                 ", not the kind this op uses"));
}

absl::Status ResourceMgr::Delete(const std::string& container, const std::string& name) {
  absl::MutexLock lock(&mu_);
  auto c = containers_.find(container);
  if (c != containers_.end() && c->second.erase(name) > 0) return absl::OkStatus();
  auto r = resources_.find(container);
  if (r != resources_.end() && r->second.erase(name) > 0) return absl::OkStatus();
  return absl::NotFoundError(absl::StrCat("variable '", name, "' does not exist"));
}

void ResourceMgr::Clear(const std::vector<std::string>& containers) {
  absl::MutexLock lock(&mu_);
  if (containers.empty()) {
    containers_.clear();
    resources_.clear();
    return;
  }
  for (const auto& c : containers) {
    containers_.erase(c);
    resources_.erase(c);
  }
}

std::vector<std::string> ResourceMgr::ListNames(const std::string& container) const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  auto c = containers_.find(container);
  if (c != containers_.end())
    for (const auto& [name, var] : c->second) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tw
