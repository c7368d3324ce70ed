// Candidate samplers with TensorFlow's semantics: num_sampled draws from the sampler's
// distribution over [0, range_max) (unique: redrawn until num_sampled distinct values, the
// number of tries counted); the expected count of a class is p * num_sampled without
// unique, else 1 - (1 - p)^tries, i.e. -expm1(tries * log1p(-p)). Log-uniform (Zipfian)
// draws floor(exp(u * log(range_max + 1))) - 1, P(k) = log((k + 2) / (k + 1)) / log(range_max + 1).
// Each kernel owns a Philox generator seeded from (seed, seed2), both 0 meaning a fresh
// seed; every run takes its own slice of the stream.
#include "kernels/cpu/candidate_sampler_kernels.h"

#include <chrono>
#include <cmath>
#include <random>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/cpu/philox.h"

namespace tw {
namespace {

using random::Philox;

// The words a run may use: far more than unique sampling needs unless the range is
// barely larger than num_sampled (then the stream continues into the next slice, which
// only costs independence between runs, not correctness).
constexpr uint64_t kBlocksPerSample = 512;

uint64_t FreshSeed() {
  std::random_device rd;
  const uint64_t clock = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return ((static_cast<uint64_t>(rd()) << 32) ^ rd()) ^ (clock * 0x9E3779B97F4A7C15ull);
}

class CandidateSamplerOp : public OpKernel {
 public:
  CandidateSamplerOp(OpKernelConstruction& c, bool log_uniform) : OpKernel(c), log_uniform_(log_uniform) {
    int64_t seed = 0, seed2 = 0;
    c.GetAttr("num_true", &num_true_);
    c.GetAttr("num_sampled", &num_sampled_);
    c.GetAttr("unique", &unique_);
    c.GetAttr("range_max", &range_);
    c.GetAttr("seed", &seed);
    c.GetAttr("seed2", &seed2);
    if (seed == 0 && seed2 == 0) seed = static_cast<int64_t>(FreshSeed()), seed2 = static_cast<int64_t>(FreshSeed());
    gen_ = Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
    log_range_ = std::log1p(static_cast<double>(range_));
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& true_classes = ctx.input(0);
    if (true_classes.rank() != 2) return absl::InvalidArgumentError("true_classes must be a matrix");
    if (true_classes.dim(1) != num_true_) {
      return absl::InvalidArgumentError(absl::StrCat("true_classes must have num_true columns, expected: ",
                                                     true_classes.dim(1), " was: ", num_true_));
    }
    if (unique_ && num_sampled_ > range_) return absl::InvalidArgumentError("Sampler's range is too small.");
    const int64_t batch = true_classes.dim(0);
    TW_ASSIGN_OR_RETURN(Tensor * sampled, ctx.allocate_output(0, TensorShape({num_sampled_}), DType::kInt64));
    TW_ASSIGN_OR_RETURN(Tensor * true_expected, ctx.allocate_output(1, TensorShape({batch, num_true_}), DType::kFloat));
    TW_ASSIGN_OR_RETURN(Tensor * sampled_expected, ctx.allocate_output(2, TensorShape({num_sampled_}), DType::kFloat));

    Philox slice;
    {
      absl::MutexLock lock(&mu_);
      slice = gen_;
      gen_.Skip(static_cast<uint64_t>(num_sampled_) * kBlocksPerSample);
    }
    random::SingleSampler words(&slice);
    int64_t* out = sampled->data<int64_t>();
    int64_t tries = 0;
    if (unique_) {
      std::unordered_set<int64_t> used;
      for (int64_t picked = 0; picked < num_sampled_;) {
        ++tries;
        const int64_t value = Sample(words);
        if (used.insert(value).second) out[picked++] = value;
      }
    } else {
      for (int64_t i = 0; i < num_sampled_; ++i) out[i] = Sample(words);
      tries = num_sampled_;
    }
    float* se = sampled_expected->data<float>();
    for (int64_t i = 0; i < num_sampled_; ++i) se[i] = ExpectedCount(Probability(out[i]), tries);
    const int64_t* classes = true_classes.data<int64_t>();
    float* te = true_expected->data<float>();
    for (int64_t i = 0; i < batch * num_true_; ++i) te[i] = ExpectedCount(Probability(classes[i]), tries);
    return absl::OkStatus();
  }

 private:
  int64_t Sample(random::SingleSampler& words) const {
    const uint32_t hi = words(), lo = words();
    if (log_uniform_) {
      const int64_t value = static_cast<int64_t>(std::exp(random::Uint64ToDouble(hi, lo) * log_range_)) - 1;
      return value % range_;
    }
    return static_cast<int64_t>(((static_cast<uint64_t>(hi) << 32) | lo) % static_cast<uint64_t>(range_));
  }
  // Classes outside the range (a true class may be anything) get a probability from the
  // same formula, as TensorFlow's.
  float Probability(int64_t value) const {
    if (log_uniform_) return static_cast<float>(std::log((value + 2.0) / (value + 1.0)) / log_range_);
    return static_cast<float>(1.0 / static_cast<double>(range_));
  }
  float ExpectedCount(float p, int64_t tries) const {
    if (tries == num_sampled_) return p * static_cast<float>(num_sampled_);
    return -std::expm1(static_cast<float>(tries) * std::log1p(-p));
  }

  const bool log_uniform_;
  int64_t num_true_ = 1, num_sampled_ = 1, range_ = 1;
  bool unique_ = false;
  double log_range_ = 0;
  absl::Mutex mu_;
  Philox gen_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void RegisterCandidateSamplerKernels(KernelRegistry& r) {
  r.Register("LogUniformCandidateSampler", kDeviceCpu,
             [](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
               auto k = std::make_unique<CandidateSamplerOp>(c, /*log_uniform=*/true);
               if (!c.status().ok()) return c.status();
               return k;
             });
  r.Register("UniformCandidateSampler", kDeviceCpu,
             [](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
               auto k = std::make_unique<CandidateSamplerOp>(c, /*log_uniform=*/false);
               if (!c.status().ok()) return c.status();
               return k;
             });
}

}  // namespace tw
