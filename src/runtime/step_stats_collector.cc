#include "runtime/step_stats_collector.h"

#include <atomic>
#include <utility>

#include "absl/time/clock.h"

namespace tw {

int64_t NowMicros() { return absl::GetCurrentTimeNanos() / 1000; }

uint32_t CurrentThreadId() {
  static std::atomic<uint32_t> next{0};
  thread_local const uint32_t id = next.fetch_add(1, std::memory_order_relaxed);
  return id;
}

bool WantsStepStats(const RunOptions& options) {
  // As TF's DirectSession: any trace level (HARDWARE_TRACE adds device tracing, none on CPU).
  return options.trace_level() > RunOptions::NO_TRACE;
}

void StepStatsCollector::Save(const std::string& device, NodeExecStats stats) {
  absl::MutexLock lock(&mu_);
  DeviceStepStats*& dev = by_device_[device];
  if (dev == nullptr) {
    dev = stats_.add_dev_stats();
    dev->set_device(device);
  }
  *dev->add_node_stats() = std::move(stats);
}

void StepStatsCollector::MoveTo(StepStats* out) {
  absl::MutexLock lock(&mu_);
  by_device_.clear();
  MergeStepStats(std::move(stats_), out);
  stats_.Clear();
}

void MergeStepStats(StepStats from, StepStats* into) {
  for (DeviceStepStats& dev : *from.mutable_dev_stats()) {
    DeviceStepStats* target = nullptr;
    for (DeviceStepStats& have : *into->mutable_dev_stats()) {
      if (have.device() == dev.device()) target = &have;
    }
    if (target == nullptr) {
      *into->add_dev_stats() = std::move(dev);
      continue;
    }
    for (NodeExecStats& n : *dev.mutable_node_stats()) *target->add_node_stats() = std::move(n);
  }
}

}  // namespace tw
