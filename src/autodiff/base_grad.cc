// Gradients of the base ops and of variable reads.
#include "autodiff/grad_util.h"

namespace tw {

void RegisterBaseGradients(GradientRegistry& r) {
  auto pass_through = [](const GradContext& ctx) { return std::vector<Output>{ctx.grad_outputs[0]}; };
  r.Register("Identity", pass_through);
  r.Register("PlaceholderWithDefault", pass_through);
  for (const char* op : {"Const", "Placeholder", "NoOp", "_Arg", "_Recv", "RandomUniform", "RandomStandardNormal",
                         "TruncatedNormal", "RandomUniformInt", "StopGradient", "LogUniformCandidateSampler",
                         "UniformCandidateSampler"}) {
    r.RegisterNoGradient(op);
  }
  // random_grad.py: ops.NotDifferentiable for each stateless random op.
  for (const char* op : {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
                         "StatelessRandomUniformInt", "StatelessRandomUniformFullInt"}) {
    r.RegisterNoGradient(op);
  }
  // Numbers decoded from strings: TensorFlow declares both NotDifferentiable.
  for (const char* op : {"DecodeRaw", "StringToNumber"}) r.RegisterNoGradient(op);
  // script_ops.py: ops.NotDifferentiable("PyFunc"), ("PyFuncStateless"). EagerPyFunc's
  // gradient runs the function under an eager GradientTape, which we do not have: none.
  for (const char* op : {"PyFunc", "PyFuncStateless"}) r.RegisterNoGradient(op);
  // tf.print's ops: a string out, or nothing (TensorFlow registers none; strings carry no gradient).
  for (const char* op : {"StringFormat", "PrintV2"}) r.RegisterNoGradient(op);
  // The rest of TensorFlow's ops.NotDifferentiable list that we have: string_ops.py,
  // logging_ops.py (Assert, the summaries) and state_grad.py (reference-variable updates).
  // Ops TF leaves unregistered (StringLength, Substr, the queues' V2 ops, ...) stay so.
  for (const char* op : {"AsString", "RegexReplace", "StringJoin", "StringSplit", "Assert", "ScalarSummary",
                         "HistogramSummary", "ImageSummary", "AudioSummaryV2", "MergeSummary", "TensorSummaryV2",
                         "Assign", "AssignAdd", "AssignSub", "ScatterAdd", "ScatterSub", "ScatterMul",
                         "ScatterDiv"}) {
    r.RegisterNoGradient(op);
  }
  // tf.data: datasets and iterators carry no gradient (data_ops.py in TensorFlow).
  for (const char* op : {"TensorDataset", "TensorSliceDataset", "RangeDataset", "TFRecordDataset", "TextLineDataset",
                         "FixedLengthRecordDatasetV2", "ZipDataset", "ConcatenateDataset", "RepeatDataset",
                         "TakeDataset", "SkipDataset", "ShardDataset", "BatchDatasetV2", "PaddedBatchDatasetV2",
                         "ShuffleDataset", "CacheDataset", "PrefetchDataset", "MapDataset", "ParallelMapDatasetV2",
                         "FilterDataset", "FlatMapDataset", "InterleaveDataset", "ParallelInterleaveDatasetV2",
                         "IteratorV2", "OneShotIterator", "MakeIterator", "IteratorGetNext", "IteratorGetNextSync"}) {
    r.RegisterNoGradient(op);
  }
}

void RegisterStateGradients(GradientRegistry& r) {
  // The gradient of a read flows to the handle, so gradients({loss}, {var.handle()})
  // sums over every read of the variable.
  r.Register("ReadVariableOp", [](const GradContext& ctx) { return std::vector<Output>{ctx.grad_outputs[0]}; });
  for (const char* op : {"VarHandleOp", "VarIsInitializedOp", "AssignVariableOp", "AssignAddVariableOp",
                         "AssignSubVariableOp"}) {
    r.RegisterNoGradient(op);
  }
}

}  // namespace tw
