// RandomShuffle: a Fisher-Yates permutation of the rows drawn from the kernel's Philox
// stream; each run takes the next slice of the stream, so a seeded op gives the same
// sequence of shuffles in every fresh session, and seeds (0, 0) draw a fresh seed.
#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

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
class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction& c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c.GetAttr("seed", &seed);
    c.GetAttr("seed2", &seed2);
    if (seed == 0 && seed2 == 0) seed = static_cast<int64_t>(FreshSeed()), seed2 = static_cast<int64_t>(FreshSeed());
    gen_ = random::Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const int64_t rows = x.rank() == 0 ? 1 : x.dim(0);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    if (rows <= 1) {
      std::copy(src, src + x.NumElements(), dst);
      return absl::OkStatus();
    }
    random::Philox gen;
    {
      absl::MutexLock lock(&mu_);
      gen = gen_;
      gen_.Skip(static_cast<uint64_t>(rows));  // two words per row at most: within rows blocks
    }
    random::SingleSampler words(&gen);
    std::vector<int64_t> order(rows);
    for (int64_t i = 0; i < rows; ++i) order[i] = i;
    for (int64_t i = rows - 1; i > 0; --i) {
      const uint64_t r = (static_cast<uint64_t>(words()) << 32) | words();
      std::swap(order[i], order[static_cast<int64_t>(r % static_cast<uint64_t>(i + 1))]);
    }
    const int64_t row_size = x.NumElements() / rows;
    for (int64_t i = 0; i < rows; ++i) {
      std::copy(src + order[i] * row_size, src + (order[i] + 1) * row_size, dst + i * row_size);
    }
    return absl::OkStatus();
  }

 private:
  absl::Mutex mu_;
  random::Philox gen_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void RegisterRandomShuffleKernels(KernelRegistry& r) {
  r.Register({"RandomShuffle", kDeviceCpu, TypedFactory<RandomShuffleOp, KernelTypes::kNumericAndBool>(), "T",
              {DType::kBool, DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
}

}  // namespace tw
