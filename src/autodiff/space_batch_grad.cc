// Gradients of SpaceToBatch(ND) and BatchToSpace(ND), as TensorFlow's: each is the other with
// the same block and paddings / crops (padding cells get no gradient, cropped cells zero).
#include "autodiff/grad_util.h"

namespace tw {

void RegisterSpaceBatchGradients(GradientRegistry& r) {
  for (const auto& [op, other] : {std::pair<const char*, const char*>{"SpaceToBatchND", "BatchToSpaceND"},
                                  {"BatchToSpaceND", "SpaceToBatchND"}}) {
    r.Register(op, [other = std::string(other)](const GradContext& ctx) {
      return std::vector<Output>{grad::Op(other, {ctx.grad_outputs[0], ctx.input(1), ctx.input(2)}), Output(),
                                 Output()};
    });
  }
  for (const auto& [op, other] : {std::pair<const char*, const char*>{"SpaceToBatch", "BatchToSpace"},
                                  {"BatchToSpace", "SpaceToBatch"}}) {
    r.Register(op, [other = std::string(other)](const GradContext& ctx) {
      auto size = GetIntAttr(ctx.attrs(), "block_size");
      return std::vector<Output>{grad::Op(other, {ctx.grad_outputs[0], ctx.input(1)},
                                          {{"block_size", MakeAttr(static_cast<int64_t>(size.ok() ? *size : 2))}}),
                                 Output()};
    });
  }
}

}  // namespace tw
