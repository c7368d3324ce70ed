#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterPartitionKernels(KernelRegistry& r);  // partition_kernels.cc
void RegisterSparseTrainingKernels(KernelRegistry& r);  // sparse_training_kernels.cc
void RegisterSegmentKernels(KernelRegistry& r);  // segment_kernels.cc
void RegisterNdKernels(KernelRegistry& r);       // nd_kernels.cc
void RegisterArrayReorderKernels(KernelRegistry& r);  // array_reorder_kernels.cc
void RegisterLinalgDecompKernels(KernelRegistry& r);  // linalg_decomp_kernels.cc
void RegisterLinalgFactorKernels(KernelRegistry& r);  // linalg_factor_kernels.cc
void RegisterEinsumKernels(KernelRegistry& r);        // einsum_kernels.cc
void RegisterRandomGammaKernels(KernelRegistry& r);   // random_gamma_kernels.cc
void RegisterPyFuncKernels(KernelRegistry& r);        // py_func_kernels.cc
void RegisterArrayDiagKernels(KernelRegistry& r);     // array_diag_kernels.cc
void RegisterArrayShapeNKernels(KernelRegistry& r);   // array_shape_n_kernels.cc
void RegisterMirrorPadKernels(KernelRegistry& r);     // mirror_pad_kernels.cc
void RegisterSpaceDepthKernels(KernelRegistry& r);    // space_depth_kernels.cc
void RegisterSpaceBatchKernels(KernelRegistry& r);    // space_batch_kernels.cc
void RegisterBitcastKernel(KernelRegistry& r);        // bitcast_kernel.cc
void RegisterExtractPatchesKernels(KernelRegistry& r);  // extract_patches_kernels.cc
void RegisterMatrixSqrtKernels(KernelRegistry& r);       // matrix_sqrt_kernels.cc
void RegisterRandomShuffleKernels(KernelRegistry& r);  // random_shuffle_kernels.cc
void RegisterMultinomialKernels(KernelRegistry& r);     // multinomial_kernels.cc
void RegisterReverseSequenceKernels(KernelRegistry& r);  // reverse_sequence_kernels.cc
void RegisterUnravelIndexKernels(KernelRegistry& r);     // unravel_index_kernels.cc
void RegisterControlFlowKernels(KernelRegistry& r);  // control_flow_kernels.cc
void RegisterStringConvertKernels(KernelRegistry& r);  // string_convert_kernels.cc
void RegisterDecodeCsvKernels(KernelRegistry& r);      // decode_csv_kernels.cc
void RegisterStringTextKernels(KernelRegistry& r);     // string_text_kernels.cc
void RegisterCountUpToKernels(KernelRegistry& r);      // count_up_to_kernels.cc
void RegisterReaderKernels(KernelRegistry& r);         // reader_kernels.cc
void RegisterCollectiveKernels(KernelRegistry& r);     // collective_kernels.cc
void RegisterStackKernels(KernelRegistry& r);          // stack_kernels.cc
void RegisterTensorArrayKernels(KernelRegistry& r);    // tensor_array_kernels.cc
void RegisterPrintV2Kernels(KernelRegistry& r);        // print_v2_kernels.cc

void RegisterAllKernels(KernelRegistry& r) {
  RegisterBaseKernels(r);
  RegisterMathKernels(r);
  RegisterReductionKernels(r);
  RegisterLinalgKernels(r);
  RegisterArrayKernels(r);
  RegisterNnKernels(r);
  RegisterConvKernels(r);
  RegisterPoolKernels(r);
  RegisterBatchNormKernels(r);
  RegisterBlockLstmKernels(r);
  RegisterRandomKernels(r);
  RegisterStateKernels(r);
  RegisterTrainingKernels(r);
  RegisterIoKernels(r);
  RegisterSendRecvKernels(r);
  RegisterDataFlowKernels(r);
  RegisterStringKernels(r);
  RegisterWidenedKernels(r);
  RegisterSummaryKernels(r);
  RegisterResourceScatterKernels(r);
  RegisterSaveRestoreV2Kernels(r);
  RegisterParseExampleKernels(r);
  RegisterSparseToDenseKernels(r);
  RegisterActivationKernels(r);
  RegisterTopKKernels(r);
  RegisterScanKernels(r);
  RegisterClipKernels(r);
  RegisterPartitionKernels(r);
  RegisterSparseTrainingKernels(r);
  RegisterSegmentKernels(r);
  RegisterNdKernels(r);
  RegisterArrayReorderKernels(r);
  RegisterLinalgDecompKernels(r);
  RegisterLinalgFactorKernels(r);
  RegisterEinsumKernels(r);
  RegisterRandomGammaKernels(r);
  RegisterPyFuncKernels(r);
  RegisterArrayDiagKernels(r);
  RegisterArrayShapeNKernels(r);
  RegisterMirrorPadKernels(r);
  RegisterSpaceDepthKernels(r);
  RegisterSpaceBatchKernels(r);
  RegisterBitcastKernel(r);
  RegisterExtractPatchesKernels(r);
  RegisterMatrixSqrtKernels(r);
  RegisterRandomShuffleKernels(r);
  RegisterMultinomialKernels(r);
  RegisterReverseSequenceKernels(r);
  RegisterUnravelIndexKernels(r);
  RegisterControlFlowKernels(r);
  RegisterStringConvertKernels(r);
  RegisterDecodeCsvKernels(r);
  RegisterStringTextKernels(r);
  RegisterCountUpToKernels(r);
  RegisterReaderKernels(r);
  RegisterCollectiveKernels(r);
  RegisterStackKernels(r);
  RegisterTensorArrayKernels(r);
  RegisterDatasetSourceKernels(r);
  RegisterDatasetTransformKernels(r);
  RegisterDatasetFunctionKernels(r);
  RegisterIteratorKernels(r);
  RegisterPrintV2Kernels(r);
}

}  // namespace tw
