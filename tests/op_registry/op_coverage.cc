#include "op_registry/op_coverage.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "graph/shape_inference.h"

namespace tw::testing {
namespace {

constexpr DType kAllDTypes[] = {DType::kFloat, DType::kDouble, DType::kInt32,  DType::kUint8,
                                DType::kInt16, DType::kInt8,   DType::kString, DType::kInt64,
                                DType::kBool,  DType::kUint16, DType::kHalf,   DType::kResource,
                                DType::kComplex64, DType::kComplex128};

bool HasCpuKernel(const KernelRegistry& kernels, const std::string& op) {
  for (DType t : kAllDTypes) {
    if (kernels.FindForType(op, kDeviceCpu, t) != nullptr) return true;
  }
  return false;
}

// OpDefBuilder::Build gives an op without SetShapeFn UnknownShape; an op that wants it
// says so with SetShapeFn(UnknownShape) through a function of its own.
bool HasOwnShapeFn(const OpDef& def) {
  using Fn = absl::Status (*)(InferenceContext&);
  if (!def.shape_fn) return false;
  const Fn* fn = def.shape_fn.target<Fn>();
  return fn == nullptr || *fn != &UnknownShape;
}

// Floating and complex tensors carry gradients.
bool IsFloat(DType t) { return t == DType::kFloat || t == DType::kDouble || t == DType::kHalf || IsComplex(t); }

// Whether some output of `def` can be a floating-point tensor: only those carry gradients.
bool MayOutputFloats(const OpDef& def) {
  for (const ArgDef& out : def.outputs) {
    if (!out.type_list_attr.empty()) return true;
    if (out.type_attr.empty()) {
      if (IsFloat(out.fixed_type)) return true;
      continue;
    }
    const AttrDef* attr = def.FindAttr(out.type_attr);
    if (attr == nullptr || attr->allowed_types.empty()) return true;
    for (DType t : attr->allowed_types) {
      if (IsFloat(t)) return true;
    }
  }
  return false;
}

}  // namespace

const std::map<std::string, std::string>& KernelLessOps() {
  static const auto* ops = [] {
    auto* m = new std::map<std::string, std::string>;
    for (const char* op : {"VariableV2", "Variable", "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized",
                           "ApplyGradientDescent", "ApplyMomentum", "ApplyAdagrad", "ApplyRMSProp", "ApplyAdam",
                           "ApplyCenteredRMSProp", "ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul",
                           "ScatterDiv", "ScatterMin", "ScatterMax", "SparseApplyProximalGradientDescent",
                           "SparseApplyMomentum", "SparseApplyAdagrad", "SparseApplyRMSProp", "TemporaryVariable",
                           "DestroyTemporaryVariable"}) {
      (*m)[op] = "TF1 reference-variable op: lowered to resource ops on import (src/graph/ref_variable_lowering.cc)";
    }
    return m;
  }();
  return *ops;
}

absl::StatusOr<OpTestLists> LoadOpTestLists(const std::string& python, const std::string& source_dir,
                                            const std::string& binary_dir, const std::string& env) {
  const std::string command =
      absl::StrCat(env, "PYTHONPATH='", binary_dir, "/python:", source_dir, "/python/tests' '", python, "' '", source_dir,
                   "/tests/op_registry/dump_op_test_lists.py' 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError("cannot run " + command);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) text.append(buffer, n);
  const int rc = pclose(pipe);
  if (rc != 0) return absl::InternalError(absl::StrCat(command, " failed (", rc, "):\n", text));
  OpTestLists lists;
  std::istringstream lines(text);
  std::string kind, op;
  while (lines >> kind >> op) {
    if (kind == "kernel") lists.kernel_tested.insert(op);
    else if (kind == "gradient") lists.gradient_tested.insert(op);
    else if (kind == "no_gradient") lists.no_gradient_in_either.insert(op);
    else return absl::InternalError("unexpected line from " + command + ": " + kind + " " + op);
  }
  if (lists.kernel_tested.empty()) return absl::InternalError(command + " listed no op");
  return lists;
}

std::vector<std::string> OpCoverageProblems(const OpRegistry& ops, const KernelRegistry& kernels,
                                            const GradientRegistry& gradients, const OpTestLists& tests) {
  std::vector<std::string> problems;
  for (const std::string& name : ops.ListOps()) {
    const OpDef& def = **ops.Find(name);
    if (!HasOwnShapeFn(def)) problems.push_back(name + ": no shape function (OpDefBuilder::SetShapeFn)");
    if (!HasCpuKernel(kernels, name) && !KernelLessOps().count(name)) {
      problems.push_back(name + ": no CPU kernel (src/kernels/cpu)");
    }
    if (!tests.kernel_tested.count(name)) {
      problems.push_back(name + ": no kernel test (a SPECS entry, or an EXCLUDED entry naming its test, in "
                                "python/tests/test_tf_oracle_ops.py)");
    }
    const bool has_gradient = gradients.Find(name).ok() && !gradients.IsNoGradient(name);
    if (has_gradient && !tests.gradient_tested.count(name)) {
      problems.push_back(name + ": a gradient no test checks (GRAD_SPECS or GRAD_EXCLUDED in "
                                "python/tests/test_tf_oracle_grads.py)");
    }
    // An op that can output floats must say whether it is differentiable; stateful ops
    // (variables, queues, readers) and ops of integer, bool or string results cannot carry one.
    if (!has_gradient && !gradients.IsNoGradient(name) && !def.stateful && MayOutputFloats(def) &&
        !tests.no_gradient_in_either.count(name) && !KernelLessOps().count(name)) {
      problems.push_back(name + ": neither a gradient nor RegisterNoGradient (src/autodiff)");
    }
  }
  return problems;
}

}  // namespace tw::testing
