// Relu6, Elu, Selu, LeakyRelu, Softplus, Softsign and their fused gradient ops. Each is a
// per-element formula written as TensorFlow's kernel computes it (same branches, same
// order of operations) so that results agree to the ulp where the math library does.
#include <cmath>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/cwise.h"

namespace tw {
namespace {

using cwise::FloatTypes;
using cwise::NumericTypes;

// Reads LeakyRelu's `alpha` attr for functors that declare kHasAlpha.
template <typename F>
float ReadAlpha(OpKernelConstruction& c) {
  float alpha = 0;
  if constexpr (F::kHasAlpha) c.GetAttr("alpha", &alpha);
  return alpha;
}

// y = F::Apply(x, alpha) elementwise.
template <typename T, typename F>
class ActivationOp : public OpKernel {
 public:
  explicit ActivationOp(OpKernelConstruction& c) : OpKernel(c), alpha_(ReadAlpha<F>(c)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const T* xp = x.data<T>();  // May become out's buffer: each element is read before written.
    const int64_t n = x.NumElements();
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.forward_input_or_allocate_output(
                                          0, 0, TensorShape(x.shape()), DTypeOf<T>::value));
    T* yp = out->data<T>();
    const T alpha = static_cast<T>(alpha_);
    cwise::ParallelRange(ctx, n, F::kCost, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) yp[i] = F::Apply(xp[i], alpha);
    });
    return absl::OkStatus();
  }

 private:
  float alpha_;
};

// backprops = F::Apply(gradients, second, alpha), the two inputs of one shape.
template <typename T, typename F>
class ActivationGradOp : public OpKernel {
 public:
  explicit ActivationGradOp(OpKernelConstruction& c) : OpKernel(c), alpha_(ReadAlpha<F>(c)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& g = ctx.input(0);
    const Tensor& v = ctx.input(1);
    if (g.shape() != v.shape()) {
      return absl::InvalidArgumentError(absl::StrCat("gradients and ", F::kSecond,
                                                     " must have the same shape, got ",
                                                     g.shape().DebugString(), " and ",
                                                     v.shape().DebugString()));
    }
    const T* gp = g.data<T>();
    const T* vp = v.data<T>();
    const int64_t n = g.NumElements();
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, g.shape(), DTypeOf<T>::value));
    T* zp = out->data<T>();
    const T alpha = static_cast<T>(alpha_);
    cwise::ParallelRange(ctx, n, F::kCost, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) zp[i] = F::Apply(gp[i], vp[i], alpha);
    });
    return absl::OkStatus();
  }

 private:
  float alpha_;
};

// SELU's constants (Klambauer et al. 2017), as TensorFlow spells them.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

struct Relu6F : NumericTypes {
  static constexpr bool kHasAlpha = false;
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x, T) {
    // min(max(x, 0), 6); NaN stays NaN.
    if (x != x) return x;
    return x > T{0} ? (x < T{6} ? x : T{6}) : T{0};
  }
};
struct Relu6GradF : NumericTypes {
  static constexpr bool kHasAlpha = false;
  static constexpr int64_t kCost = 1;
  static constexpr const char* kSecond = "features";
  template <typename T>
  static T Apply(T g, T features, T) {
    // A product, as TensorFlow's: a NaN gradient stays NaN outside (0, 6).
    return g * static_cast<T>(features > T{0} && features < T{6});
  }
};

struct EluF : FloatTypes {
  static constexpr bool kHasAlpha = false;
  static constexpr int64_t kCost = 5;
  template <typename T>
  static T Apply(T x, T) {
    return x < T{0} ? std::exp(x) - T{1} : x;
  }
};
struct EluGradF : FloatTypes {
  static constexpr bool kHasAlpha = false;
  static constexpr int64_t kCost = 1;
  static constexpr const char* kSecond = "outputs";
  template <typename T>
  static T Apply(T g, T y, T) {
    return y < T{0} ? (y + T{1}) * g : g;
  }
};

struct SeluF : FloatTypes {
  static constexpr bool kHasAlpha = false;
  static constexpr int64_t kCost = 5;
  template <typename T>
  static T Apply(T x, T) {
    const T scale = static_cast<T>(kSeluScale);
    const T scale_alpha = static_cast<T>(kSeluScale * kSeluAlpha);
    return x < T{0} ? scale_alpha * (std::exp(x) - T{1}) : scale * x;
  }
};
struct SeluGradF : FloatTypes {
  static constexpr bool kHasAlpha = false;
  static constexpr int64_t kCost = 1;
  static constexpr const char* kSecond = "outputs";
  template <typename T>
  static T Apply(T g, T y, T) {
    const T scale = static_cast<T>(kSeluScale);
    const T scale_alpha = static_cast<T>(kSeluScale * kSeluAlpha);
    return y < T{0} ? g * (y + scale_alpha) : g * scale;
  }
};

struct LeakyReluF : FloatTypes {
  static constexpr bool kHasAlpha = true;
  static constexpr int64_t kCost = 1;
  template <typename T>
  static T Apply(T x, T alpha) {
    return x > T{0} ? x : x * alpha;
  }
};
struct LeakyReluGradF : FloatTypes {
  static constexpr bool kHasAlpha = true;
  static constexpr int64_t kCost = 1;
  static constexpr const char* kSecond = "features";
  template <typename T>
  static T Apply(T g, T features, T alpha) {
    return features > T{0} ? g : g * alpha;
  }
};

struct SoftplusF : FloatTypes {
  static constexpr bool kHasAlpha = false;
  static constexpr int64_t kCost = 10;
  template <typename T>
  static T Apply(T x, T) {
    // Past these thresholds softplus(x) is x, or exp(x), within an epsilon; they keep
    // exp from overflowing and 1 + exp(x) from rounding to 1.
    static const T threshold = std::log(std::numeric_limits<T>::epsilon()) + T{2};
    if (x > -threshold) return x;
    if (x < threshold) return std::exp(x);
    return std::log1p(std::exp(x));
  }
};
struct SoftplusGradF : FloatTypes {
  static constexpr bool kHasAlpha = false;
  static constexpr int64_t kCost = 5;
  static constexpr const char* kSecond = "features";
  template <typename T>
  static T Apply(T g, T features, T) {
    return g / (std::exp(-features) + T{1});
  }
};

struct SoftsignF : FloatTypes {
  static constexpr bool kHasAlpha = false;
  static constexpr int64_t kCost = 2;
  template <typename T>
  static T Apply(T x, T) {
    return x / (std::abs(x) + T{1});
  }
};
struct SoftsignGradF : FloatTypes {
  static constexpr bool kHasAlpha = false;
  static constexpr int64_t kCost = 2;
  static constexpr const char* kSecond = "features";
  template <typename T>
  static T Apply(T g, T features, T) {
    const T d = std::abs(features) + T{1};
    return g / (d * d);
  }
};

template <typename F, typename G>
void RegisterPair(KernelRegistry& r, const std::string& op) {
  cwise::RegisterCwise<ActivationOp, F>(r, op.c_str());
  cwise::RegisterCwise<ActivationGradOp, G>(r, (op + "Grad").c_str());
}

}  // namespace

void RegisterActivationKernels(KernelRegistry& r) {
  RegisterPair<Relu6F, Relu6GradF>(r, "Relu6");
  RegisterPair<EluF, EluGradF>(r, "Elu");
  RegisterPair<SeluF, SeluGradF>(r, "Selu");
  RegisterPair<LeakyReluF, LeakyReluGradF>(r, "LeakyRelu");
  RegisterPair<SoftplusF, SoftplusGradF>(r, "Softplus");
  RegisterPair<SoftsignF, SoftsignGradF>(r, "Softsign");
}

}  // namespace tw
