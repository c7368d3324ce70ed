#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterPartitionKernels(KernelRegistry& r);  // partition_kernels.cc
void RegisterSparseTrainingKernels(KernelRegistry& r);  // sparse_training_kernels.cc
void RegisterSegmentKernels(KernelRegistry& r);  // segment_kernels.cc
void RegisterNdKernels(KernelRegistry& r);       // nd_kernels.cc
void RegisterStringConvertKernels(KernelRegistry& r);  // string_convert_kernels.cc
void RegisterStringTextKernels(KernelRegistry& r);     // string_text_kernels.cc
void RegisterCountUpToKernels(KernelRegistry& r);      // count_up_to_kernels.cc
void RegisterReaderKernels(KernelRegistry& r);         // reader_kernels.cc

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
  RegisterStringConvertKernels(r);
  RegisterStringTextKernels(r);
  RegisterCountUpToKernels(r);
  RegisterReaderKernels(r);
}

}  // namespace tw
