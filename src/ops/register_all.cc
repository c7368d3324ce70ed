#include "ops/ops.h"

namespace tw {

void RegisterSparseTrainingOps(OpRegistry& r);  // training_ops_sparse.cc
void RegisterMathSegmentOps(OpRegistry& r);     // math_segment_ops.cc
void RegisterArrayReorderOps(OpRegistry& r);    // array_ops_reorder.cc
void RegisterLinalgDecompOps(OpRegistry& r);    // linalg_ops_decomp.cc
void RegisterLinalgFactorOps(OpRegistry& r);    // linalg_ops_factor.cc
void RegisterEinsumOps(OpRegistry& r);          // einsum_ops.cc
void RegisterRandomGammaOps(OpRegistry& r);     // random_ops_gamma.cc
void RegisterScriptOps(OpRegistry& r);          // script_ops.cc
void RegisterArrayDiagOps(OpRegistry& r);       // array_ops_diag.cc
void RegisterArrayShapeNOps(OpRegistry& r);     // array_ops_shape_n.cc
void RegisterArrayMirrorPadOps(OpRegistry& r);  // array_ops_mirror_pad.cc
void RegisterArraySpaceDepthOps(OpRegistry& r); // array_ops_space_depth.cc
void RegisterArraySpaceBatchOps(OpRegistry& r); // array_ops_space_batch.cc
void RegisterArrayBitcastOps(OpRegistry& r);    // array_ops_bitcast.cc
void RegisterArrayExtractPatchesOps(OpRegistry& r);  // array_ops_extract_patches.cc
void RegisterRandomShuffleOps(OpRegistry& r);    // random_ops_shuffle.cc
void RegisterRandomMultinomialOps(OpRegistry& r);  // random_ops_multinomial.cc
void RegisterStatelessRandomOps(OpRegistry& r);    // random_ops_stateless.cc
void RegisterComplexOps(OpRegistry& r);            // complex_ops.cc
void RegisterFftOps(OpRegistry& r);                // fft_ops.cc
void RegisterArrayReverseSequenceOps(OpRegistry& r);  // array_ops_reverse_sequence.cc
void RegisterArrayUnravelIndexOps(OpRegistry& r);  // array_ops_unravel_index.cc
void RegisterControlFlowOps(OpRegistry& r);     // control_flow_ops.cc
void RegisterStringMoreOps(OpRegistry& r);      // string_ops_more.cc
void RegisterInputOps(OpRegistry& r);           // input_ops.cc
void RegisterReaderOps(OpRegistry& r);          // reader_ops.cc
void RegisterCollectiveOps(OpRegistry& r);      // collective_ops.cc
void RegisterStackOps(OpRegistry& r);           // stack_ops.cc
void RegisterTensorArrayOps(OpRegistry& r);     // tensor_array_ops.cc
void RegisterPrintV2Ops(OpRegistry& r);         // print_v2_ops.cc
void RegisterDatasetOps(OpRegistry& r);         // dataset_ops.cc

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
  RegisterRnnOps(r);
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
  RegisterArrayReorderOps(r);
  RegisterLinalgDecompOps(r);
  RegisterLinalgFactorOps(r);
  RegisterEinsumOps(r);
  RegisterRandomGammaOps(r);
  RegisterScriptOps(r);
  RegisterArrayDiagOps(r);
  RegisterArrayShapeNOps(r);
  RegisterArrayMirrorPadOps(r);
  RegisterArraySpaceDepthOps(r);
  RegisterArraySpaceBatchOps(r);
  RegisterArrayBitcastOps(r);
  RegisterArrayExtractPatchesOps(r);
  RegisterRandomShuffleOps(r);
  RegisterRandomMultinomialOps(r);
  RegisterStatelessRandomOps(r);
  RegisterComplexOps(r);
  RegisterFftOps(r);
  RegisterArrayReverseSequenceOps(r);
  RegisterArrayUnravelIndexOps(r);
  RegisterControlFlowOps(r);
  RegisterStringMoreOps(r);
  RegisterInputOps(r);
  RegisterReaderOps(r);
  RegisterCollectiveOps(r);
  RegisterStackOps(r);
  RegisterTensorArrayOps(r);
  RegisterDatasetOps(r);
  RegisterPrintV2Ops(r);
}

}  // namespace tw

// Hands the op list to OpRegistry::Global() before main (or at the Python module's load).
// Nothing refers to this object otherwise: the ops library's users link with
// --undefined=tw_ops_registered (src/CMakeLists.txt) so that static linking keeps it.
extern "C" {
bool tw_ops_registered = (tw::SetGlobalOpList(&tw::RegisterAllOps), true);
}
