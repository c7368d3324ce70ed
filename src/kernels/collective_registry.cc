// The process's collective runtimes by task (several servers may share a process).
#include <map>

#include "absl/synchronization/mutex.h"
#include "kernels/collective.h"

namespace tw {
namespace {

absl::Mutex registry_mu(absl::kConstInit);

std::map<std::string, std::shared_ptr<CollectiveRuntime>>& Registry() {
  static auto* registry = new std::map<std::string, std::shared_ptr<CollectiveRuntime>>();
  return *registry;
}

}  // namespace

void RegisterCollectiveRuntime(const std::string& task, std::shared_ptr<CollectiveRuntime> runtime) {
  absl::MutexLock lock(&registry_mu);
  Registry()[task] = std::move(runtime);
}

void UnregisterCollectiveRuntime(const std::string& task, const CollectiveRuntime* runtime) {
  absl::MutexLock lock(&registry_mu);
  auto it = Registry().find(task);
  if (it != Registry().end() && it->second.get() == runtime) Registry().erase(it);
}

std::shared_ptr<CollectiveRuntime> FindCollectiveRuntime(const std::string& device_name) {
  // The task is the device name up to "/device:".
  const size_t cut = device_name.find("/device:");
  const std::string task = device_name.substr(0, cut);
  absl::MutexLock lock(&registry_mu);
  auto it = Registry().find(task);
  return it == Registry().end() ? nullptr : it->second;
}

}  // namespace tw
