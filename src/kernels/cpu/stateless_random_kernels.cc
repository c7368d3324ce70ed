// Kernels of TensorFlow's stateless random ops: the output is a function of the shape and
// the seed input alone. The seed is scrambled into a Philox key and counter as TensorFlow's
// GenerateKey does, then filled by the stateful kernels' distributions, so the values are
// TensorFlow's bit for bit.
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/philox.h"
#include "kernels/cpu/random_fill.h"
#include "kernels/cpu/stateless_random_kernels.h"

namespace tw {
namespace {

using random::Philox;

// TensorFlow's GenerateKey: the seed pair, hashed with one Philox block under a fixed key,
// gives the key and the high half of the counter.
absl::StatusOr<Philox> GeneratorFromSeed(const Tensor& seed) {
  if (seed.rank() != 1 || seed.dim(0) != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("seed must have shape [2], not ", seed.shape().DebugString()));
  }
  uint64_t s0, s1;
  if (seed.dtype() == DType::kInt32) {
    // Sign-extended, as TensorFlow's int32 -> uint64 conversion.
    s0 = static_cast<uint64_t>(static_cast<int64_t>(seed.flat<int32_t>()[0]));
    s1 = static_cast<uint64_t>(static_cast<int64_t>(seed.flat<int32_t>()[1]));
  } else {
    s0 = static_cast<uint64_t>(seed.flat<int64_t>()[0]);
    s1 = static_cast<uint64_t>(seed.flat<int64_t>()[1]);
  }
  const Philox::Counter mix = Philox::Block(
      {static_cast<uint32_t>(s0), static_cast<uint32_t>(s0 >> 32), static_cast<uint32_t>(s1),
       static_cast<uint32_t>(s1 >> 32)},
      {0x3ec8f720u, 0x02461e29u});
  return Philox({0, 0, mix[2], mix[3]}, {mix[0], mix[1]});
}

// StatelessRandomUniform, StatelessRandomNormal, StatelessTruncatedNormal and
// StatelessRandomUniformFullInt: Dist<T> fills the output.
template <template <typename> class Dist, typename T>
class StatelessDistOp : public OpKernel {
 public:
  StatelessDistOp(OpKernelConstruction& c, int64_t cost_per_group)
      : OpKernel(c), cost_per_group_(cost_per_group) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(TensorShape shape, random::ShapeFromInput(ctx.input(0)));
    TW_ASSIGN_OR_RETURN(Philox gen, GeneratorFromSeed(ctx.input(1)));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, DTypeOf<T>::value));
    const int64_t n = out->NumElements();
    if (n > 0) random::Fill(ctx, gen, Dist<T>(), out->data<T>(), n, cost_per_group_);
    return absl::OkStatus();
  }

 private:
  const int64_t cost_per_group_;
};

template <template <typename> class Dist>
KernelFactory StatelessFloatFactory(int64_t cost_per_group) {
  return [cost_per_group](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DType dtype = DType::kInvalid;
    c.GetAttr("dtype", &dtype);
    if (!c.status().ok()) return c.status();
    if (dtype == DType::kFloat) return std::make_unique<StatelessDistOp<Dist, float>>(c, cost_per_group);
    if (dtype == DType::kDouble) return std::make_unique<StatelessDistOp<Dist, double>>(c, cost_per_group);
    return absl::UnimplementedError(absl::StrCat("no ", c.op(), " kernel for ", DTypeName(dtype)));
  };
}

// StatelessRandomUniformInt: minval + bits % (maxval - minval), as TensorFlow.
template <typename T>
class StatelessUniformIntOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(TensorShape shape, random::ShapeFromInput(ctx.input(0)));
    TW_ASSIGN_OR_RETURN(Philox gen, GeneratorFromSeed(ctx.input(1)));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, DTypeOf<T>::value));
    const int64_t n = out->NumElements();
    if (n == 0) return absl::OkStatus();  // Zero draws from an empty range are fine.
    const Tensor& minval = ctx.input(2);
    const Tensor& maxval = ctx.input(3);
    if (minval.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("minval must be 0-D, got shape ", minval.shape().DebugString()));
    }
    if (maxval.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("maxval must be 0-D, got shape ", maxval.shape().DebugString()));
    }
    const T lo = minval.scalar<T>(), hi = maxval.scalar<T>();
    if (lo >= hi) return absl::InvalidArgumentError(absl::StrCat("Need minval < maxval, got ", lo, " >= ", hi));
    using U = std::make_unsigned_t<T>;
    random::UniformIntDist<T> dist{lo, static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo))};
    random::Fill(ctx, gen, dist, out->data<T>(), n, /*cost_per_group=*/30);
    return absl::OkStatus();
  }
};

// Integers over their whole range: 32 bits per int32, two words (low first) per int64.
template <typename T>
struct FullIntDist {
  static constexpr int kGroup = sizeof(T) == 4 ? 4 : 2;
  static constexpr bool kVariable = false;
  void operator()(Philox& gen, T* out) const {
    const auto b = gen();
    for (int i = 0; i < kGroup; ++i) {
      if constexpr (sizeof(T) == 4) {
        out[i] = static_cast<T>(b[i]);
      } else {
        out[i] = static_cast<T>(b[2 * i] | (static_cast<uint64_t>(b[2 * i + 1]) << 32));
      }
    }
  }
};

absl::StatusOr<std::unique_ptr<OpKernel>> MakeStatelessFullInt(OpKernelConstruction& c) {
  DType dtype = DType::kInvalid;
  c.GetAttr("dtype", &dtype);
  if (!c.status().ok()) return c.status();
  if (dtype == DType::kInt32) return std::make_unique<StatelessDistOp<FullIntDist, int32_t>>(c, 30);
  if (dtype == DType::kInt64) return std::make_unique<StatelessDistOp<FullIntDist, int64_t>>(c, 30);
  return absl::UnimplementedError(absl::StrCat("no StatelessRandomUniformFullInt kernel for ", DTypeName(dtype)));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeStatelessUniformInt(OpKernelConstruction& c) {
  DType dtype = DType::kInvalid;
  c.GetAttr("dtype", &dtype);
  if (!c.status().ok()) return c.status();
  if (dtype == DType::kInt32) return std::make_unique<StatelessUniformIntOp<int32_t>>(c);
  if (dtype == DType::kInt64) return std::make_unique<StatelessUniformIntOp<int64_t>>(c);
  return absl::UnimplementedError(absl::StrCat("no StatelessRandomUniformInt kernel for ", DTypeName(dtype)));
}

}  // namespace

void RegisterStatelessRandomKernels(KernelRegistry& r) {
  // Costs are rough nanoseconds per group of 2-4 values.
  r.Register("StatelessRandomUniform", kDeviceCpu, StatelessFloatFactory<random::UniformDist>(30));
  r.Register("StatelessRandomNormal", kDeviceCpu, StatelessFloatFactory<random::NormalDist>(120));
  r.Register("StatelessTruncatedNormal", kDeviceCpu, StatelessFloatFactory<random::TruncatedNormalDist>(200));
  r.Register("StatelessRandomUniformInt", kDeviceCpu, MakeStatelessUniformInt);
  r.Register("StatelessRandomUniformFullInt", kDeviceCpu, MakeStatelessFullInt);
}

}  // namespace tw
