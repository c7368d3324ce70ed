// Kernels of the stateful random ops. Each kernel owns a Philox generator; a run reserves
// a slice of its counter space (256 blocks per output value, as TensorFlow does) and fills
// the output from that slice, in parallel groups whose values do not depend on the split.
// The session keeps stateful kernels across runs, so successive runs continue the stream.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <type_traits>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "kernels/cpu/candidate_sampler_kernels.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/philox.h"
#include "kernels/cpu/random_fill.h"
#include "kernels/cpu/stateless_random_kernels.h"

namespace tw {
namespace {

using random::Philox;
using random::Fill;
using random::kBlocksPerOutput;
using random::NormalDist;
using random::ShapeFromInput;
using random::TruncatedNormalDist;
using random::UniformDist;
using random::UniformIntDist;

// The generator of one kernel, shared by concurrent steps.
class GuardedPhilox {
 public:
  // Both seeds 0: a fresh non-deterministic seed; otherwise the stream is a function of
  // (seed, seed2).
  void Init(int64_t seed, int64_t seed2) {
    if (seed == 0 && seed2 == 0) {
      seed = static_cast<int64_t>(NonDeterministicSeed());
      seed2 = static_cast<int64_t>(NonDeterministicSeed());
    }
    absl::MutexLock lock(&mu_);
    gen_ = Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  }
  // The generator positioned at the start of a slice for `outputs` values.
  Philox Reserve(int64_t outputs) {
    absl::MutexLock lock(&mu_);
    Philox slice = gen_;
    gen_.Skip(static_cast<uint64_t>(outputs) * kBlocksPerOutput);
    return slice;
  }

 private:
  static uint64_t NonDeterministicSeed() {
    uint64_t s =
        static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
    try {
      std::random_device rd;
      s ^= (static_cast<uint64_t>(rd()) << 32) ^ rd();
    } catch (...) {
      // No entropy device: the clock (mixed below) still varies between kernels.
    }
    static std::atomic<uint64_t> counter{0};
    s += 0x9E3779B97F4A7C15ull * (counter.fetch_add(1) + 1);
    // SplitMix64 finalizer spreads the bits.
    s = (s ^ (s >> 30)) * 0xBF58476D1CE4E5B9ull;
    s = (s ^ (s >> 27)) * 0x94D049BB133111EBull;
    return s ^ (s >> 31);
  }

  absl::Mutex mu_;
  Philox gen_ ABSL_GUARDED_BY(mu_);
};

class RandomOpBase : public OpKernel {
 public:
  explicit RandomOpBase(OpKernelConstruction& c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c.GetAttr("seed", &seed);
    c.GetAttr("seed2", &seed2);
    generator_.Init(seed, seed2);
  }

 protected:
  GuardedPhilox generator_;
};

// RandomUniform, RandomStandardNormal and TruncatedNormal: Dist<T> fills the output.
template <template <typename> class Dist, typename T>
class PhiloxRandomOp : public RandomOpBase {
 public:
  PhiloxRandomOp(OpKernelConstruction& c, int64_t cost_per_group)
      : RandomOpBase(c), cost_per_group_(cost_per_group) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromInput(ctx.input(0)));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, DTypeOf<T>::value));
    const int64_t n = out->NumElements();
    if (n == 0) return absl::OkStatus();
    Fill(ctx, generator_.Reserve(n), Dist<T>(), out->data<T>(), n, cost_per_group_);
    return absl::OkStatus();
  }

 private:
  const int64_t cost_per_group_;
};

template <template <typename> class Dist>
KernelFactory FloatRandomFactory(int64_t cost_per_group) {
  return [cost_per_group](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DType dtype = DType::kInvalid;
    c.GetAttr("dtype", &dtype);
    if (!c.status().ok()) return c.status();
    std::unique_ptr<OpKernel> k;
    if (dtype == DType::kFloat) {
      k = std::make_unique<PhiloxRandomOp<Dist, float>>(c, cost_per_group);
    } else if (dtype == DType::kDouble) {
      k = std::make_unique<PhiloxRandomOp<Dist, double>>(c, cost_per_group);
    } else {
      return absl::UnimplementedError(
          absl::StrCat("no ", c.op(), " kernel for ", DTypeName(dtype)));
    }
    if (!c.status().ok()) return c.status();
    return k;
  };
}

template <typename T>
class RandomUniformIntOp : public RandomOpBase {
 public:
  using RandomOpBase::RandomOpBase;

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromInput(ctx.input(0)));
    const Tensor& minval = ctx.input(1);
    const Tensor& maxval = ctx.input(2);
    if (minval.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("minval must be a scalar, got shape ", minval.shape().DebugString()));
    }
    if (maxval.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("maxval must be a scalar, got shape ", maxval.shape().DebugString()));
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, DTypeOf<T>::value));
    const int64_t n = out->NumElements();
    if (n == 0) return absl::OkStatus();  // An empty range is fine for no values.
    const T lo = minval.scalar<T>(), hi = maxval.scalar<T>();
    if (lo >= hi) {
      return absl::InvalidArgumentError(
          absl::StrCat("need minval < maxval, got minval ", lo, " >= maxval ", hi));
    }
    using U = std::make_unsigned_t<T>;
    UniformIntDist<T> dist{lo, static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo))};
    Fill(ctx, generator_.Reserve(n), dist, out->data<T>(), n, /*cost_per_group=*/30);
    return absl::OkStatus();
  }
};

absl::StatusOr<std::unique_ptr<OpKernel>> MakeRandomUniformInt(OpKernelConstruction& c) {
  DType dtype = DType::kInvalid;
  c.GetAttr("Tout", &dtype);
  if (!c.status().ok()) return c.status();
  std::unique_ptr<OpKernel> k;
  if (dtype == DType::kInt32) {
    k = std::make_unique<RandomUniformIntOp<int32_t>>(c);
  } else if (dtype == DType::kInt64) {
    k = std::make_unique<RandomUniformIntOp<int64_t>>(c);
  } else {
    return absl::UnimplementedError(
        absl::StrCat("no RandomUniformInt kernel for ", DTypeName(dtype)));
  }
  if (!c.status().ok()) return c.status();
  return k;
}

}  // namespace

void RegisterRandomKernels(KernelRegistry& r) {
  // Costs are rough nanoseconds per group of 2-4 values.
  r.Register("RandomUniform", kDeviceCpu, FloatRandomFactory<UniformDist>(30));
  r.Register("RandomStandardNormal", kDeviceCpu, FloatRandomFactory<NormalDist>(120));
  r.Register("TruncatedNormal", kDeviceCpu, FloatRandomFactory<TruncatedNormalDist>(200));
  r.Register("RandomUniformInt", kDeviceCpu, MakeRandomUniformInt);
  RegisterCandidateSamplerKernels(r);
  RegisterStatelessRandomKernels(r);
}

}  // namespace tw
