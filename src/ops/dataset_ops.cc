// tf.data's ops with TensorFlow's names, inputs and attrs: datasets (a DT_VARIANT
// scalar each) and iterators (a resource). Attrs TF adds for its own bookkeeping
// (metadata, use_inter_op_parallelism, ...) are accepted and ignored.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status NoOutput(InferenceContext&) { return absl::OkStatus(); }

absl::Status ScalarOutput(InferenceContext& c) {
  c.set_output(0, PartialShape(TensorShape()));
  return absl::OkStatus();
}

// IteratorGetNext: one output per declared component, of its declared shape.
absl::Status ComponentShapes(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(std::vector<PartialShape> shapes, GetShapeListAttr(c.attrs(), "output_shapes"));
  for (int i = 0; i < c.num_outputs() && i < static_cast<int>(shapes.size()); ++i) c.set_output(i, shapes[i]);
  return absl::OkStatus();
}

// A dataset op: the given inputs, the variant output, output_types/output_shapes.
OpDefBuilder Dataset(const char* name) {
  OpDefBuilder b(name);
  b.Output("handle: variant").Attr("output_types: list(type)").Attr("output_shapes: list(shape)")
      .Attr("metadata: string = \"\"").SetShapeFn(ScalarOutput);
  return b;
}

OpDefBuilder FunctionDataset(const char* name, const char* fn_attr) {
  OpDefBuilder b = Dataset(name);
  b.Input("input_dataset: variant").Input("other_arguments: Targuments").Attr(std::string(fn_attr) + ": func")
      .Attr("Targuments: list(type) = []");
  return b;
}

}  // namespace

void RegisterDatasetOps(OpRegistry& r) {
  // Sources.
  r.Register(OpDefBuilder("TensorDataset").Input("components: Toutput_types").Output("handle: variant")
                 .Attr("Toutput_types: list(type)").Attr("output_shapes: list(shape)").Attr("metadata: string = \"\"")
                 .SetShapeFn(ScalarOutput));
  r.Register(OpDefBuilder("TensorSliceDataset").Input("components: Toutput_types").Output("handle: variant")
                 .Attr("Toutput_types: list(type)").Attr("output_shapes: list(shape)").Attr("is_files: bool = false")
                 .Attr("metadata: string = \"\"").Attr("replicate_on_split: bool = false").SetShapeFn(ScalarOutput));
  r.Register(Dataset("RangeDataset").Input("start: int64").Input("stop: int64").Input("step: int64")
                 .Attr("replicate_on_split: bool = false"));
  for (const char* name : {"TFRecordDataset", "TextLineDataset"}) {
    OpDefBuilder b(name);
    b.Input("filenames: string").Input("compression_type: string").Input("buffer_size: int64")
        .Output("handle: variant").Attr("metadata: string = \"\"").SetShapeFn(ScalarOutput);
    r.Register(b);
  }
  r.Register(OpDefBuilder("FixedLengthRecordDatasetV2").Input("filenames: string").Input("header_bytes: int64")
                 .Input("record_bytes: int64").Input("footer_bytes: int64").Input("buffer_size: int64")
                 .Input("compression_type: string").Output("handle: variant").Attr("metadata: string = \"\"")
                 .SetShapeFn(ScalarOutput));
  // Transformations.
  r.Register(Dataset("ZipDataset").Input("input_datasets: N * variant").Attr("N: int >= 1"));
  r.Register(Dataset("ConcatenateDataset").Input("input_dataset: variant").Input("another_dataset: variant"));
  r.Register(Dataset("RepeatDataset").Input("input_dataset: variant").Input("count: int64"));
  r.Register(Dataset("TakeDataset").Input("input_dataset: variant").Input("count: int64"));
  r.Register(Dataset("SkipDataset").Input("input_dataset: variant").Input("count: int64"));
  r.Register(Dataset("ShardDataset").Input("input_dataset: variant").Input("num_shards: int64").Input("index: int64")
                 .Attr("require_non_empty: bool = false"));
  r.Register(Dataset("BatchDatasetV2").Input("input_dataset: variant").Input("batch_size: int64")
                 .Input("drop_remainder: bool").Attr("parallel_copy: bool = false"));
  // As TF: the padding values' Toutput_types stand for output_types.
  r.Register(OpDefBuilder("PaddedBatchDatasetV2").Input("input_dataset: variant").Input("batch_size: int64")
                 .Input("padded_shapes: N * int64").Input("padding_values: Toutput_types").Input("drop_remainder: bool")
                 .Output("handle: variant").Attr("parallel_copy: bool = false").Attr("Toutput_types: list(type)")
                 .Attr("output_shapes: list(shape)").Attr("N: int >= 1").Attr("metadata: string = \"\"")
                 .SetShapeFn(ScalarOutput));
  r.Register(Dataset("ShuffleDataset").Input("input_dataset: variant").Input("buffer_size: int64")
                 .Input("seed: int64").Input("seed2: int64").Attr("reshuffle_each_iteration: bool = true"));
  r.Register(Dataset("CacheDataset").Input("input_dataset: variant").Input("filename: string"));
  r.Register(Dataset("PrefetchDataset").Input("input_dataset: variant").Input("buffer_size: int64")
                 .Attr("slack_period: int = 0").Attr("legacy_autotune: bool = true").Attr("buffer_size_min: int = 0"));
  // Functions of the library on each element.
  r.Register(FunctionDataset("MapDataset", "f").Attr("use_inter_op_parallelism: bool = true")
                 .Attr("preserve_cardinality: bool = false").Attr("force_synchronous: bool = false"));
  r.Register(FunctionDataset("ParallelMapDatasetV2", "f").Input("num_parallel_calls: int64")
                 .Attr("use_inter_op_parallelism: bool = true").Attr("deterministic: string = \"default\"")
                 .Attr("preserve_cardinality: bool = false").Attr("use_unbounded_threadpool: bool = false"));
  r.Register(FunctionDataset("FilterDataset", "predicate"));
  r.Register(FunctionDataset("FlatMapDataset", "f"));
  r.Register(FunctionDataset("InterleaveDataset", "f").Input("cycle_length: int64").Input("block_length: int64"));
  r.Register(FunctionDataset("ParallelInterleaveDatasetV2", "f").Input("cycle_length: int64")
                 .Input("block_length: int64").Input("num_parallel_calls: int64").Attr("sloppy: bool = false"));
  // Iterators.
  r.Register(OpDefBuilder("IteratorV2").Output("handle: resource").Attr("shared_name: string")
                 .Attr("container: string").Attr("output_types: list(type)").Attr("output_shapes: list(shape)")
                 .SetStateful().SetShapeFn(ScalarOutput));
  r.Register(OpDefBuilder("OneShotIterator").Output("handle: resource").Attr("dataset_factory: func")
                 .Attr("output_types: list(type)").Attr("output_shapes: list(shape)")
                 .Attr("container: string = \"\"").Attr("shared_name: string = \"\"").SetStateful()
                 .SetShapeFn(ScalarOutput));
  r.Register(OpDefBuilder("MakeIterator").Input("dataset: variant").Input("iterator: resource").SetStateful()
                 .SetShapeFn(NoOutput));
  // An iterator's position as a variant (TF: a vector of them; here one, so its shape is
  // left unknown), and back into an iterator of a dataset of the same structure.
  r.Register(OpDefBuilder("SerializeIterator").Input("resource_handle: resource").Output("serialized: variant")
                 .Attr("external_state_policy: int = 0").SetStateful().SetShapeFn([](InferenceContext& c) {
                   c.set_output(0, PartialShape::UnknownRank());
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("DeserializeIterator").Input("resource_handle: resource").Input("serialized: variant")
                 .SetStateful().SetShapeFn(NoOutput));
  for (const char* name : {"IteratorGetNext", "IteratorGetNextSync"}) {
    r.Register(OpDefBuilder(name).Input("iterator: resource").Output("components: output_types")
                   .Attr("output_types: list(type)").Attr("output_shapes: list(shape)").SetStateful()
                   .SetShapeFn(ComponentShapes));
  }
}

}  // namespace tw
