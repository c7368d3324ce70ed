// The complex-number kernels: Complex (broadcasting real and imaginary parts together),
// Real, Imag, Angle, ComplexAbs and Conj. TensorFlow registers each for the matching pair
// only (float32 <-> complex64, float64 <-> complex128); so do we.
#include <cmath>
#include <complex>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/complex_factory.h"
#include "kernels/cpu/cwise.h"
#include "tensor/complex_dtype.h"

namespace tw {
namespace {

struct ComplexF : cwise::FloatTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  std::complex<T> operator()(T re, T im) const {
    return {re, im};
  }
};

// A kernel from complex C to its real type, element by element.
template <typename C, typename F>
class ComplexToRealOp : public OpKernel {
 public:
  using R = typename C::value_type;
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(x.shape()), DTypeOf<R>::value));
    const C* in = x.data<C>();
    R* o = out->data<R>();
    cwise::ParallelRange(ctx, x.NumElements(), F::kCost, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = F::Apply(in[i]);
    });
    return absl::OkStatus();
  }
};

struct RealF {
  static constexpr int64_t kCost = 1;
  template <typename C>
  static auto Apply(C x) { return x.real(); }
};
struct ImagF {
  static constexpr int64_t kCost = 1;
  template <typename C>
  static auto Apply(C x) { return x.imag(); }
};
struct AngleF {
  static constexpr int64_t kCost = 20;
  template <typename C>
  static auto Apply(C x) { return std::arg(x); }
};
// std::abs of a complex is hypot: no overflow for parts near the type's limit.
struct ComplexAbsF {
  static constexpr int64_t kCost = 10;
  template <typename C>
  static auto Apply(C x) { return std::abs(x); }
};

template <typename F>
struct ComplexToReal {
  template <typename C>
  using Op = ComplexToRealOp<C, F>;
};

// The Tout of a complex-to-real op must be the complex type's half.
template <typename F>
KernelFactory ComplexToRealFactory() {
  const KernelFactory make = ComplexTypedFactory<ComplexToReal<F>::template Op>();
  return [make](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    TW_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> k, make(c));
    TW_RETURN_IF_ERROR(CheckPair(c, "Tout", c.input_type(0), RealOf(c.input_type(0))));
    return k;
  };
}

template <typename C>
class ConjOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    // Read what is needed of the input first: forwarding may move it into the output.
    const Tensor& x = ctx.input(0);
    const C* in = x.data<C>();
    const int64_t n = x.NumElements();
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.forward_input_or_allocate_output(0, 0, TensorShape(x.shape()),
                                                                           DTypeOf<C>::value));
    C* o = out->data<C>();
    cwise::ParallelRange(ctx, n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = std::conj(in[i]);
    });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterComplexKernels(KernelRegistry& r) {
  const KernelFactory complex_factory = cwise::CwiseFactory<cwise::BinaryOp, ComplexF>("T");
  r.Register({"Complex", kDeviceCpu,
              [complex_factory](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
                DType t = DType::kInvalid;
                c.GetAttr("T", &t);
                if (!c.status().ok()) return c.status();
                TW_RETURN_IF_ERROR(CheckPair(c, "Tout", t, ComplexOf(t)));
                return complex_factory(c);
              },
              "T", {DType::kFloat, DType::kDouble}});
  r.Register({"Real", kDeviceCpu, ComplexToRealFactory<RealF>(), "T", ComplexTypes()});
  r.Register({"Imag", kDeviceCpu, ComplexToRealFactory<ImagF>(), "T", ComplexTypes()});
  r.Register({"Angle", kDeviceCpu, ComplexToRealFactory<AngleF>(), "T", ComplexTypes()});
  r.Register({"ComplexAbs", kDeviceCpu, ComplexToRealFactory<ComplexAbsF>(), "T", ComplexTypes()});
  r.Register({"Conj", kDeviceCpu, ComplexTypedFactory<ConjOp>(), "T", ComplexTypes()});
}

}  // namespace tw
