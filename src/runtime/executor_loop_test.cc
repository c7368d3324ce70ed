// While loops in the executor (TF1's Enter/Merge/Switch/LoopCond/NextIteration/Exit),
// imported from GraphDefs shaped as TF1's while_loop writes them: iteration state per frame,
// loop invariants in every iteration, parallel_iterations, nested frames (one inner frame
// per outer iteration), a loop in an untaken cond branch, cancelling an endless loop, and
// the importer accepting only NextIteration -> Merge cycles.
#include <gtest/gtest.h>

#include <thread>

#include "graph/graph_def_import.h"
#include "runtime/executor.h"

namespace tw {
namespace {

class ExecutorLoopTest : public ::testing::Test {
 protected:
  ExecutorLoopTest() : devices_(DeviceMgr::CreateLocal("localhost", 0, 1)) {}

  // One NodeDef; T (when given) and other attrs as AttrValues.
  void N(const std::string& name, const std::string& op, std::vector<std::string> inputs,
         std::map<std::string, AttrValue> attrs = {}) {
    NodeDef* n = def_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (auto& i : inputs) n->add_input(i);
    for (auto& [k, v] : attrs) (*n->mutable_attr())[k] = v;
  }
  void Const(const std::string& name, int32_t v, std::vector<std::string> inputs = {}) {
    N(name, "Const", inputs, {{"dtype", MakeAttr(DType::kInt32)}, {"value", MakeAttr(Tensor::Scalar<int32_t>(v))}});
  }
  void Enter(const std::string& name, const std::string& input, const std::string& frame, bool constant,
             int parallel = 10) {
    N(name, "Enter", {input},
      {{"T", kInt}, {"frame_name", MakeAttr(frame)}, {"is_constant", MakeAttr(constant)},
       {"parallel_iterations", MakeAttr(static_cast<int64_t>(parallel))}});
  }
  // TF1's loop: i from 0 while i < limit: i += 1, acc += step(i); `p` names the nodes.
  // Returns the names of the Exits of i and acc.
  std::pair<std::string, std::string> Loop(const std::string& p, const std::string& i0, const std::string& acc0,
                                           const std::string& limit, const std::string& x, int parallel,
                                           bool acc_adds_x_times_i = true) {
    Enter(p + "/enter_i", i0, p, false, parallel);
    Enter(p + "/enter_acc", acc0, p, false, parallel);
    Enter(p + "/limit", limit, p, true, parallel);
    Enter(p + "/x", x, p, true, parallel);
    N(p + "/merge_i", "Merge", {p + "/enter_i", p + "/next_i"}, {{"T", kInt}, {"N", MakeAttr(2)}});
    N(p + "/merge_acc", "Merge", {p + "/enter_acc", p + "/next_acc"}, {{"T", kInt}, {"N", MakeAttr(2)}});
    N(p + "/less", "Less", {p + "/merge_i", p + "/limit"}, {{"T", kInt}});
    N(p + "/cond", "LoopCond", {p + "/less"});
    N(p + "/switch_i", "Switch", {p + "/merge_i", p + "/cond"}, {{"T", kInt}});
    N(p + "/switch_acc", "Switch", {p + "/merge_acc", p + "/cond"}, {{"T", kInt}});
    N(p + "/body_i", "Identity", {p + "/switch_i:1"}, {{"T", kInt}});
    N(p + "/body_acc", "Identity", {p + "/switch_acc:1"}, {{"T", kInt}});
    Const(p + "/one", 1, {"^" + p + "/body_i"});  // As TF: a body constant hangs on the pivot.
    N(p + "/i1", "Add", {p + "/body_i", p + "/one"}, {{"T", kInt}});
    N(p + "/step", acc_adds_x_times_i ? "Mul" : "Identity",
      acc_adds_x_times_i ? std::vector<std::string>{p + "/i1", p + "/x"} : std::vector<std::string>{p + "/x"},
      {{"T", kInt}});
    N(p + "/acc1", "Add", {p + "/body_acc", p + "/step"}, {{"T", kInt}});
    N(p + "/next_i", "NextIteration", {p + "/i1"}, {{"T", kInt}});
    N(p + "/next_acc", "NextIteration", {p + "/acc1"}, {{"T", kInt}});
    N(p + "/exit_i", "Exit", {p + "/switch_i"}, {{"T", kInt}});
    N(p + "/exit_acc", "Exit", {p + "/switch_acc"}, {{"T", kInt}});
    return {p + "/exit_i", p + "/exit_acc"};
  }

  absl::Status Import() { return ImportGraphDef(def_, &graph_); }

  // Imports def_, fetches `fetches` (int32 scalars).
  absl::StatusOr<std::vector<int32_t>> Run(const std::vector<std::string>& fetches,
                                           CancellationManager* cancel = nullptr) {
    TW_RETURN_IF_ERROR(Import());
    for (size_t k = 0; k < fetches.size(); ++k) {
      TW_ASSIGN_OR_RETURN(NodeInput in, graph_.ResolveInput(fetches[k]));
      TW_RETURN_IF_ERROR(graph_
                             .AddNode(NodeSpec{"ret" + std::to_string(k), "_Retval", {in}, "",
                                               {{"T", kInt}, {"index", MakeAttr(static_cast<int64_t>(k))}}})
                             .status());
    }
    ExecutorOptions options;
    options.device = devices_->default_device();
    TW_ASSIGN_OR_RETURN(auto ex, Executor::Create(graph_, std::move(options)));
    CallFrame frame;
    frame.rets.resize(fetches.size());
    Executor::Args args;
    args.step_id = 1;
    args.call_frame = &frame;
    args.cancellation = cancel;
    TW_RETURN_IF_ERROR(ex->Run(args));
    std::vector<int32_t> out;
    for (const Tensor& t : frame.rets) out.push_back(t.scalar<int32_t>());
    return out;
  }

  const AttrValue kInt = MakeAttr(DType::kInt32);
  GraphDef def_;
  FlowGraph graph_;
  std::unique_ptr<DeviceMgr> devices_;
};

class LoopParallelism : public ExecutorLoopTest, public ::testing::WithParamInterface<std::tuple<int, int>> {};

TEST_P(LoopParallelism, SumsWithALoopInvariant) {
  const auto [limit, parallel] = GetParam();
  Const("i0", 0);
  Const("acc0", 0);
  Const("limit", limit);
  Const("x", 3);
  auto [exit_i, exit_acc] = Loop("while", "i0", "acc0", "limit", "x", parallel);
  N("after", "Mul", {exit_acc, "x"}, {{"T", kInt}});
  auto got = Run({exit_i, exit_acc, "after"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0], limit);
  EXPECT_EQ((*got)[1], 3 * limit * (limit + 1) / 2);
  EXPECT_EQ((*got)[2], 9 * limit * (limit + 1) / 2);
}

INSTANTIATE_TEST_SUITE_P(CountsAndParallelism, LoopParallelism,
                         ::testing::Combine(::testing::Values(0, 1, 7, 300), ::testing::Values(1, 2, 10)));

TEST_F(ExecutorLoopTest, NestedLoopsStartAnInnerFramePerOuterIteration) {
  // for i < n: for j < i: acc += 1  ->  n (n - 1) / 2; the inner loop reads the outer's
  // i as its limit and its acc as its start, through Enters in the outer frame.
  Const("i0", 0);
  Const("acc0", 0);
  Const("n", 20);
  Const("unused", 0);
  Enter("outer/enter_i", "i0", "outer", false);
  Enter("outer/enter_acc", "acc0", "outer", false);
  Enter("outer/n", "n", "outer", true);
  N("outer/merge_i", "Merge", {"outer/enter_i", "outer/next_i"}, {{"T", kInt}, {"N", MakeAttr(2)}});
  N("outer/merge_acc", "Merge", {"outer/enter_acc", "outer/next_acc"}, {{"T", kInt}, {"N", MakeAttr(2)}});
  N("outer/less", "Less", {"outer/merge_i", "outer/n"}, {{"T", kInt}});
  N("outer/cond", "LoopCond", {"outer/less"});
  N("outer/switch_i", "Switch", {"outer/merge_i", "outer/cond"}, {{"T", kInt}});
  N("outer/switch_acc", "Switch", {"outer/merge_acc", "outer/cond"}, {{"T", kInt}});
  N("outer/body_i", "Identity", {"outer/switch_i:1"}, {{"T", kInt}});
  N("outer/body_acc", "Identity", {"outer/switch_acc:1"}, {{"T", kInt}});
  Const("outer/zero", 0, {"^outer/body_i"});
  Const("outer/one_x", 1, {"^outer/body_i"});
  auto [inner_i, inner_acc] = Loop("outer/inner", "outer/zero", "outer/body_acc", "outer/body_i", "outer/one_x", 10,
                                   /*acc_adds_x_times_i=*/false);
  Const("outer/one", 1, {"^outer/body_i"});
  N("outer/i1", "Add", {"outer/body_i", "outer/one"}, {{"T", kInt}});
  N("outer/next_i", "NextIteration", {"outer/i1"}, {{"T", kInt}});
  N("outer/next_acc", "NextIteration", {inner_acc}, {{"T", kInt}});
  N("outer/exit_acc", "Exit", {"outer/switch_acc"}, {{"T", kInt}});
  N("outer/exit_i", "Exit", {"outer/switch_i"}, {{"T", kInt}});
  auto got = Run({"outer/exit_i", "outer/exit_acc"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0], 20);
  EXPECT_EQ((*got)[1], 20 * 19 / 2);
}

TEST_F(ExecutorLoopTest, ALoopInAnUntakenBranchIsDeadAndTheMergeTakesTheOtherSide) {
  Const("i0", 0);
  Const("acc0", 0);
  Const("limit", 5);
  Const("x", 2);
  N("pred", "Const", {}, {{"dtype", MakeAttr(DType::kBool)}, {"value", MakeAttr(Tensor::Scalar<bool>(false))}});
  N("sw", "Switch", {"acc0", "pred"}, {{"T", kInt}});
  auto [exit_i, exit_acc] = Loop("while", "i0", "sw:1", "limit", "x", 10);
  N("other", "Identity", {"sw:0"}, {{"T", kInt}});
  N("merge", "Merge", {exit_acc, "other"}, {{"T", kInt}, {"N", MakeAttr(2)}});
  auto got = Run({"merge", "merge:1"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0], 0);
  EXPECT_EQ((*got)[1], 1);  // The Merge took its second input: the loop's Exit stayed dead.
}

TEST_F(ExecutorLoopTest, AnEndlessLoopStopsWhenTheStepIsCancelled) {
  Const("i0", 0);
  Const("acc0", 0);
  Const("limit", 1);
  Const("x", 0);  // i never grows past 1: i1 = i + 1 with i read from acc... keep i at 0:
  // the loop below adds x (0) to i, so i < 1 forever.
  Enter("w/enter_i", "i0", "w", false);
  Enter("w/limit", "limit", "w", true);
  Enter("w/x", "x", "w", true);
  N("w/merge_i", "Merge", {"w/enter_i", "w/next_i"}, {{"T", kInt}, {"N", MakeAttr(2)}});
  N("w/less", "Less", {"w/merge_i", "w/limit"}, {{"T", kInt}});
  N("w/cond", "LoopCond", {"w/less"});
  N("w/switch_i", "Switch", {"w/merge_i", "w/cond"}, {{"T", kInt}});
  N("w/body_i", "Identity", {"w/switch_i:1"}, {{"T", kInt}});
  N("w/i1", "Add", {"w/body_i", "w/x"}, {{"T", kInt}});
  N("w/next_i", "NextIteration", {"w/i1"}, {{"T", kInt}});
  N("w/exit_i", "Exit", {"w/switch_i"}, {{"T", kInt}});
  CancellationManager cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel.StartCancel();
  });
  auto got = Run({"w/exit_i"}, &cancel);
  canceller.join();
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(absl::IsCancelled(got.status())) << got.status();
  EXPECT_NE(got.status().message().find("while loop 'w' stopped in iteration"), std::string::npos) << got.status();
}

TEST_F(ExecutorLoopTest, IterationsRunInParallelOnThePoolAndAgree) {
  // Each iteration multiplies a 96x96 loop invariant by itself (expensive: it goes to the
  // inter-op pool) and adds its sum to acc: up to parallel_iterations run at once, each on
  // its own iteration state; the result is the same as one at a time.
  const int kDim = 96;
  std::vector<float> values(kDim * kDim);
  for (int i = 0; i < kDim * kDim; ++i) values[i] = static_cast<float>((i * 7) % 5) * 0.25f;
  auto matrix = Tensor::FromVector<float>(values, TensorShape({kDim, kDim}));
  ASSERT_TRUE(matrix.ok());
  const AttrValue kFloat = MakeAttr(DType::kFloat);
  N("m", "Const", {}, {{"dtype", kFloat}, {"value", MakeAttr(*matrix)}});
  N("axes", "Const", {}, {{"dtype", kInt}, {"value", MakeAttr(*Tensor::FromVector<int32_t>({0, 1}, TensorShape({2})))}});
  Const("i0", 0);
  Const("limit", 40);
  N("acc0", "Const", {}, {{"dtype", kFloat}, {"value", MakeAttr(Tensor::Scalar<float>(0))}});
  Enter("w/enter_i", "i0", "w", false, 8);
  N("w/enter_acc", "Enter", {"acc0"}, {{"T", kFloat}, {"frame_name", MakeAttr(std::string("w"))},
                                       {"parallel_iterations", MakeAttr(int64_t{8})}});
  Enter("w/limit", "limit", "w", true, 8);
  N("w/m", "Enter", {"m"}, {{"T", kFloat}, {"frame_name", MakeAttr(std::string("w"))},
                           {"is_constant", MakeAttr(true)}, {"parallel_iterations", MakeAttr(int64_t{8})}});
  Enter("w/axes", "axes", "w", true, 8);
  N("w/merge_i", "Merge", {"w/enter_i", "w/next_i"}, {{"T", kInt}, {"N", MakeAttr(2)}});
  N("w/merge_acc", "Merge", {"w/enter_acc", "w/next_acc"}, {{"T", kFloat}, {"N", MakeAttr(2)}});
  N("w/less", "Less", {"w/merge_i", "w/limit"}, {{"T", kInt}});
  N("w/cond", "LoopCond", {"w/less"});
  N("w/switch_i", "Switch", {"w/merge_i", "w/cond"}, {{"T", kInt}});
  N("w/switch_acc", "Switch", {"w/merge_acc", "w/cond"}, {{"T", kFloat}});
  N("w/body_i", "Identity", {"w/switch_i:1"}, {{"T", kInt}});
  N("w/body_acc", "Identity", {"w/switch_acc:1"}, {{"T", kFloat}});
  Const("w/one", 1, {"^w/body_i"});
  N("w/i1", "Add", {"w/body_i", "w/one"}, {{"T", kInt}});
  N("w/mm", "MatMul", {"w/m", "w/m", "^w/body_i"}, {{"T", kFloat}});
  N("w/sum", "Sum", {"w/mm", "w/axes"}, {{"T", kFloat}, {"Tidx", kInt}});
  N("w/acc1", "Add", {"w/body_acc", "w/sum"}, {{"T", kFloat}});
  N("w/next_i", "NextIteration", {"w/i1"}, {{"T", kInt}});
  N("w/next_acc", "NextIteration", {"w/acc1"}, {{"T", kFloat}});
  N("w/exit_acc", "Exit", {"w/switch_acc"}, {{"T", kFloat}});
  N("w/exit_i", "Exit", {"w/switch_i"}, {{"T", kInt}});
  ASSERT_TRUE(Import().ok());
  Node* acc = graph_.FindNode("w/exit_acc");
  ASSERT_TRUE(graph_.AddNode(NodeSpec{"ret0", "_Retval", {{acc, 0}}, "", {{"T", kFloat}, {"index", MakeAttr(int64_t{0})}}})
                  .ok());
  double one_product = 0;  // sum(m @ m) in double
  for (int r = 0; r < kDim; ++r)
    for (int c = 0; c < kDim; ++c)
      for (int k = 0; k < kDim; ++k) one_product += double(values[r * kDim + k]) * values[k * kDim + c];
  ThreadPool pool("loop_test", 4);
  for (int run = 0; run < 5; ++run) {
    ExecutorOptions options;
    options.device = devices_->default_device();
    options.inter_op_pool = &pool;
    auto ex = Executor::Create(graph_, std::move(options));
    ASSERT_TRUE(ex.ok()) << ex.status();
    CallFrame frame;
    frame.rets.resize(1);
    Executor::Args args;
    args.call_frame = &frame;
    ASSERT_TRUE((*ex)->Run(args).ok());
    EXPECT_NEAR(frame.rets[0].scalar<float>(), 40 * one_product, 40 * one_product * 1e-5);
  }
}

TEST_F(ExecutorLoopTest, ImportRefusesACycleNotThroughNextIteration) {
  Const("c", 0);
  N("m", "Merge", {"c", "back"}, {{"T", kInt}, {"N", MakeAttr(2)}});
  N("back", "Identity", {"m"}, {{"T", kInt}});
  absl::Status s = Import();
  ASSERT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("cycle"), std::string::npos) << s;
  EXPECT_TRUE(s.message().find("'m' (Merge)") != std::string::npos ||
              s.message().find("'back' (Identity)") != std::string::npos)
      << s;
  EXPECT_EQ(graph_.num_nodes(), 0);
}

TEST_F(ExecutorLoopTest, AnExitOutsideAnyLoopIsRefused) {
  Const("c", 0);
  N("e", "Exit", {"c"}, {{"T", kInt}});
  auto got = Run({"e"});
  ASSERT_TRUE(absl::IsInvalidArgument(got.status())) << got.status();
  EXPECT_NE(got.status().message().find("node 'e' (Exit): an Exit outside any while loop"), std::string::npos)
      << got.status();
}

}  // namespace
}  // namespace tw
