// CPU kernel families, one file each under src/kernels/cpu/.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_CPU_KERNELS_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_CPU_KERNELS_H_

#include "kernels/kernel_registry.h"

namespace tw {

void RegisterBaseKernels(KernelRegistry& r);
void RegisterMathKernels(KernelRegistry& r);
void RegisterReductionKernels(KernelRegistry& r);
void RegisterLinalgKernels(KernelRegistry& r);
void RegisterArrayKernels(KernelRegistry& r);
void RegisterNnKernels(KernelRegistry& r);
void RegisterConvKernels(KernelRegistry& r);  // conv_kernels.cc
void RegisterPoolKernels(KernelRegistry& r);  // pool_kernels.cc
void RegisterBatchNormKernels(KernelRegistry& r);  // batch_norm_kernels.cc
void RegisterBlockLstmKernels(KernelRegistry& r);  // block_lstm_kernels.cc: BlockLSTM, BlockLSTMGrad
void RegisterRandomKernels(KernelRegistry& r);
void RegisterStateKernels(KernelRegistry& r);
void RegisterTrainingKernels(KernelRegistry& r);
void RegisterIoKernels(KernelRegistry& r);
void RegisterSendRecvKernels(KernelRegistry& r);
void RegisterDataFlowKernels(KernelRegistry& r);
void RegisterStringKernels(KernelRegistry& r);  // string_kernels.cc
void RegisterWidenedKernels(KernelRegistry& r);  // widen_kernels.cc: int8, half... via int64/float
void RegisterSummaryKernels(KernelRegistry& r);  // summary_kernels.cc
void RegisterResourceScatterKernels(KernelRegistry& r);  // resource_scatter_kernels.cc
void RegisterSaveRestoreV2Kernels(KernelRegistry& r);  // save_restore_v2_kernels.cc: SaveV2, RestoreV2, ...
void RegisterParseExampleKernels(KernelRegistry& r);  // parse_example_kernels.cc: tf.train.Example
void RegisterSparseToDenseKernels(KernelRegistry& r);  // sparse_to_dense_kernels.cc
void RegisterActivationKernels(KernelRegistry& r);  // activation_kernels.cc: Relu6, Elu, ... (+Grad)
void RegisterTopKKernels(KernelRegistry& r);  // topk_kernels.cc: TopKV2, InTopK, InTopKV2
void RegisterScanKernels(KernelRegistry& r);  // scan_kernels.cc: Cumsum, Cumprod
void RegisterClipKernels(KernelRegistry& r);  // clip_kernels.cc: ClipByValue
void RegisterDatasetSourceKernels(KernelRegistry& r);     // dataset_source_kernels.cc
void RegisterDatasetTransformKernels(KernelRegistry& r);  // dataset_transform_kernels.cc
void RegisterDatasetFunctionKernels(KernelRegistry& r);   // dataset_function_kernels.cc
void RegisterIteratorKernels(KernelRegistry& r);          // iterator_kernels.cc

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_CPU_KERNELS_H_
