#include "ops/ops.h"

namespace tw {

void RegisterSparseTrainingOps(OpRegistry& r);  // training_ops_sparse.cc
void RegisterMathSegmentOps(OpRegistry& r);     // math_segment_ops.cc
void RegisterStringMoreOps(OpRegistry& r);      // string_ops_more.cc
void RegisterInputOps(OpRegistry& r);           // input_ops.cc
void RegisterReaderOps(OpRegistry& r);          // reader_ops.cc

void RegisterAllOps(OpRegistry& r) {
  RegisterBaseOps(r);
  RegisterMathOps(r);
  RegisterReductionOps(r);
  RegisterLinalgOps(r);
  RegisterArrayOps(r);
  RegisterNnOps(r);
  RegisterNnConvOps(r);
  RegisterNnPoolOps(r);
  RegisterNnNormOps(r);
  RegisterRandomOps(r);
  RegisterStateOps(r);
  RegisterTrainingOps(r);
  RegisterSparseTrainingOps(r);
  RegisterMathSegmentOps(r);
  RegisterIoOps(r);
  RegisterSendRecvOps(r);
  RegisterDataFlowOps(r);
  RegisterStringOps(r);
  RegisterSummaryOps(r);
  RegisterRefVariableOps(r);
  RegisterIoV2Ops(r);
  RegisterParsingOps(r);
  RegisterSparseOps(r);
  RegisterNnActivationOps(r);
  RegisterNnTopKOps(r);
  RegisterMathScanOps(r);
  RegisterMathClipOps(r);
  RegisterStringMoreOps(r);
  RegisterInputOps(r);
  RegisterReaderOps(r);
}

}  // namespace tw
