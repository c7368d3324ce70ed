// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", 2011) and
// the bits-to-values transforms of the random kernels. Everything here is plain integer
// and IEEE arithmetic (plus the libm's log/sqrt/sin/cos for normals), so a seed gives the
// same numbers with any standard library. The state layout and the transforms follow
// TensorFlow's PhiloxRandom and random_distributions.h, so a seeded graph imported from
// TensorFlow draws the same uniform values.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_PHILOX_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_PHILOX_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace tw::random {

class Philox {
 public:
  using Counter = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;

  Philox() = default;
  // seed -> key, seed2 -> high half of the counter (TensorFlow's layout).
  Philox(uint64_t seed, uint64_t seed2) {
    key_ = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
    counter_ = {0, 0, static_cast<uint32_t>(seed2), static_cast<uint32_t>(seed2 >> 32)};
  }
  Philox(const Counter& counter, const Key& key) : counter_(counter), key_(key) {}

  // The block for the current counter; then advances the counter by one.
  Counter operator()() {
    Counter out = Block(counter_, key_);
    Skip(1);
    return out;
  }
  // Advances the 128-bit counter by `count` blocks.
  void Skip(uint64_t count) {
    const uint32_t lo = static_cast<uint32_t>(count);
    uint32_t hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi) {
      if (++counter_[2] == 0) ++counter_[3];
    }
  }

  // Ten rounds of Philox4x32 on one counter.
  static Counter Block(Counter c, Key k) {
    constexpr uint32_t kW0 = 0x9E3779B9, kW1 = 0xBB67AE85;
    constexpr uint64_t kM0 = 0xD2511F53, kM1 = 0xCD9E8D57;
    for (int round = 0; round < 10; ++round) {
      const uint64_t p0 = kM0 * c[0], p1 = kM1 * c[2];
      c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
           static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
      k[0] += kW0;
      k[1] += kW1;
    }
    return c;
  }

 private:
  Counter counter_{};
  Key key_{};
};

// 32 random bits as a uniform float in [0, 1): 23 of them fill the mantissa of a value
// in [1, 2), from which 1 is subtracted exactly.
inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (x & 0x7fffffu) | 0x3f800000u;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

// 64 random bits (x0 high, x1 low) as a uniform double in [0, 1), 52 mantissa bits.
inline double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t mantissa = (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | x1;
  const uint64_t bits = (uint64_t{1023} << 52) | mantissa;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

inline constexpr double kTwoPi = 6.283185307179586476925286766559;

// Box-Muller: two uniforms -> two independent standard normals, in float arithmetic as
// TensorFlow's BoxMullerFloat (logf, sqrtf, sincosf), so seeded normals match its bits.
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = Uint32ToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;  // Keeps log() finite.
  const float v1 = static_cast<float>(kTwoPi * Uint32ToFloat(x1));
  const float r = std::sqrt(-2.0f * std::log(u1));
  *f0 = std::sin(v1) * r;
  *f1 = std::cos(v1) * r;
}

inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0,
                            double* d1) {
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = kTwoPi * Uint64ToDouble(x2, x3);
  const double r = std::sqrt(-2.0 * std::log(u1));
  *d0 = std::sin(v1) * r;
  *d1 = std::cos(v1) * r;
}

// Hands out the 32-bit words of successive Philox blocks one at a time (for rejection
// sampling, which uses a variable number of words per output).
class SingleSampler {
 public:
  explicit SingleSampler(Philox* gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == 4) {
      block_ = (*gen_)();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  Philox* gen_;
  Philox::Counter block_{};
  int used_ = 4;
};

}  // namespace tw::random

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_PHILOX_H_
