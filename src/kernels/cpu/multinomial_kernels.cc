// Multinomial: per row, the softmax of the logits as a cumulative table (in double, after
// subtracting the row's max; -inf logits get probability 0), then a uniform draw per sample
// located in it by binary search. Each run takes the next slice of the kernel's Philox
// stream, so a seeded op repeats its sequence in every fresh session.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/philox.h"

namespace tw {
namespace {

uint64_t FreshSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
         static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
}

template <typename T>
class MultinomialOp : public OpKernel {
 public:
  explicit MultinomialOp(OpKernelConstruction& c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c.GetAttr("seed", &seed);
    c.GetAttr("seed2", &seed2);
    c.GetAttr("output_dtype", &out_type_);
    if (seed == 0 && seed2 == 0) seed = static_cast<int64_t>(FreshSeed()), seed2 = static_cast<int64_t>(FreshSeed());
    gen_ = random::Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& logits = ctx.input(0);
    const Tensor& n_t = ctx.input(1);
    if (logits.rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("logits should be a matrix, got shape ", logits.shape().DebugString()));
    }
    if (n_t.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("num_samples should be a scalar, got shape ", n_t.shape().DebugString()));
    }
    const int64_t samples = *n_t.data<int32_t>();
    if (samples < 0) return absl::InvalidArgumentError(absl::StrCat("num_samples should be non-negative, got ", samples));
    const int64_t batch = logits.dim(0), classes = logits.dim(1);
    if (classes <= 0) return absl::InvalidArgumentError(absl::StrCat("num_classes should be positive, got ", classes));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({batch, samples}), out_type_));
    random::Philox gen;
    {
      absl::MutexLock lock(&mu_);
      gen = gen_;
      gen_.Skip(static_cast<uint64_t>(batch * samples));  // two words per sample: within that many blocks
    }
    random::SingleSampler words(&gen);
    std::vector<double> cdf(classes);
    for (int64_t b = 0; b < batch; ++b) {
      const T* row = logits.data<T>() + b * classes;
      double max = -INFINITY;
      for (int64_t k = 0; k < classes; ++k) {
        if (std::isfinite(static_cast<double>(row[k]))) max = std::max(max, static_cast<double>(row[k]));
      }
      double total = 0;
      for (int64_t k = 0; k < classes; ++k) {
        const double v = static_cast<double>(row[k]);
        total += std::isfinite(v) ? std::exp(v - max) : 0.0;
        cdf[k] = total;
      }
      for (int64_t s = 0; s < samples; ++s) {
        // 53 random bits: uniform in [0, 1), scaled to the row's total mass.
        const uint64_t bits = ((static_cast<uint64_t>(words()) << 32) | words()) >> 11;
        const double u = static_cast<double>(bits) * 0x1.0p-53 * total;
        int64_t k = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
        k = std::min(k, classes - 1);
        if (out_type_ == DType::kInt64) {
          out->data<int64_t>()[b * samples + s] = k;
        } else {
          out->data<int32_t>()[b * samples + s] = static_cast<int32_t>(k);
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  DType out_type_ = DType::kInt64;
  absl::Mutex mu_;
  random::Philox gen_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void RegisterMultinomialKernels(KernelRegistry& r) {
  r.Register({"Multinomial", kDeviceCpu, TypedFactory<MultinomialOp, KernelTypes::kFloating>(), "T",
              {DType::kFloat, DType::kDouble}});
}

}  // namespace tw
