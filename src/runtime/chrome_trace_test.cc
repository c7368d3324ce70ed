// ChromeTraceJson on hand-made StepStats: processes per device, lanes for overlapping
// nodes, flows along edges and from a _Send to its _Recv, JSON escaping.
#include "runtime/chrome_trace.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tw {
namespace {

NodeExecStats* AddNode(DeviceStepStats* dev, const std::string& name, const std::string& label, int64_t start,
                       int64_t dur) {
  NodeExecStats* ns = dev->add_node_stats();
  ns->set_node_name(name);
  ns->set_timeline_label(label);
  ns->set_all_start_micros(start);
  ns->set_all_end_rel_micros(dur);
  ns->set_op_end_rel_micros(dur);
  ns->add_output()->set_slot(0);
  return ns;
}

StepStats TwoDevices() {
  StepStats stats;
  DeviceStepStats* d0 = stats.add_dev_stats();
  d0->set_device("/job:ps/replica:0/task:0/device:CPU:0");
  DeviceStepStats* d1 = stats.add_dev_stats();
  d1->set_device("/job:worker/replica:0/task:0/device:CPU:0");
  AddNode(d0, "a", "a = Const()", 100, 10);
  AddNode(d0, "b", "b = Neg(a)", 105, 10);  // Overlaps a: a second lane.
  AddNode(d0, "send", "send = _Send(b:0 @/job:worker/replica:0/task:0/device:CPU:0)", 120, 2);
  AddNode(d1, "recv", "recv = _Recv(b:0 @/job:ps/replica:0/task:0/device:CPU:0) waited 30us in the rendezvous",
          95, 30);
  AddNode(d1, "c", "c = Add(recv, a)", 130, 5);
  return stats;
}

TEST(ChromeTraceTest, ProcessesOpsLanesAndFlows) {
  const std::string json = ChromeTraceJson(TwoDevices());
  EXPECT_TRUE(absl::StartsWith(json, "{\"traceEvents\":["));
  for (const char* process : {R"("args":{"name":"Allocators"})",
                              R"("pid":1,"args":{"name":"/job:ps/replica:0/task:0/device:CPU:0 Compute"})",
                              R"("pid":2,"args":{"name":"/job:ps/replica:0/task:0/device:CPU:0 Tensors"})",
                              R"("pid":3,"args":{"name":"/job:worker/replica:0/task:0/device:CPU:0 Compute"})"}) {
    EXPECT_TRUE(absl::StrContains(json, process)) << process << "\n" << json;
  }
  EXPECT_TRUE(absl::StrContains(
      json, R"({"ph":"X","cat":"Op","name":"Neg","pid":1,"tid":1,"ts":105,"dur":10,"args":{"name":"b","op":"Neg","input0":"a"}})"))
      << json;
  EXPECT_TRUE(absl::StrContains(json, R"("name":"Const","pid":1,"tid":0,"ts":100)")) << json;
  EXPECT_TRUE(absl::StrContains(json, R"("name":"_Recv","pid":3,"tid":0,"ts":95,"dur":30,)")) << json;
  // a -> c crosses devices; the _Send's tensor reaches the _Recv on the other task.
  EXPECT_TRUE(absl::StrContains(json, R"({"ph":"s","cat":"DataFlow","name":"a","pid":1,"tid":0,"ts":110,)")) << json;
  EXPECT_TRUE(absl::StrContains(json, R"({"ph":"t","cat":"DataFlow","name":"a","pid":3,)")) << json;
  EXPECT_TRUE(absl::StrContains(json, R"({"ph":"s","cat":"DataFlow","name":"b:0","pid":1,"tid":0,"ts":122,)"))
      << json;
  EXPECT_TRUE(absl::StrContains(json, R"({"ph":"t","cat":"DataFlow","name":"b:0","pid":3,"tid":0,"ts":122,)"))
      << json;
  const std::string no_flows = ChromeTraceJson(TwoDevices(), /*show_dataflow=*/false);
  EXPECT_FALSE(absl::StrContains(no_flows, "DataFlow"));
  EXPECT_FALSE(absl::StrContains(no_flows, "\"cat\":\"Tensor\""));
  const std::string memory = ChromeTraceJson(TwoDevices(), false, /*show_memory=*/true);
  EXPECT_TRUE(absl::StrContains(memory, R"({"ph":"N","cat":"Tensor","name":"a","pid":2,)")) << memory;
}

TEST(ChromeTraceTest, LabelsThatAreNotTfsFormAndEscaping) {
  StepStats stats;
  DeviceStepStats* d = stats.add_dev_stats();
  d->set_device("dev\"ice");
  AddNode(d, "odd\nname", "no parentheses here", 1, 1);
  const std::string json = ChromeTraceJson(stats);
  EXPECT_TRUE(absl::StrContains(json, R"("name":"dev\"ice Compute")")) << json;
  EXPECT_TRUE(absl::StrContains(json, R"("name":"unknown","pid":1,"tid":0,"ts":1,"dur":1,"args":{"name":"odd\nname","op":"unknown"}})"))
      << json;
}

}  // namespace
}  // namespace tw
