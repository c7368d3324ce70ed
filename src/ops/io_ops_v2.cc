// TensorFlow's checkpoint ops with its signatures, as the saver subgraph of a TF-written
// GraphDef uses them (tf.compat.v1.train.Saver):
//   SaveV2(prefix, tensor_names, shape_and_slices, tensors: dtypes)
//   RestoreV2(prefix, tensor_names, shape_and_slices) -> tensors: dtypes
//   MergeV2Checkpoints(checkpoint_prefixes, destination_prefix)  (sharded saves)
//   ShardedFilename(basename, shard, num_shards) -> "<basename>-00000-of-00001"
//   ShardedFilespec(basename, num_shards) -> "<basename>-?????-of-00001"
//   StaticRegexFullMatch(input) -> bool  (the saver's "^s3://.*" test of the prefix)
// Kernels: src/kernels/cpu/save_restore_v2_kernels.cc. Our own Saver keeps using
// SaveTensors/RestoreTensors (src/ops/io_ops.cc), which take names as attrs.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// prefix is a scalar; tensor_names and shape_and_slices are vectors of one entry per tensor.
absl::Status CheckNamesShape(InferenceContext& c, int num_tensors) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 0));
  for (int i : {1, 2}) {
    TW_RETURN_IF_ERROR(c.WithRank(i, 1));
    const PartialShape& s = c.input_shape(i);
    if (s.known_rank() && s.dim(0) >= 0 && s.dim(0) != num_tensors) {
      return absl::InvalidArgumentError(absl::StrCat(i == 1 ? "tensor_names" : "shape_and_slices", " has ",
                                                     s.dim(0), " entries for ", num_tensors, " tensors"));
    }
  }
  return absl::OkStatus();
}

absl::Status SaveV2Shape(InferenceContext& c) { return CheckNamesShape(c, c.num_inputs() - 3); }

absl::Status RestoreV2Shape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(CheckNamesShape(c, c.num_outputs()));
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape::UnknownRank());
  return absl::OkStatus();
}

absl::Status AllScalarInputs(InferenceContext& c) {
  for (int i = 0; i < c.num_inputs(); ++i) TW_RETURN_IF_ERROR(c.WithRank(i, 0));
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape({}));
  return absl::OkStatus();
}

}  // namespace

void RegisterIoV2Ops(OpRegistry& r) {
  r.Register(OpDefBuilder("SaveV2")
                 .Input("prefix: string")
                 .Input("tensor_names: string")
                 .Input("shape_and_slices: string")
                 .Input("tensors: dtypes")
                 .Attr("dtypes: list(type)")
                 .SetStateful()
                 .SetShapeFn(SaveV2Shape));
  r.Register(OpDefBuilder("RestoreV2")
                 .Input("prefix: string")
                 .Input("tensor_names: string")
                 .Input("shape_and_slices: string")
                 .Output("tensors: dtypes")
                 .Attr("dtypes: list(type)")
                 .SetStateful()
                 .SetShapeFn(RestoreV2Shape));
  r.Register(OpDefBuilder("MergeV2Checkpoints")
                 .Input("checkpoint_prefixes: string")
                 .Input("destination_prefix: string")
                 .Attr("delete_old_dirs: bool = true")
                 .Attr("allow_missing_files: bool = false")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) {
                   TW_RETURN_IF_ERROR(c.WithRank(0, 1));
                   return c.WithRank(1, 0);
                 }));
  r.Register(OpDefBuilder("ShardedFilename")
                 .Input("basename: string")
                 .Input("shard: int32")
                 .Input("num_shards: int32")
                 .Output("filename: string")
                 .SetShapeFn(AllScalarInputs));
  r.Register(OpDefBuilder("ShardedFilespec")
                 .Input("basename: string")
                 .Input("num_shards: int32")
                 .Output("filename: string")
                 .SetShapeFn(AllScalarInputs));
  r.Register(OpDefBuilder("StaticRegexFullMatch")
                 .Input("input: string")
                 .Output("output: bool")
                 .Attr("pattern: string")
                 .SetShapeFn(UnchangedShape));
}

}  // namespace tw
