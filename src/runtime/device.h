// Devices a process runs kernels on, each with its own ResourceMgr (variables) and an
// intra-op thread pool, and the DeviceMgr that lists them.
#ifndef TENSORWEAVE_SRC_RUNTIME_DEVICE_H_
#define TENSORWEAVE_SRC_RUNTIME_DEVICE_H_

#include <memory>
#include <string>
#include <vector>

#include "core/threadpool.h"
#include "graph/device_name.h"
#include "kernels/resource_mgr.h"

namespace tw {

class Device {
 public:
  // `name` must be fully specified ("/job:localhost/replica:0/task:0/device:CPU:0").
  Device(const DeviceName& name, ThreadPool* intra_op_pool);
  const std::string& name() const { return name_; }
  const DeviceName& parsed_name() const { return parsed_; }
  const std::string& device_type() const { return parsed_.type; }
  ResourceMgr* resource_mgr() { return &resource_mgr_; }
  ThreadPool* intra_op_pool() const { return intra_op_pool_; }

 private:
  DeviceName parsed_;
  std::string name_;
  ResourceMgr resource_mgr_;
  ThreadPool* intra_op_pool_;
};

class DeviceMgr {
 public:
  // The CPU devices CPU:0 .. CPU:num_cpus-1 of task `task` of job `job`, sharing a pool of
  // intra_op_threads (<= 0: one per core).
  static std::unique_ptr<DeviceMgr> CreateLocal(const std::string& job, int task,
                                                int intra_op_threads = 0, int num_cpus = 1);
  const std::vector<std::unique_ptr<Device>>& devices() const { return devices_; }
  Device* Find(const std::string& name) const;
  Device* default_device() const { return devices_.front().get(); }
  std::vector<std::string> DeviceNames() const;

 private:
  std::unique_ptr<ThreadPool> intra_op_pool_;
  std::vector<std::unique_ptr<Device>> devices_;
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_DEVICE_H_
