// Dead tensors in the executor (TF1's dataflow cond) with the real Switch/Merge kernels:
// deadness through data and control edges, Merge on its first live input, a Merge of only
// dead inputs being dead, and the error for fetching a dead tensor.
#include <gtest/gtest.h>

#include "runtime/executor.h"

namespace tw {
namespace {

class ExecutorDeadTest : public ::testing::Test {
 protected:
  ExecutorDeadTest() : devices_(DeviceMgr::CreateLocal("localhost", 0, 1)) {}

  Node* Add(const std::string& name, const std::string& op, std::vector<NodeInput> inputs, AttrMap attrs = {}) {
    // T from the first data input, as the Python front end infers it.
    if (attrs.find("T") == attrs.end() && !inputs.empty() && inputs[0].index >= 0) {
      attrs["T"] = MakeAttr(inputs[0].node->output_type(inputs[0].index));
    }
    NodeSpec spec{name, op, std::move(inputs), "", std::move(attrs)};
    auto node = graph_.AddNode(std::move(spec));
    EXPECT_TRUE(node.ok()) << node.status();
    return node.ok() ? *node : nullptr;
  }
  Node* Const(const std::string& name, const Tensor& value) {
    return Add(name, "Const", {}, {{"value", MakeAttr(value)}, {"dtype", MakeAttr(value.dtype())}});
  }
  void Retval(NodeInput input, int index) {
    Add("ret" + std::to_string(index), "_Retval", {input},
        {{"T", MakeAttr(input.node->output_type(input.index))}, {"index", MakeAttr(index)}});
  }
  absl::Status Run(CallFrame& frame) {
    ExecutorOptions options;
    options.device = devices_->default_device();
    auto ex = Executor::Create(graph_, std::move(options));
    if (!ex.ok()) return ex.status();
    return (*ex)->Run({1, &frame, nullptr});
  }

  FlowGraph graph_;
  std::unique_ptr<DeviceMgr> devices_;
};

TEST_F(ExecutorDeadTest, SwitchKillsTheUntakenSideAndMergeTakesTheLiveOne) {
  Node* x = Const("x", Tensor::Scalar<int32_t>(5));
  Node* pred = Const("pred", Tensor::Scalar<bool>(false));
  Node* sw = Add("sw", "Switch", {{x, 0}, {pred, 0}});
  Node* live = Add("live", "Identity", {{sw, 0}});
  Node* dead = Add("dead", "Identity", {{sw, 1}});
  // Dead through a control edge only.
  Node* dead_by_control = Add("dead_by_control", "Identity", {{x, 0}, {dead, kControlSlot}});
  Node* merge = Add("merge", "Merge", {{dead, 0}, {live, 0}}, {{"N", MakeAttr(2)}});
  // A Merge waits for its control inputs but a dead one does not make it dead.
  Node* merge_ctl = Add("merge_ctl", "Merge", {{live, 0}, {dead, kControlSlot}}, {{"N", MakeAttr(1)}});
  Node* all_dead = Add("all_dead", "Merge", {{dead, 0}, {dead_by_control, 0}}, {{"N", MakeAttr(2)}});
  Add("after_all_dead", "Identity", {{all_dead, 0}});
  Retval({merge, 0}, 0);
  Retval({merge, 1}, 1);
  Retval({merge_ctl, 0}, 2);
  CallFrame frame;
  frame.rets.resize(3);
  ASSERT_TRUE(Run(frame).ok());
  EXPECT_EQ(frame.rets[0].scalar<int32_t>(), 5);
  EXPECT_EQ(frame.rets[1].scalar<int32_t>(), 1);
  EXPECT_EQ(frame.rets[2].scalar<int32_t>(), 5);
}

TEST_F(ExecutorDeadTest, FetchingADeadTensorNamesIt) {
  Node* x = Const("x", Tensor::Scalar<int32_t>(5));
  Node* pred = Const("pred", Tensor::Scalar<bool>(true));
  Node* sw = Add("sw", "Switch", {{x, 0}, {pred, 0}});
  Node* dead = Add("dead", "Identity", {{sw, 0}});
  Node* merge = Add("merge", "Merge", {{dead, 0}}, {{"N", MakeAttr(1)}});
  Retval({merge, 0}, 0);
  CallFrame frame;
  frame.rets.resize(1);
  absl::Status s = Run(frame);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("Retval[0] does not have value"), std::string::npos) << s;
  EXPECT_NE(s.message().find("merge:0"), std::string::npos) << s;
}

TEST_F(ExecutorDeadTest, ANonScalarPredicateIsAnError) {
  Node* x = Const("x", Tensor::Scalar<int32_t>(5));
  Node* pred = Const("pred", Tensor::Vector<bool>({true, false}));
  auto node = graph_.AddNode(NodeSpec{"sw", "Switch", {{x, 0}, {pred, 0}}, "", {{"T", MakeAttr(DType::kInt32)}}});
  ASSERT_FALSE(node.ok());
  EXPECT_NE(node.status().message().find("pred must be a scalar"), std::string::npos) << node.status();
}

}  // namespace
}  // namespace tw
