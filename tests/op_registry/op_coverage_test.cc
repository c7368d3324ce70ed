// The registry-wide op test (issue 15): every registered op has a shape function, a CPU
// kernel, a kernel test and, when it can output floats, a gradient decision with a test;
// and a throwaway op registered here without them turns the check red.
#include "op_registry/op_coverage.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_join.h"
#include "graph/shape_inference.h"
#include "ops/ops.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using ::testing::UnorderedElementsAre;

const testing::OpTestLists& Lists() {
  static const testing::OpTestLists* lists = [] {
    auto loaded = testing::LoadOpTestLists(TW_PYTHON, TW_SOURCE_DIR, TW_BINARY_DIR, TW_PYTHON_ENV);
    if (!loaded.ok()) {
      ADD_FAILURE() << loaded.status();
      return new testing::OpTestLists;
    }
    return new testing::OpTestLists(*std::move(loaded));
  }();
  return *lists;
}

TEST(OpCoverageTest, EveryRegisteredOpIsCovered) {
  ASSERT_FALSE(Lists().kernel_tested.empty());
  const std::vector<std::string> problems = testing::OpCoverageProblems(
      OpRegistry::Global(), KernelRegistry::Global(), GradientRegistry::Global(), Lists());
  EXPECT_TRUE(problems.empty()) << problems.size() << " ops are not covered:\n" << absl::StrJoin(problems, "\n");
}

TEST(OpCoverageTest, KernelLessOpsAreRegisteredAndHaveNoKernel) {
  // The documented exceptions must stay true: a kernel added later takes the op off the list.
  for (const auto& [op, why] : testing::KernelLessOps()) {
    EXPECT_TRUE(OpRegistry::Global().Find(op).ok()) << op;
    EXPECT_EQ(KernelRegistry::Global().FindForType(op, kDeviceCpu, DType::kFloat), nullptr) << op << ": " << why;
  }
}

class ThrowawayKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, ctx.input(0));
    return absl::OkStatus();
  }
};

void RegisterThrowaway(OpRegistry& r, bool with_shape_fn) {
  OpDefBuilder b("TwThrowawayOp");
  b.Input("x: T").Output("y: T").Attr("T: {float32, float64}");
  if (with_shape_fn) b.SetShapeFn(UnchangedShape);
  r.Register(b);
}

// A new op without kernel, tests or gradient, beside every real op: the walker names it
// for each missing piece, and nothing else.
TEST(OpCoverageTest, ANewOpWithoutTestsMakesItRed) {
  ASSERT_FALSE(Lists().kernel_tested.empty());
  OpRegistry ops;
  RegisterAllOps(ops);
  RegisterThrowaway(ops, /*with_shape_fn=*/true);
  KernelRegistry kernels;
  RegisterAllKernels(kernels);
  EXPECT_THAT(testing::OpCoverageProblems(ops, kernels, GradientRegistry::Global(), Lists()),
              UnorderedElementsAre(::testing::StartsWith("TwThrowawayOp: no CPU kernel"),
                                   ::testing::StartsWith("TwThrowawayOp: no kernel test"),
                                   ::testing::StartsWith("TwThrowawayOp: neither a gradient nor RegisterNoGradient")));

  // With a kernel and an entry in the kernel test's lists, only the gradient is missing.
  kernels.Register("TwThrowawayOp", kDeviceCpu, Factory<ThrowawayKernel>());
  testing::OpTestLists lists = Lists();
  lists.kernel_tested.insert("TwThrowawayOp");
  EXPECT_THAT(testing::OpCoverageProblems(ops, kernels, GradientRegistry::Global(), lists),
              UnorderedElementsAre(::testing::StartsWith("TwThrowawayOp: neither a gradient")));
}

// The gradient half on a registry of the throwaway op alone: a gradient must be covered by
// the gradient test's lists; RegisterNoGradient settles it too.
TEST(OpCoverageTest, AGradientWithoutAGradientTestIsRed) {
  OpRegistry ops;
  RegisterThrowaway(ops, /*with_shape_fn=*/true);
  KernelRegistry kernels;
  kernels.Register("TwThrowawayOp", kDeviceCpu, Factory<ThrowawayKernel>());
  testing::OpTestLists lists;
  lists.kernel_tested.insert("TwThrowawayOp");

  GradientRegistry with_gradient;
  with_gradient.Register("TwThrowawayOp", [](const GradContext& ctx) { return std::vector<Output>{ctx.grad_outputs[0]}; });
  EXPECT_THAT(testing::OpCoverageProblems(ops, kernels, with_gradient, lists),
              UnorderedElementsAre(::testing::StartsWith("TwThrowawayOp: a gradient no test checks")));
  lists.gradient_tested.insert("TwThrowawayOp");
  EXPECT_THAT(testing::OpCoverageProblems(ops, kernels, with_gradient, lists), ::testing::IsEmpty());

  GradientRegistry no_gradient;
  no_gradient.RegisterNoGradient("TwThrowawayOp");
  EXPECT_THAT(testing::OpCoverageProblems(ops, kernels, no_gradient, testing::OpTestLists{lists.kernel_tested, {}, {}}),
              ::testing::IsEmpty());
}

TEST(OpCoverageTest, AnOpWithoutShapeFunctionIsRed) {
  OpRegistry ops;
  RegisterThrowaway(ops, /*with_shape_fn=*/false);
  KernelRegistry kernels;
  kernels.Register("TwThrowawayOp", kDeviceCpu, Factory<ThrowawayKernel>());
  GradientRegistry gradients;
  gradients.RegisterNoGradient("TwThrowawayOp");
  EXPECT_THAT(testing::OpCoverageProblems(ops, kernels, gradients, testing::OpTestLists{{"TwThrowawayOp"}, {}, {}}),
              UnorderedElementsAre(::testing::StartsWith("TwThrowawayOp: no shape function")));
}

}  // namespace
}  // namespace tw
