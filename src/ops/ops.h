// Op families; each registers its schemas (and the shape functions beside them).
#ifndef TENSORWEAVE_SRC_OPS_OPS_H_
#define TENSORWEAVE_SRC_OPS_OPS_H_

#include "graph/op_registry.h"

namespace tw {

// Every family below; the process-wide registry's op list (register_all.cc).
void RegisterAllOps(OpRegistry& r);

void RegisterBaseOps(OpRegistry& r);       // _Arg, _Retval, NoOp, Const, Placeholder*, Identity
void RegisterMathOps(OpRegistry& r);       // elementwise unary/binary, Select, Cast, AddN
void RegisterReductionOps(OpRegistry& r);  // Sum, Mean, Max, Min, Prod, ArgMax
void RegisterLinalgOps(OpRegistry& r);     // MatMul, BatchMatMul
void RegisterArrayOps(OpRegistry& r);      // shapes, slicing, joining, filling, OneHot
void RegisterNnConvOps(OpRegistry& r);     // Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter
void RegisterNnPoolOps(OpRegistry& r);     // MaxPool, AvgPool and their gradients
void RegisterNnNormOps(OpRegistry& r);     // FusedBatchNorm(V2/V3) and their gradients (nn_norm_ops.cc)
void RegisterRnnOps(OpRegistry& r);        // BlockLSTM and BlockLSTMGrad (rnn_ops.cc)
void RegisterNnOps(OpRegistry& r);         // Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits
void RegisterRandomOps(OpRegistry& r);     // RandomUniform, RandomNormal, TruncatedNormal
void RegisterStateOps(OpRegistry& r);      // resource variables
void RegisterTrainingOps(OpRegistry& r);   // ResourceApply* optimizer updates
void RegisterIoOps(OpRegistry& r);         // SaveTensors, RestoreTensors (checkpoints)
void RegisterSendRecvOps(OpRegistry& r);   // _Send, _Recv between partitions
void RegisterDataFlowOps(OpRegistry& r);   // FIFOQueueV2, ResourceConditionalAccumulator, ...
void RegisterStringOps(OpRegistry& r);     // StringJoin
void RegisterSummaryOps(OpRegistry& r);    // ScalarSummary, HistogramSummary, ImageSummary, ...
void RegisterRefVariableOps(OpRegistry& r);  // TF1 VariableV2, Assign, Apply*, ... (lowered on import)
void RegisterIoV2Ops(OpRegistry& r);       // SaveV2, RestoreV2, MergeV2Checkpoints, ShardedFilename, ...
void RegisterParsingOps(OpRegistry& r);    // ParseExample, ParseExampleV2, ParseSingleExample
void RegisterSparseOps(OpRegistry& r);     // SparseToDense
void RegisterNnActivationOps(OpRegistry& r);  // Relu6, Elu, Selu, LeakyRelu, Softplus, Softsign (+Grad)
void RegisterNnTopKOps(OpRegistry& r);        // TopKV2, InTopK, InTopKV2
void RegisterMathScanOps(OpRegistry& r);      // Cumsum, Cumprod
void RegisterMathClipOps(OpRegistry& r);      // ClipByValue

}  // namespace tw

#endif  // TENSORWEAVE_SRC_OPS_OPS_H_
