#include "autodiff/gradient_registry.h"

#include "absl/strings/str_cat.h"
#include "graph/graph.h"

namespace tw {

void RegisterPartitionGradients(GradientRegistry& r);  // partition_grad.cc
void RegisterSegmentGradients(GradientRegistry& r);    // segment_grad.cc
void RegisterReorderGradients(GradientRegistry& r);    // reorder_grad.cc
void RegisterLinalgDecompGradients(GradientRegistry& r);  // linalg_decomp_grad.cc
void RegisterLinalgFactorGradients(GradientRegistry& r);  // linalg_factor_grad.cc
void RegisterEinsumGradients(GradientRegistry& r);        // einsum_grad.cc
void RegisterRandomGammaGradients(GradientRegistry& r);   // random_gamma_grad.cc
void RegisterDiagGradients(GradientRegistry& r);       // diag_grad.cc
void RegisterShapeNGradients(GradientRegistry& r);     // shape_n_grad.cc
void RegisterMirrorPadGradients(GradientRegistry& r);  // mirror_pad_grad.cc
void RegisterSpaceDepthGradients(GradientRegistry& r);  // space_depth_grad.cc
void RegisterSpaceBatchGradients(GradientRegistry& r);  // space_batch_grad.cc
void RegisterExtractPatchesGradients(GradientRegistry& r);  // extract_patches_grad.cc
void RegisterMatrixSqrtGradients(GradientRegistry& r);      // matrix_sqrt_grad.cc
void RegisterRandomShuffleGradients(GradientRegistry& r);  // random_shuffle_grad.cc
void RegisterComplexGradients(GradientRegistry& r);  // complex_grad.cc
void RegisterFftGradients(GradientRegistry& r);      // fft_grad.cc
void RegisterControlFlowGradients(GradientRegistry& r);  // control_flow_grad.cc
void RegisterTensorArrayGradients(GradientRegistry& r);  // tensor_array_grad.cc

Output GradContext::input(int i) const {
  const Edge* e = op.node()->input_edge(i);
  return Output(Operation(op.graph(), e->src), e->src_output);
}

const AttrMap& GradContext::attrs() const { return op.node()->attrs(); }

const GradientRegistry& GradientRegistry::Global() { return Mutable(); }

GradientRegistry& GradientRegistry::Mutable() {
  static GradientRegistry* registry = [] {
    auto* r = new GradientRegistry;
    RegisterBaseGradients(*r);
    RegisterControlFlowGradients(*r);
    RegisterTensorArrayGradients(*r);
    RegisterMathGradients(*r);
    RegisterReductionGradients(*r);
    RegisterLinalgGradients(*r);
    RegisterArrayGradients(*r);
    RegisterGatherGradients(*r);
    RegisterConvGradients(*r);
    RegisterPoolGradients(*r);
    RegisterNormGradients(*r);
    RegisterNnGradients(*r);
    RegisterStateGradients(*r);
    RegisterActivationGradients(*r);
    RegisterTopKGradients(*r);
    RegisterScanGradients(*r);
    RegisterClipGradients(*r);
    RegisterRnnGradients(*r);
    RegisterPartitionGradients(*r);
    RegisterSegmentGradients(*r);
    RegisterReorderGradients(*r);
    RegisterLinalgDecompGradients(*r);
    RegisterLinalgFactorGradients(*r);
    RegisterEinsumGradients(*r);
    RegisterRandomGammaGradients(*r);
    RegisterDiagGradients(*r);
    RegisterShapeNGradients(*r);
    RegisterMirrorPadGradients(*r);
    RegisterSpaceDepthGradients(*r);
    RegisterSpaceBatchGradients(*r);
    RegisterExtractPatchesGradients(*r);
    RegisterMatrixSqrtGradients(*r);
    RegisterRandomShuffleGradients(*r);
    RegisterComplexGradients(*r);
    RegisterFftGradients(*r);
    return r;
  }();
  return *registry;
}

void GradientRegistry::Register(const std::string& op, GradFn fn) {
  fns_[op] = std::move(fn);
  no_gradient_.erase(op);
}

void GradientRegistry::RegisterNoGradient(const std::string& op) {
  no_gradient_.insert(op);
  fns_[op] = [](const GradContext& ctx) {
    return std::vector<Output>(ctx.op.node()->num_inputs());
  };
}

absl::StatusOr<const GradFn*> GradientRegistry::Find(const std::string& op) const {
  auto it = fns_.find(op);
  if (it == fns_.end()) {
    return absl::NotFoundError(absl::StrCat("no gradient is registered for op ", op));
  }
  return &it->second;
}

}  // namespace tw
