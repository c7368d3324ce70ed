// Variable scopes and get_variable. The open scopes of each graph live in a map keyed by
// the graph, holding an entry only while some scope is open (the guards pop it), so no
// state outlives a graph. The variables made by get_variable are recorded in a graph
// collection (as TensorFlow's variable store), so they live and die with the graph.
#include "tensorweave/variable_scope.h"

#include <memory>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "graph/graph.h"

namespace tw {
namespace {

// Handles of the variables made by get_variable.
constexpr char kVariableStore[] = "__variable_store";

class ScopeStacks {
 public:
  static ScopeStacks& Get() {
    static ScopeStacks* stacks = new ScopeStacks;  // Never destroyed: used until exit.
    return *stacks;
  }
  VariableScopeInfo Current(const Graph* g) const {
    absl::MutexLock lock(&mu_);
    auto it = stacks_.find(g);
    return it == stacks_.end() ? VariableScopeInfo{} : it->second.back();
  }
  VariableScopeInfo Push(const Graph* g, const std::string& name, Reuse reuse) {
    absl::MutexLock lock(&mu_);
    std::vector<VariableScopeInfo>& stack = stacks_[g];
    VariableScopeInfo parent = stack.empty() ? VariableScopeInfo{} : stack.back();
    VariableScopeInfo scope;
    scope.name = parent.name.empty() ? name : absl::StrCat(parent.name, "/", name);
    scope.reuse = reuse != Reuse::kFalse ? reuse : parent.reuse;
    stack.push_back(scope);
    return scope;
  }
  // Sets the innermost open scope's reuse to kTrue; false when no scope is open.
  bool SetReuse(const Graph* g) {
    absl::MutexLock lock(&mu_);
    auto it = stacks_.find(g);
    if (it == stacks_.end()) return false;
    it->second.back().reuse = Reuse::kTrue;
    return true;
  }
  void Pop(const Graph* g) {
    absl::MutexLock lock(&mu_);
    auto it = stacks_.find(g);
    if (it == stacks_.end()) return;
    it->second.pop_back();
    if (it->second.empty()) stacks_.erase(it);
  }

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<const Graph*, std::vector<VariableScopeInfo>> stacks_ ABSL_GUARDED_BY(mu_);
};

[[noreturn]] void Throw(const std::string& message) {
  throw StatusError(absl::InvalidArgumentError(message));
}

void CheckName(const std::string& name, const char* what) {
  if (name.back() == '/' || !IsValidNodeName(name)) {
    Throw(absl::StrCat("invalid ", what, " name '", name,
                       "' (use letters, digits, _ . / - and no trailing /)"));
  }
}

// The variable get_variable made under `full_name`, if any.
std::optional<Variable> FindStored(const Graph& g, const std::string& full_name) {
  for (const Output& handle : g.get_collection(kVariableStore)) {
    if (handle.op().name() == full_name) return Variable::FromHandle(handle);
  }
  return std::nullopt;
}

}  // namespace

ScopeGuard variable_scope(Graph& g, const std::string& name, Reuse reuse) {
  if (name.empty()) Throw("variable_scope needs a name");
  CheckName(name, "variable scope");
  auto name_scope = std::make_shared<ScopeGuard>(g.name_scope(name));
  ScopeStacks::Get().Push(&g, name, reuse);
  const Graph* graph = &g;
  return ScopeGuard([graph, name_scope]() mutable {
    ScopeStacks::Get().Pop(graph);
    name_scope.reset();
  });
}

ScopeGuard variable_scope(Graph& g, const std::string& name, bool reuse) {
  return variable_scope(g, name, reuse ? Reuse::kTrue : Reuse::kFalse);
}

VariableScopeInfo get_variable_scope(const Graph& g) { return ScopeStacks::Get().Current(&g); }

void reuse_variables(Graph& g) {
  if (!ScopeStacks::Get().SetReuse(&g)) {
    throw StatusError(absl::FailedPreconditionError(
        "reuse_variables needs an open variable_scope (the top level cannot be set to reuse)"));
  }
}

Variable get_variable(Graph& g, const std::string& name, const TensorShape& shape, DType dtype,
                      const Initializer& initializer, bool trainable) {
  if (name.empty()) Throw("get_variable needs a name");
  CheckName(name, "variable");
  const VariableScopeInfo scope = get_variable_scope(g);
  const std::string full_name = scope.name.empty() ? name : absl::StrCat(scope.name, "/", name);

  if (std::optional<Variable> existing = FindStored(g, full_name)) {
    if (scope.reuse == Reuse::kFalse) {
      Throw(absl::StrCat("Variable ", full_name,
                         " already exists, disallowed. Did you mean to set reuse=true or "
                         "reuse=AUTO_REUSE in variable_scope?"));
    }
    if (!existing->shape().IsCompatibleWith(PartialShape(shape))) {
      Throw(absl::StrCat("Trying to share variable ", full_name, ", but specified shape ",
                         shape.DebugString(), " and found shape ", existing->shape().DebugString(),
                         "."));
    }
    if (existing->dtype() != dtype) {
      Throw(absl::StrCat("Trying to share variable ", full_name, ", but specified dtype ",
                         DTypeName(dtype), " and found dtype ", DTypeName(existing->dtype()), "."));
    }
    return *existing;
  }
  if (scope.reuse == Reuse::kTrue) {
    Throw(absl::StrCat("Variable ", full_name,
                       " does not exist, or was not created with get_variable(). Did you mean "
                       "to set reuse=AUTO_REUSE in variable_scope?"));
  }
  if (g.flow_graph().FindNode(full_name) != nullptr) {
    Throw(absl::StrCat("Variable ", full_name, " cannot be created: the graph already has an ",
                       "operation named '", full_name, "' (not made by get_variable)"));
  }

  Initializer init = initializer;
  if (!init) init = IsFloating(dtype) ? glorot_uniform_initializer() : zeros_initializer();
  Output initial_value;
  {
    // Named as TensorFlow's: "<var>/Initializer/...", outside any open name scope.
    auto ns = g.name_scope(absl::StrCat(full_name, "/Initializer/"));
    initial_value = init(g, shape, dtype);
  }
  if (initial_value.dtype() != dtype) {
    Throw(absl::StrCat("the initializer of variable ", full_name, " made a ",
                       DTypeName(initial_value.dtype()), " value, not ", DTypeName(dtype)));
  }
  if (!initial_value.shape().IsCompatibleWith(PartialShape(shape))) {
    Throw(absl::StrCat("the initializer of variable ", full_name, " made a value of shape ",
                       initial_value.shape().DebugString(), ", not ", shape.DebugString()));
  }
  // At the top level under its full name: Variable names its assign and read ops after
  // the handle, so they must not get a name scope prefix twice.
  auto ns = g.name_scope("");
  Variable var(g, initial_value, full_name, trainable);
  if (var.name() != full_name) {
    throw StatusError(
        absl::InternalError(absl::StrCat("variable ", full_name, " was named ", var.name())));
  }
  g.add_to_collection(kVariableStore, var.handle());
  return var;
}

}  // namespace tw
