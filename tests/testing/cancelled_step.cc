#include "testing/cancelled_step.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/cancellation.h"
#include "graph/graph.h"
#include "runtime/device.h"
#include "runtime/executor.h"

namespace tw::testing {

struct CancelledStep::Parts {
  std::unique_ptr<DeviceMgr> devices;
  std::unique_ptr<Executor> executor;
};

CancelledStep::CancelledStep(Graph& g) : parts_(std::make_unique<Parts>()) {
  parts_->devices = DeviceMgr::CreateLocal("localhost", 0, 1);
  Device* device = parts_->devices->default_device();
  for (Node* n : g.flow_graph().nodes()) n->set_assigned_device(device->name());
  ExecutorOptions options;
  options.device = device;
  auto ex = Executor::Create(g.flow_graph(), std::move(options));
  EXPECT_TRUE(ex.ok()) << ex.status();
  if (ex.ok()) parts_->executor = *std::move(ex);
}

CancelledStep::~CancelledStep() = default;

absl::Status CancelledStep::RunAndCancel() {
  if (parts_->executor == nullptr) return absl::InternalError("no executor");
  CallFrame frame;
  CancellationManager cancellation;
  absl::Status result;
  std::thread runner([&] { result = parts_->executor->Run({1, &frame, &cancellation}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cancellation.StartCancel();
  runner.join();
  return result;
}

}  // namespace tw::testing
