// Checkpoint ops. TensorFlow's SaveV2/RestoreV2 take string tensors (prefix, names) and
// a typed list of values; tensorweave has no string dtype and lists of one type only, so
// these ops take the variables' handles and the path and names as attrs instead:
//   SaveVariables(resources: N * resource) writes every variable's value to `path`;
//   RestoreVariables(resources: N * resource) assigns every variable from `path`.
// Taking the handles colocates them with the variables (the placer joins resource
// consumers to their producer), so they run where the variables live.
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// Handles are scalars; `names` has one non-empty, distinct entry per handle.
absl::Status VariablesIoShape(InferenceContext& c) {
  for (int i = 0; i < c.num_inputs(); ++i) TW_RETURN_IF_ERROR(c.WithRank(i, 0));
  TW_ASSIGN_OR_RETURN(std::string path, GetStringAttr(c.attrs(), "path"));
  if (path.empty()) return absl::InvalidArgumentError("attr 'path' is empty");
  TW_ASSIGN_OR_RETURN(std::vector<std::string> names, GetStringListAttr(c.attrs(), "names"));
  if (static_cast<int>(names.size()) != c.num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat("attr 'names' has ", names.size(),
                                                   " entries for ", c.num_inputs(), " variables"));
  }
  absl::flat_hash_set<std::string> seen;
  for (const std::string& name : names) {
    if (name.empty()) return absl::InvalidArgumentError("attr 'names' has an empty name");
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat("attr 'names' lists '", name, "' twice"));
    }
  }
  return absl::OkStatus();
}

OpDefBuilder VariablesIoOp(const char* name) {
  return OpDefBuilder(name)
      .Input("resources: N * resource")
      .Attr("N: int >= 1")
      .Attr("path: string")
      .Attr("names: list(string)")
      .SetStateful()
      .SetShapeFn(VariablesIoShape);
}

}  // namespace

void RegisterIoOps(OpRegistry& r) {
  // Reads every variable (FailedPrecondition if one is uninitialized) and writes them
  // all, under `names`, to `path` atomically (temporary file, fsync, rename).
  r.Register(VariablesIoOp("SaveVariables"));
  // Reads `path` and checks every tensor (present, dtype, shape against the variable's
  // declared shape and, when initialized, its current shape) before assigning any, so a
  // bad file leaves every variable as it was.
  r.Register(VariablesIoOp("RestoreVariables"));
}

}  // namespace tw
