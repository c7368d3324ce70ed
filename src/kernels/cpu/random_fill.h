// The distributions and the parallel fill shared by the stateful and the stateless random
// kernels; both follow TensorFlow's random_distributions.h and FillPhiloxRandom.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_RANDOM_FILL_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_RANDOM_FILL_H_

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/philox.h"

namespace tw::random {

// Generator blocks reserved per output value (TensorFlow's kReservedSamplesPerOutput); keeps
// the slices of successive runs apart even for rejection sampling, which uses a variable
// number of blocks.
inline constexpr uint64_t kBlocksPerOutput = 256;

// Distributions: turn generator output into a group of kGroup values. Fixed ones use one
// Philox block per group; variable ones (rejection) read single words.
template <typename T>
struct UniformDist;
template <>
struct UniformDist<float> {
  static constexpr int kGroup = 4;
  static constexpr bool kVariable = false;
  void operator()(Philox& gen, float* out) const {
    const auto b = gen();
    for (int i = 0; i < 4; ++i) out[i] = random::Uint32ToFloat(b[i]);
  }
};
template <>
struct UniformDist<double> {
  static constexpr int kGroup = 2;
  static constexpr bool kVariable = false;
  void operator()(Philox& gen, double* out) const {
    const auto b = gen();
    out[0] = random::Uint64ToDouble(b[0], b[1]);
    out[1] = random::Uint64ToDouble(b[2], b[3]);
  }
};

template <typename T>
struct NormalDist;
template <>
struct NormalDist<float> {
  static constexpr int kGroup = 4;
  static constexpr bool kVariable = false;
  void operator()(Philox& gen, float* out) const {
    const auto b = gen();
    random::BoxMullerFloat(b[0], b[1], &out[0], &out[1]);
    random::BoxMullerFloat(b[2], b[3], &out[2], &out[3]);
  }
};
template <>
struct NormalDist<double> {
  static constexpr int kGroup = 2;
  static constexpr bool kVariable = false;
  void operator()(Philox& gen, double* out) const {
    const auto b = gen();
    random::BoxMullerDouble(b[0], b[1], b[2], b[3], &out[0], &out[1]);
  }
};

// Normals with |x| < 2 (the standard deviation is 1); others are drawn again.
template <typename T>
struct TruncatedNormalDist {
  static constexpr int kGroup = std::is_same_v<T, float> ? 4 : 2;
  static constexpr bool kVariable = true;
  void operator()(random::SingleSampler& words, T* out) const {
    int n = 0;
    while (true) {
      T pair[2];
      if constexpr (std::is_same_v<T, float>) {
        const uint32_t x0 = words(), x1 = words();
        random::BoxMullerFloat(x0, x1, &pair[0], &pair[1]);
      } else {
        const uint32_t x0 = words(), x1 = words(), x2 = words(), x3 = words();
        random::BoxMullerDouble(x0, x1, x2, x3, &pair[0], &pair[1]);
      }
      for (T v : pair) {
        if (std::abs(v) < T(2)) {
          out[n++] = v;
          if (n == kGroup) return;
        }
      }
    }
  }
};

// Integers in [lo, hi): lo + bits % (hi - lo), the range taken unsigned so it cannot
// overflow. As in TensorFlow, ranges that do not divide 2^32 (2^64) keep a slight bias.
template <typename T>
struct UniformIntDist {
  using U = std::make_unsigned_t<T>;
  static constexpr int kGroup = sizeof(T) == 4 ? 4 : 2;
  static constexpr bool kVariable = false;
  T lo;
  U range;
  void operator()(Philox& gen, T* out) const {
    const auto b = gen();
    for (int i = 0; i < kGroup; ++i) {
      U bits;
      if constexpr (sizeof(T) == 4) {
        bits = b[i];
      } else {
        bits = b[2 * i] | (static_cast<uint64_t>(b[2 * i + 1]) << 32);
      }
      // Unsigned wrap-around then conversion back is exact since the sum lies in [lo, hi).
      out[i] = static_cast<T>(static_cast<U>(lo) + bits % range);
    }
  }
};

// Fills data[0, n) from the slice starting at `base`: group g uses block g (fixed
// distributions) or the blocks from g * kGroup * 256 / 4 on (variable ones), so the
// result does not depend on how ParallelFor splits the groups.
template <typename T, typename Dist>
inline void Fill(OpKernelContext& ctx, const Philox& base, const Dist& dist, T* data, int64_t n,
          int64_t cost_per_group) {
  constexpr int kGroup = Dist::kGroup;
  const int64_t groups = (n + kGroup - 1) / kGroup;
  ctx.ParallelFor(groups, cost_per_group, [&](int64_t start, int64_t limit) {
    Philox gen = base;
    if (!Dist::kVariable) gen.Skip(static_cast<uint64_t>(start));
    T group[kGroup];
    for (int64_t g = start; g < limit; ++g) {
      if constexpr (Dist::kVariable) {
        gen = base;
        gen.Skip(static_cast<uint64_t>(g) * (kGroup * kBlocksPerOutput / 4));
        random::SingleSampler words(&gen);
        dist(words, group);
      } else {
        dist(gen, group);
      }
      const int64_t offset = g * kGroup;
      std::copy_n(group, std::min<int64_t>(kGroup, n - offset), data + offset);
    }
  });
}

// The "shape" input: a vector of int32 or int64 sizes, validated before any allocation.
inline absl::StatusOr<TensorShape> ShapeFromInput(const Tensor& t) {
  if (t.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape must be a vector, got a tensor of shape ", t.shape().DebugString()));
  }
  if (t.NumElements() > kMaxRank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape has ", t.NumElements(), " dimensions, more than the limit of ", kMaxRank));
  }
  std::vector<int64_t> dims;
  if (t.dtype() == DType::kInt32) {
    for (int32_t d : t.flat<int32_t>()) dims.push_back(d);
  } else if (t.dtype() == DType::kInt64) {
    for (int64_t d : t.flat<int64_t>()) dims.push_back(d);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("shape must be int32 or int64, got ", DTypeName(t.dtype())));
  }
  return TensorShape::Build(dims);
}

}  // namespace tw::random

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_RANDOM_FILL_H_
