// RandomGamma (Marsaglia and Tsang's squeeze-and-reject method; alpha < 1 boosted to alpha + 1
// and scaled by U^(1/alpha); alpha == 1 an exponential) and RandomPoissonV2 (Knuth's product
// of uniforms below rate 10, Hoermann's transformed rejection PTRS above), on the kernel's
// Philox stream: a seeded op repeats its sequence in every fresh session. Samples are laid out
// shape ++ parameter shape (the parameter index fastest), as TensorFlow's. An invalid
// parameter (alpha <= 0, rate < 0, NaN) gives NaN (0 for integer Poisson samples).
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/cpu/array_kernels.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/philox.h"

namespace tw {
namespace {

uint64_t FreshSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
         static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
}

// Uniform doubles in [0, 1) and standard normals from one word stream.
class Draws {
 public:
  explicit Draws(random::Philox* gen) : words_(gen) {}
  double Uniform() {
    const uint64_t bits = ((static_cast<uint64_t>(words_()) << 32) | words_()) >> 11;
    return static_cast<double>(bits) * 0x1.0p-53;
  }
  double Normal() {  // Box-Muller, one of the pair
    const double u1 = std::max(Uniform(), 1e-300), u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  random::SingleSampler words_;
};

double SampleGamma(double alpha, Draws& d) {
  if (!(alpha > 0) || std::isinf(alpha)) return std::numeric_limits<double>::quiet_NaN();
  if (alpha == 1.0) return -std::log1p(-d.Uniform());
  const double a = alpha < 1 ? alpha + 1 : alpha;
  const double dd = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * dd);
  double sample;
  while (true) {
    const double x = d.Normal();
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = d.Uniform();
    if (u < 1 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + dd * (1 - v + std::log(v))) {
      sample = dd * v;
      break;
    }
  }
  if (alpha < 1) sample *= std::pow(d.Uniform(), 1.0 / alpha);
  return sample;
}

double SamplePoisson(double rate, Draws& d) {
  if (!(rate >= 0) || std::isinf(rate)) return std::numeric_limits<double>::quiet_NaN();
  if (rate < 10) {
    const double limit = std::exp(-rate);
    double prod = 1;
    int64_t k = -1;
    do {
      ++k;
      prod *= d.Uniform();
    } while (prod > limit);
    return static_cast<double>(k);
  }
  const double log_rate = std::log(rate), b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b, inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  while (true) {
    const double u = d.Uniform() - 0.5, v = d.Uniform(), us = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / us + b) * u + rate + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <= -rate + k * log_rate - std::lgamma(k + 1)) {
      return k;
    }
  }
}

std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> out(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (t.dtype()) {
      case DType::kFloat: out[i] = t.data<float>()[i]; break;
      case DType::kDouble: out[i] = t.data<double>()[i]; break;
      case DType::kInt32: out[i] = t.data<int32_t>()[i]; break;
      default: out[i] = static_cast<double>(t.data<int64_t>()[i]); break;
    }
  }
  return out;
}

void Store(Tensor* out, int64_t i, double v) {
  switch (out->dtype()) {
    case DType::kFloat: out->data<float>()[i] = static_cast<float>(v); break;
    case DType::kDouble: out->data<double>()[i] = v; break;
    case DType::kInt32: out->data<int32_t>()[i] = std::isnan(v) ? 0 : static_cast<int32_t>(v); break;
    default: out->data<int64_t>()[i] = std::isnan(v) ? 0 : static_cast<int64_t>(v); break;
  }
}

class RandomParamSampleOp : public OpKernel {
 public:
  RandomParamSampleOp(OpKernelConstruction& c, double (*sample)(double, Draws&)) : OpKernel(c), sample_(sample) {
    int64_t seed = 0, seed2 = 0;
    c.GetAttr("seed", &seed);
    c.GetAttr("seed2", &seed2);
    out_type_ = c.output_type(0);
    if (seed == 0 && seed2 == 0) seed = static_cast<int64_t>(FreshSeed()), seed2 = static_cast<int64_t>(FreshSeed());
    gen_ = random::Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& shape_t = ctx.input(0);
    if (shape_t.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape must be a vector of {int32,int64}, got shape ", shape_t.shape().DebugString()));
    }
    DimVector dims = array_kernels::IntValues(shape_t);
    TW_ASSIGN_OR_RETURN(TensorShape sample_shape, TensorShape::Build(dims));
    const int64_t samples_per = sample_shape.num_elements();
    const Tensor& param = ctx.input(1);
    dims.insert(dims.end(), param.shape().dims().begin(), param.shape().dims().end());
    TW_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_shape, out_type_));
    const std::vector<double> params = AsDoubles(param);
    const int64_t n = static_cast<int64_t>(params.size());
    absl::MutexLock lock(&mu_);  // draws in order from the op's one stream
    Draws draws(&gen_);
    for (int64_t s = 0; s < samples_per; ++s) {
      for (int64_t p = 0; p < n; ++p) Store(out, s * n + p, sample_(params[p], draws));
    }
    return absl::OkStatus();
  }

 private:
  double (*sample_)(double, Draws&);
  DType out_type_ = DType::kInvalid;
  absl::Mutex mu_;
  random::Philox gen_ ABSL_GUARDED_BY(mu_);
};

class RandomGammaOp : public RandomParamSampleOp {
 public:
  explicit RandomGammaOp(OpKernelConstruction& c) : RandomParamSampleOp(c, SampleGamma) {}
};

class RandomPoissonOp : public RandomParamSampleOp {
 public:
  explicit RandomPoissonOp(OpKernelConstruction& c) : RandomParamSampleOp(c, SamplePoisson) {}
};

}  // namespace

void RegisterRandomGammaKernels(KernelRegistry& r) {
  r.Register({"RandomGamma", kDeviceCpu, Factory<RandomGammaOp>(), "T", {DType::kFloat, DType::kDouble}});
  r.Register({"RandomPoissonV2", kDeviceCpu, Factory<RandomPoissonOp>(), "dtype",
              {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
}

}  // namespace tw
