// Executor tests on a private op registry with test kernels: parallel branches,
// error propagation naming the node, cancellation from outside and by a failing node.
#include "runtime/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"
#include "kernels/kernel_registry.h"
#include "testing/test_util.h"

namespace tw {
namespace {

// Kernels record how many of them run at once.
std::atomic<int> running{0};
std::atomic<int> max_running{0};

class SourceKernel : public OpKernel {
 public:
  explicit SourceKernel(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("value", &value_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(value_)));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  int64_t value_ = 0;
};

// Adds its inputs; waits until another such kernel runs too (or 2 s pass), so a test can
// observe whether two of them overlap without depending on timing for correctness.
class PairedAddKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    int now = ++running;
    int prev = max_running.load();
    while (now > prev && !max_running.compare_exchange_weak(prev, now)) {
    }
    for (int i = 0; i < 2000 && max_running.load() < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    --running;
    ctx.set_output(0, Tensor::Scalar<int32_t>(ctx.input(0).scalar<int32_t>() + ctx.input(1).scalar<int32_t>()));
    return absl::OkStatus();
  }
};

class FailKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext&) override { return absl::InvalidArgumentError("boom"); }
};

// Finishes only when the step is cancelled.
class WaitForCancelKernel : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext& ctx, DoneCallback done) override {
    auto token = ctx.cancellation()->RegisterCallback([done] { done(absl::CancelledError("waited")); });
    if (token == CancellationManager::kInvalidToken) done(absl::CancelledError("waited"));
  }
};

// Cancels its step while it runs (as a caller going away mid-step), passing its input on.
class CancelStepKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    ctx.cancellation()->StartCancel();
    ctx.set_output(0, ctx.input(0));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

class ExecutorTest : public ::testing::Test {
 protected:
  ExecutorTest()
      : devices_(DeviceMgr::CreateLocal("localhost", 0, 2)), pool_("inter_op_test", 4) {
    registry_.Register(OpDefBuilder("Source").Output("out: int32").Attr("value: int = 0").SetShapeFn(ScalarShape));
    registry_.Register(OpDefBuilder("PairedAdd").Input("a: int32").Input("b: int32").Output("out: int32")
                           .SetShapeFn(UnknownShape));
    registry_.Register(OpDefBuilder("Fail").Input("a: int32").Output("out: int32").SetShapeFn(UnknownShape));
    registry_.Register(OpDefBuilder("WaitForCancel").Output("out: int32").SetShapeFn(UnknownShape));
    registry_.Register(OpDefBuilder("CancelStep").Input("a: int32").Output("out: int32").SetShapeFn(UnknownShape));
    registry_.Register(OpDefBuilder("_Retval").Input("input: T").Attr("T: type").Attr("index: int"));
    running = 0;
    max_running = 0;
  }

  Node* Add(const std::string& name, const std::string& op, std::vector<Node*> inputs, AttrMap attrs = {}) {
    NodeSpec spec{name, op, {}, "", std::move(attrs)};
    for (Node* n : inputs) spec.inputs.push_back(NodeInput{n, 0});
    auto node = graph_.AddNode(std::move(spec));
    EXPECT_TRUE(node.ok()) << node.status();
    return *node;
  }
  Node* Source(const std::string& name, int value) { return Add(name, "Source", {}, {{"value", MakeAttr(value)}}); }
  Node* Retval(Node* input, int index) {
    return Add("ret" + std::to_string(index), "_Retval", {input},
               {{"T", MakeAttr(DType::kInt32)}, {"index", MakeAttr(index)}});
  }

  std::unique_ptr<Executor> Build() {
    ExecutorOptions options;
    options.device = devices_->default_device();
    options.inter_op_pool = &pool_;
    options.create_kernel = [](const Node& node) -> absl::StatusOr<std::shared_ptr<OpKernel>> {
      OpKernelConstruction c(node, "cpu", "CPU", nullptr);
      std::shared_ptr<OpKernel> k;
      if (node.op() == "Source") k = std::make_shared<SourceKernel>(c);
      if (node.op() == "PairedAdd") k = std::make_shared<PairedAddKernel>(c);
      if (node.op() == "Fail") k = std::make_shared<FailKernel>(c);
      if (node.op() == "WaitForCancel") k = std::make_shared<WaitForCancelKernel>(c);
      if (node.op() == "CancelStep") k = std::make_shared<CancelStepKernel>(c);
      if (node.op() == "_Retval") {
        auto created = KernelRegistry::Global().Create(node, "cpu", "CPU", nullptr);
        if (!created.ok()) return created.status();
        k = std::move(*created);
      }
      return k;
    };
    auto ex = Executor::Create(graph_, std::move(options));
    EXPECT_TRUE(ex.ok()) << ex.status();
    return ex.ok() ? *std::move(ex) : nullptr;
  }

  OpRegistry registry_;
  FlowGraph graph_{&registry_};
  std::unique_ptr<DeviceMgr> devices_;
  ThreadPool pool_;
};

TEST_F(ExecutorTest, IndependentBranchesRunInParallel) {
  Node* a = Source("a", 1);
  Node* b = Source("b", 2);
  Retval(Add("left", "PairedAdd", {a, b}), 0);
  Retval(Add("right", "PairedAdd", {b, b}), 1);
  auto ex = Build();
  CallFrame frame;
  frame.rets.resize(2);
  ASSERT_TRUE(ex->Run({1, &frame, nullptr}).ok());
  EXPECT_EQ(frame.rets[0].scalar<int32_t>(), 3);
  EXPECT_EQ(frame.rets[1].scalar<int32_t>(), 4);
  EXPECT_EQ(max_running.load(), 2) << "the two expensive branches never overlapped";
}

TEST_F(ExecutorTest, LongChainComputesInOrder) {
  Node* x = Source("x", 1);
  Node* one = Source("one", 1);
  for (int i = 0; i < 500; ++i) x = Add("add" + std::to_string(i), "PairedAdd", {x, one});
  Retval(x, 0);
  max_running = 2;  // Do not wait for a partner: this is a chain.
  auto ex = Build();
  CallFrame frame;
  frame.rets.resize(1);
  ASSERT_TRUE(ex->Run({1, &frame, nullptr}).ok());
  EXPECT_EQ(frame.rets[0].scalar<int32_t>(), 501);
}

TEST_F(ExecutorTest, ErrorNamesTheFailingNode) {
  Node* a = Source("a", 1);
  Retval(Add("bad", "Fail", {a}), 0);
  auto ex = Build();
  CallFrame frame;
  frame.rets.resize(1);
  absl::Status s = ex->Run({1, &frame, nullptr});
  EXPECT_STATUS(s, absl::StatusCode::kInvalidArgument, "node 'bad' (Fail): boom");
}

TEST_F(ExecutorTest, FirstErrorCancelsWaitingNodes) {
  Node* a = Source("a", 1);
  Retval(Add("bad", "Fail", {a}), 0);
  Retval(Add("waiter", "WaitForCancel", {}), 1);
  auto ex = Build();
  CallFrame frame;
  frame.rets.resize(2);
  absl::Status s = ex->Run({1, &frame, nullptr});  // Would hang if the error did not cancel.
  EXPECT_STATUS(s, absl::StatusCode::kInvalidArgument, "boom");
}

TEST_F(ExecutorTest, CancellationFromOutsideEndsTheStep) {
  Retval(Add("waiter", "WaitForCancel", {}), 0);
  auto ex = Build();
  CallFrame frame;
  frame.rets.resize(1);
  CancellationManager cancel;
  absl::Notification done;
  absl::Status result;
  ex->RunAsync({1, &frame, &cancel}, [&](absl::Status s) {
    result = s;
    done.Notify();
  });
  EXPECT_FALSE(done.WaitForNotificationWithTimeout(absl::Milliseconds(50)));
  cancel.StartCancel();
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_STATUS(result, absl::StatusCode::kCancelled, "node 'waiter' (WaitForCancel)");
}

// As TensorFlow's executor: a cancelled step still runs the nodes whose inputs are there
// (a ps must not stop half-way through a step's updates when its caller goes away); only
// waiting kernels end with the cancellation.
TEST_F(ExecutorTest, CancellationMidStepStillRunsReadyNodes) {
  Node* one = Source("one", 1);
  Node* x = Add("cancel", "CancelStep", {Source("a", 1)});
  for (int i = 0; i < 3; ++i) x = Add("after_cancel" + std::to_string(i), "PairedAdd", {x, one});
  Retval(x, 0);
  Retval(Add("waiter", "WaitForCancel", {}), 1);
  max_running = 2;  // A chain: no partner to wait for.
  auto ex = Build();
  CallFrame frame;
  frame.rets.resize(2);
  CancellationManager cancel;
  absl::Status s = ex->Run({1, &frame, &cancel});
  EXPECT_STATUS(s, absl::StatusCode::kCancelled, "node 'waiter' (WaitForCancel)");
  ASSERT_TRUE(frame.rets[0].IsInitialized()) << "the nodes after the cancellation did not run";
  EXPECT_EQ(frame.rets[0].scalar<int32_t>(), 4);
}

TEST_F(ExecutorTest, StepsCanRunConcurrently) {
  Node* a = Source("a", 20);
  Node* b = Source("b", 22);
  Retval(Add("sum", "PairedAdd", {a, b}), 0);
  max_running = 2;
  auto ex = Build();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        CallFrame frame;
        frame.rets.resize(1);
        if (ex->Run({i, &frame, nullptr}).ok() && frame.rets[0].scalar<int32_t>() == 42) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 200);
}

}  // namespace
}  // namespace tw
