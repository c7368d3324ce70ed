// Gradients of SpaceToDepth and DepthToSpace, as TensorFlow's: each is the other with the
// same block size (a permutation of the elements).
#include "autodiff/grad_util.h"

namespace tw {

void RegisterSpaceDepthGradients(GradientRegistry& r) {
  for (const auto& [op, other] : {std::pair<const char*, const char*>{"SpaceToDepth", "DepthToSpace"},
                                  {"DepthToSpace", "SpaceToDepth"}}) {
    r.Register(op, [other = std::string(other)](const GradContext& ctx) {
      auto bs = GetIntAttr(ctx.attrs(), "block_size");
      return std::vector<Output>{grad::Op(other, {ctx.grad_outputs[0]},
                                          {{"block_size", MakeAttr(static_cast<int64_t>(bs.ok() ? *bs : 2))}})};
    });
  }
}

}  // namespace tw
