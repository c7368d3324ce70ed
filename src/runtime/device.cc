#include "runtime/device.h"

#include <algorithm>

namespace tw {

Device::Device(const DeviceName& name, ThreadPool* intra_op_pool)
    : parsed_(name), name_(name.ToString()), intra_op_pool_(intra_op_pool) {}

std::unique_ptr<DeviceMgr> DeviceMgr::CreateLocal(const std::string& job, int task,
                                                  int intra_op_threads, int num_cpus) {
  auto mgr = std::make_unique<DeviceMgr>();
  mgr->intra_op_pool_ = std::make_unique<ThreadPool>("intra_op", intra_op_threads);
  DeviceName cpu;
  cpu.has_job = cpu.has_replica = cpu.has_task = cpu.has_type = cpu.has_id = true;
  cpu.job = job;
  cpu.replica = 0;
  cpu.task = task;
  cpu.type = "CPU";
  for (int id = 0; id < std::max(num_cpus, 1); ++id) {
    cpu.id = id;
    mgr->devices_.push_back(std::make_unique<Device>(cpu, mgr->intra_op_pool_.get()));
  }
  return mgr;
}

Device* DeviceMgr::Find(const std::string& name) const {
  for (const auto& d : devices_)
    if (d->name() == name) return d.get();
  return nullptr;
}

std::vector<std::string> DeviceMgr::DeviceNames() const {
  std::vector<std::string> names;
  for (const auto& d : devices_) names.push_back(d->name());
  return names;
}

}  // namespace tw
