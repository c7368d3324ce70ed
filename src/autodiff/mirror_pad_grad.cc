// Gradients of MirrorPad and MirrorPadGrad, as TensorFlow's: each is the other with the
// same paddings and mode; the paddings get none.
#include "autodiff/grad_util.h"

namespace tw {

void RegisterMirrorPadGradients(GradientRegistry& r) {
  for (const auto& [op, other] : {std::pair<const char*, const char*>{"MirrorPad", "MirrorPadGrad"},
                                  {"MirrorPadGrad", "MirrorPad"}}) {
    r.Register(op, [other = std::string(other)](const GradContext& ctx) {
      auto mode = GetStringAttr(ctx.attrs(), "mode");
      return std::vector<Output>{
          grad::Op(other, {ctx.grad_outputs[0], ctx.input(1)}, {{"mode", MakeAttr(mode.ok() ? *mode : "REFLECT")}}),
          Output()};
    });
  }
}

}  // namespace tw
