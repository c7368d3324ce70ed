// Checkpoint ops, as TensorFlow's SaveV2/RestoreV2 but with the path and tensor names as
// attrs (tensorweave has no string dtype):
//   SaveTensors(tensors: dtypes) writes the tensors under `names` to `path`;
//   RestoreTensors() -> tensors: dtypes reads them back, checked against dtypes and shapes.
// They take and give values, not variable handles, so one op can save or restore
// variables that live on several devices or tasks: the Saver reads each variable where
// it lives and sends the values to one SaveTensors, and assigns each output of one
// RestoreTensors where its variable lives (see src/train/saver.cc). `shape_and_slices`
// (TF's specs, "" for a whole tensor; empty: all whole) saves the shards of a partitioned
// variable as slices of it, under its name, and restores each shard's block.
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// `path` is non-empty; `names` has one non-empty entry per tensor, and `shape_and_slices`
// none or one spec per tensor (the kernels parse them); no name and spec twice.
absl::Status CheckPathAndNames(InferenceContext& c, int num_tensors) {
  TW_ASSIGN_OR_RETURN(std::string path, GetStringAttr(c.attrs(), "path"));
  if (path.empty()) return absl::InvalidArgumentError("attr 'path' is empty");
  if (num_tensors < 1) return absl::InvalidArgumentError("attr 'dtypes' is empty: nothing to save or restore");
  TW_ASSIGN_OR_RETURN(std::vector<std::string> names, GetStringListAttr(c.attrs(), "names"));
  if (static_cast<int>(names.size()) != num_tensors) {
    return absl::InvalidArgumentError(
        absl::StrCat("attr 'names' has ", names.size(), " entries for ", num_tensors, " tensors"));
  }
  TW_ASSIGN_OR_RETURN(std::vector<std::string> specs, GetStringListAttr(c.attrs(), "shape_and_slices"));
  if (!specs.empty() && static_cast<int>(specs.size()) != num_tensors) {
    return absl::InvalidArgumentError(
        absl::StrCat("attr 'shape_and_slices' has ", specs.size(), " entries for ", num_tensors, " tensors"));
  }
  absl::flat_hash_set<std::string> seen;
  for (int i = 0; i < num_tensors; ++i) {
    const std::string& name = names[i];
    if (name.empty()) return absl::InvalidArgumentError("attr 'names' has an empty name");
    const std::string spec = specs.empty() ? "" : specs[i];
    if (!seen.insert(absl::StrCat(name, "\n", spec)).second) {
      return absl::InvalidArgumentError(absl::StrCat("attr 'names' lists '", name, "' twice",
                                                     spec.empty() ? "" : absl::StrCat(" with slice '", spec, "'")));
    }
  }
  return absl::OkStatus();
}

absl::Status SaveTensorsShape(InferenceContext& c) { return CheckPathAndNames(c, c.num_inputs()); }

// Each output has the shape the caller expects of it (`shapes`, one per tensor).
absl::Status RestoreTensorsShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(CheckPathAndNames(c, c.num_outputs()));
  TW_ASSIGN_OR_RETURN(std::vector<PartialShape> shapes, GetShapeListAttr(c.attrs(), "shapes"));
  if (static_cast<int>(shapes.size()) != c.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat("attr 'shapes' has ", shapes.size(),
                                                   " entries for ", c.num_outputs(), " tensors"));
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, shapes[i]);
  return absl::OkStatus();
}

}  // namespace

void RegisterIoOps(OpRegistry& r) {
  // Writes every tensor, under `names`, to `path` atomically (temporary file, fsync,
  // rename): a failed save leaves no file.
  r.Register(OpDefBuilder("SaveTensors")
                 .Input("tensors: dtypes")
                 .Attr("dtypes: list(type)")
                 .Attr("path: string")
                 .Attr("names: list(string)")
                 .Attr("shape_and_slices: list(string) = []")
                 .SetStateful()
                 .SetShapeFn(SaveTensorsShape));
  // Reads `path` and checks every tensor (present, dtype, shape compatible with `shapes`)
  // before producing any output, so a bad file fails the op and nothing downstream runs.
  r.Register(OpDefBuilder("RestoreTensors")
                 .Output("tensors: dtypes")
                 .Attr("dtypes: list(type)")
                 .Attr("shapes: list(shape)")
                 .Attr("path: string")
                 .Attr("names: list(string)")
                 .Attr("shape_and_slices: list(string) = []")
                 .SetStateful()
                 .SetShapeFn(RestoreTensorsShape));
}

}  // namespace tw
