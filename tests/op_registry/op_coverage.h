// The registry-wide op check: every registered op has a shape function, a CPU kernel, a
// kernel test against TensorFlow (or a documented reason), and, when differentiable, a
// gradient that the differential gradient test covers. docs/CONTRIBUTING.md lists what a
// new op must bring; this is what holds a new op to it.
#ifndef TENSORWEAVE_TESTS_OP_REGISTRY_OP_COVERAGE_H_
#define TENSORWEAVE_TESTS_OP_REGISTRY_OP_COVERAGE_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "autodiff/gradient_registry.h"
#include "graph/op_registry.h"
#include "kernels/kernel_registry.h"

namespace tw::testing {

// Where the tests of each op are named. The Python differential tests are the source of
// truth (python/tests/test_tf_oracle_ops.py SPECS | EXCLUDED, test_tf_oracle_grads.py
// GRAD_SPECS | GRAD_EXCLUDED and NO_GRADIENT_IN_EITHER); LoadOpTestLists reads them.
struct OpTestLists {
  std::set<std::string> kernel_tested;
  std::set<std::string> gradient_tested;
  // Ops TensorFlow gives no gradient function and neither do we (tw::gradients fails).
  std::set<std::string> no_gradient_in_either;
};

// Runs tests/op_registry/dump_op_test_lists.py with `python` (the tensorweave package and
// python/tests on its path; `env`, "NAME=value " assignments, before it). Fails naming the
// command when it cannot.
absl::StatusOr<OpTestLists> LoadOpTestLists(const std::string& python, const std::string& source_dir,
                                            const std::string& binary_dir, const std::string& env = "");

// Ops without a CPU kernel by design (the reason is the value): TF1 reference-variable ops,
// which ImportGraphDef lowers to resource ops before anything runs them.
const std::map<std::string, std::string>& KernelLessOps();

// One line per problem ("Foo: no CPU kernel"); empty when every op is covered.
std::vector<std::string> OpCoverageProblems(const OpRegistry& ops, const KernelRegistry& kernels,
                                            const GradientRegistry& gradients, const OpTestLists& tests);

}  // namespace tw::testing

#endif  // TENSORWEAVE_TESTS_OP_REGISTRY_OP_COVERAGE_H_
