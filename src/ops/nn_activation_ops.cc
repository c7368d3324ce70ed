// The activations beyond Relu (Relu6, Elu, Selu, LeakyRelu, Softplus, Softsign) and their
// fused gradient ops, with TensorFlow's argument names and dtype sets.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"

namespace tw {
namespace {

constexpr char kRealNumber[] = "T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16}";
constexpr char kFloating[] = "T: {float16, float32, float64}";

// The fused gradient ops take two tensors of one shape; the error names both.
ShapeFn SameShape(const char* name0, const char* name1) {
  return [name0, name1](InferenceContext& c) -> absl::Status {
    auto merged = c.input_shape(0).Merge(c.input_shape(1));
    if (!merged.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name0, " and ", name1, " must have the same shape, got ",
                       c.input_shape(0).DebugString(), " and ", c.input_shape(1).DebugString()));
    }
    c.set_output(0, *merged);
    return absl::OkStatus();
  };
}

// `op` (features -> activations) and `op`Grad (gradients, second -> backprops).
void Activation(OpRegistry& r, const std::string& op, const char* types, const char* second,
                const char* alpha = nullptr) {
  OpDefBuilder fwd(op);
  fwd.Input("features: T").Output("activations: T");
  OpDefBuilder bwd(op + "Grad");
  bwd.Input("gradients: T").Input(absl::StrCat(second, ": T")).Output("backprops: T");
  if (alpha != nullptr) {
    fwd.Attr(alpha);
    bwd.Attr(alpha);
  }
  r.Register(fwd.Attr(types).SetShapeFn(UnchangedShape));
  r.Register(bwd.Attr(types).SetShapeFn(SameShape("gradients", second)));
}

}  // namespace

void RegisterNnActivationOps(OpRegistry& r) {
  Activation(r, "Relu6", kRealNumber, "features");
  Activation(r, "Elu", kFloating, "outputs");
  Activation(r, "Selu", kFloating, "outputs");
  Activation(r, "LeakyRelu", kFloating, "features", "alpha: float = 0.2");
  Activation(r, "Softplus", kFloating, "features");
  Activation(r, "Softsign", kFloating, "features");
}

}  // namespace tw
