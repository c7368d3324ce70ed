// replica_device_setter and its strategies (TF 1.x's device_setter.py).
#include "tensorweave/device_setter.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "graph/attr_value.h"
#include "graph/device_name.h"

namespace tw {
namespace {

[[noreturn]] void Throw(absl::Status status) { throw StatusError(std::move(status)); }

DeviceName ParseOrThrow(const std::string& what, const std::string& device) {
  auto parsed = DeviceName::Parse(device);
  if (!parsed.ok()) {
    Throw(absl::InvalidArgumentError(
        absl::StrCat("replica_device_setter: invalid ", what, ": ", parsed.status().message())));
  }
  return *std::move(parsed);
}

// TF's _ReplicaDeviceChooser.device_function.
class ReplicaDeviceChooser {
 public:
  ReplicaDeviceChooser(int ps_tasks, DeviceName worker_device, DeviceName ps_device,
                       std::vector<std::string> ps_ops, PsStrategy strategy)
      : ps_tasks_(ps_tasks),
        worker_device_(std::move(worker_device)),
        ps_device_(std::move(ps_device)),
        ps_ops_(std::move(ps_ops)),
        strategy_(std::move(strategy)) {}

  std::string operator()(const DeviceFunctionInput& op) const {
    // The graph hands over canonical names, so this parse cannot fail.
    const DeviceName current = ValueOrThrow(DeviceName::Parse(op.device));
    const bool is_ps_op = std::find(ps_ops_.begin(), ps_ops_.end(), op.op_type) != ps_ops_.end();
    DeviceName chosen = is_ps_op ? ps_device_ : worker_device_;
    // The strategy picks a task only within the ps job: a variable pinned to another job
    // keeps its task.
    if (is_ps_op && ps_device_.has_job && (!current.has_job || current.job == ps_device_.job)) {
      const int task = strategy_(op);
      if (task < 0 || task >= ps_tasks_) {
        Throw(absl::InvalidArgumentError(absl::StrCat("replica_device_setter: ps_strategy chose task ",
                                                      task, " for '", op.name, "' but there are ",
                                                      ps_tasks_, " ps tasks")));
      }
      chosen.has_task = true;
      chosen.task = task;
    }
    chosen.MergeFrom(current);  // What the inner scopes set wins.
    return chosen.ToString();
  }

 private:
  int ps_tasks_;
  DeviceName worker_device_, ps_device_;
  std::vector<std::string> ps_ops_;
  PsStrategy strategy_;
};

}  // namespace

std::vector<std::string> standard_ps_ops() {
  return {"Variable",          "VariableV2",          "AutoReloadVariable",
          "MutableHashTable",  "MutableHashTableV2",  "MutableHashTableOfTensors",
          "MutableHashTableOfTensorsV2", "MutableDenseHashTable", "MutableDenseHashTableV2",
          "VarHandleOp"};
}

RoundRobinStrategy::RoundRobinStrategy(int num_tasks) : num_tasks_(num_tasks) {
  if (num_tasks <= 0) {
    Throw(absl::InvalidArgumentError(
        absl::StrCat("RoundRobinStrategy: num_tasks must be positive, got ", num_tasks)));
  }
}

int RoundRobinStrategy::operator()(const DeviceFunctionInput&) {
  const int task = next_task_;
  next_task_ = (next_task_ + 1) % num_tasks_;
  return task;
}

int64_t byte_size_load_fn(const DeviceFunctionInput& op) {
  if (!op.attrs.contains("dtype") || !op.attrs.contains("shape")) return 0;
  const DType dtype = ValueOrThrow(GetTypeAttr(op.attrs, "dtype"));
  const PartialShape shape = ValueOrThrow(GetShapeAttr(op.attrs, "shape"));
  if (!shape.IsFullyDefined()) {
    Throw(absl::InvalidArgumentError(absl::StrCat("byte_size_load_fn: '", op.name, "' (", op.op_type,
                                                  ") has shape ", shape.DebugString(),
                                                  ", not fully defined")));
  }
  return shape.num_elements() * static_cast<int64_t>(DTypeSize(dtype));
}

GreedyLoadBalancingStrategy::GreedyLoadBalancingStrategy(
    int num_tasks, std::function<int64_t(const DeviceFunctionInput&)> load_fn)
    : load_fn_(std::move(load_fn)) {
  if (num_tasks <= 0) {
    Throw(absl::InvalidArgumentError(
        absl::StrCat("GreedyLoadBalancingStrategy: num_tasks must be positive, got ", num_tasks)));
  }
  if (!load_fn_) Throw(absl::InvalidArgumentError("GreedyLoadBalancingStrategy: empty load_fn"));
  loads_.assign(num_tasks, 0);
}

int GreedyLoadBalancingStrategy::operator()(const DeviceFunctionInput& op) {
  const int task = static_cast<int>(std::min_element(loads_.begin(), loads_.end()) - loads_.begin());
  loads_[task] += load_fn_(op);
  return task;
}

DeviceFunction replica_device_setter(int ps_tasks, const std::string& worker_device,
                                     const std::string& ps_device, std::vector<std::string> ps_ops,
                                     PsStrategy ps_strategy) {
  if (ps_tasks < 0) {
    Throw(absl::InvalidArgumentError(
        absl::StrCat("replica_device_setter: ps_tasks must be >= 0, got ", ps_tasks)));
  }
  DeviceName worker = ParseOrThrow("worker_device", worker_device);
  DeviceName ps = ParseOrThrow("ps_device", ps_device);
  if (ps_tasks == 0) return [](const DeviceFunctionInput& op) { return op.device; };
  if (ps_ops.empty()) ps_ops = standard_ps_ops();
  if (!ps_strategy) ps_strategy = RoundRobinStrategy(ps_tasks);
  // std::function copies its target: keep one strategy (and its state) behind a pointer.
  auto strategy = std::make_shared<PsStrategy>(std::move(ps_strategy));
  return ReplicaDeviceChooser(ps_tasks, std::move(worker), std::move(ps), std::move(ps_ops),
                              [strategy](const DeviceFunctionInput& op) { return (*strategy)(op); });
}

DeviceFunction replica_device_setter(const ClusterSpec& cluster, const std::string& worker_device,
                                     const std::string& ps_device, std::vector<std::string> ps_ops,
                                     PsStrategy ps_strategy) {
  const DeviceName ps = ParseOrThrow("ps_device", ps_device);
  const int ps_tasks = ps.has_job ? cluster.num_tasks(ps.job) : 0;
  return replica_device_setter(ps_tasks, worker_device, ps_device, std::move(ps_ops),
                               std::move(ps_strategy));
}

}  // namespace tw
