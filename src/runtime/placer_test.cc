#include "runtime/placer.h"

#include <gtest/gtest.h>

#include <sstream>

#include "testing/test_util.h"

namespace tw {
namespace {

DeviceName Device(const std::string& name) { return *DeviceName::Parse(name); }

class PlacerTest : public ::testing::Test {
 protected:
  Node* Const(const std::string& name, const std::string& device, AttrMap extra = {}) {
    NodeSpec spec{name, "Const", {}, device, std::move(extra)};
    spec.attrs["value"] = MakeAttr(Tensor::Scalar(1.0f));
    spec.attrs["dtype"] = MakeAttr(DType::kFloat);
    auto n = graph_.AddNode(std::move(spec));
    EXPECT_TRUE(n.ok()) << n.status();
    return *n;
  }
  absl::Status Place(bool soft = false, std::ostream* log = nullptr) {
    PlacerOptions options;
    options.allow_soft_placement = soft;
    options.log_device_placement = log != nullptr;
    options.log = log;
    return PlaceGraph(graph_, devices_, devices_[0], options);
  }

  FlowGraph graph_;
  std::vector<DeviceName> devices_ = {Device("/job:local/replica:0/task:0/device:CPU:0"),
                                      Device("/job:local/replica:0/task:1/device:CPU:0")};
};

TEST_F(PlacerTest, ExplicitDevicesAndDefaults) {
  Node* a = Const("a", "/job:local/task:1");
  Node* b = Const("b", "");
  Node* c = Const("c", "/cpu:0");
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(a->assigned_device(), "/job:local/replica:0/task:1/device:CPU:0");
  EXPECT_EQ(b->assigned_device(), "/job:local/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(c->assigned_device(), "/job:local/replica:0/task:0/device:CPU:0");
}

TEST_F(PlacerTest, UnknownTaskListsDevices) {
  Const("far", "/job:local/task:7");
  EXPECT_STATUS(Place(), absl::StatusCode::kInvalidArgument,
                "node 'far' (Const): cannot assign a device: no device matches '/job:local/task:7'");
  EXPECT_STATUS(Place(), absl::StatusCode::kInvalidArgument,
                "/job:local/replica:0/task:0/device:CPU:0, /job:local/replica:0/task:1/device:CPU:0");
}

TEST_F(PlacerTest, SoftPlacementMovesGpuOpsToTheSameTasksCpu) {
  Node* g = Const("g", "/job:local/task:1/gpu:0");
  EXPECT_FALSE(Place().ok());
  ASSERT_TRUE(Place(/*soft=*/true).ok());
  EXPECT_EQ(g->assigned_device(), "/job:local/replica:0/task:1/device:CPU:0");
}

TEST_F(PlacerTest, ColocationAttrJoinsGroups) {
  Node* a = Const("a", "/job:local/task:1");
  AttrMap cls;
  cls["_class"] = MakeAttr(absl::Span<const std::string>(std::vector<std::string>{"loc:@a"}));
  Node* b = Const("b", "", cls);
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(b->assigned_device(), a->assigned_device());
}

TEST_F(PlacerTest, ConflictingColocationIsAnError) {
  Const("a", "/job:local/task:1");
  AttrMap cls;
  cls["_class"] = MakeAttr(absl::Span<const std::string>(std::vector<std::string>{"loc:@a"}));
  Const("b", "/job:local/task:0", cls);
  EXPECT_STATUS(Place(), absl::StatusCode::kInvalidArgument, "colocated");
}

TEST_F(PlacerTest, LogDevicePlacementPrintsEveryNode) {
  Const("a", "/job:local/task:1");
  Const("b", "");
  std::ostringstream log;
  ASSERT_TRUE(Place(false, &log).ok());
  EXPECT_EQ(log.str(),
            "a: (Const): /job:local/replica:0/task:1/device:CPU:0\n"
            "b: (Const): /job:local/replica:0/task:0/device:CPU:0\n");
}

TEST_F(PlacerTest, MalformedDeviceStringIsAnError) {
  Const("a", "/job:local/tusk:1");
  EXPECT_STATUS(Place(), absl::StatusCode::kInvalidArgument, "unknown part 'tusk:1'");
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

TEST_F(PlacerTest, VariableOpsFollowTheirHandle) {
  NodeSpec handle{"w", "VarHandleOp", {}, "/job:local/task:1", {}};
  handle.attrs["dtype"] = MakeAttr(DType::kFloat);
  handle.attrs["shape"] = MakeAttr(PartialShape({}));
  Node* w = *graph_.AddNode(std::move(handle));
  NodeSpec read{"w/read", "ReadVariableOp", {NodeInput{w, 0}}, "", {}};
  read.attrs["dtype"] = MakeAttr(DType::kFloat);
  Node* r = *graph_.AddNode(std::move(read));
  Node* v = Const("v", "");
  NodeSpec assign{"w/assign", "AssignVariableOp", {NodeInput{w, 0}, NodeInput{v, 0}}, "", {}};
  assign.attrs["dtype"] = MakeAttr(DType::kFloat);
  Node* a = *graph_.AddNode(std::move(assign));
  ASSERT_TRUE(Place().ok());
  EXPECT_EQ(r->assigned_device(), "/job:local/replica:0/task:1/device:CPU:0");
  EXPECT_EQ(a->assigned_device(), "/job:local/replica:0/task:1/device:CPU:0");
  EXPECT_EQ(v->assigned_device(), "/job:local/replica:0/task:0/device:CPU:0");
}

}  // namespace
}  // namespace tw
