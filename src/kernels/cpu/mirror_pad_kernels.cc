// MirrorPad and MirrorPadGrad. Every padded position maps to one input position (a
// reflection about the edge, which is repeated in SYMMETRIC mode and not in REFLECT);
// MirrorPad copies from it, MirrorPadGrad adds into it.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"

namespace tw {
namespace {

// Checks paddings ([rank, 2], each within the mode's limit for the small side's dim) and
// returns them flat: [before0, after0, ...].
absl::StatusOr<std::vector<int64_t>> ReadPaddings(const Tensor& p, const TensorShape& small, bool reflect) {
  const int rank = small.rank();
  if (p.rank() != 2 || p.dim(0) != rank || p.dim(1) != 2) {
    return absl::InvalidArgumentError(absl::StrCat("The first dimension of paddings must be the rank of inputs",
                                                   " and the second 2: paddings ", p.shape().DebugString(),
                                                   ", input rank ", rank));
  }
  std::vector<int64_t> flat(2 * rank);
  for (int i = 0; i < 2 * rank; ++i) {
    flat[i] = p.dtype() == DType::kInt64 ? p.data<int64_t>()[i] : p.data<int32_t>()[i];
  }
  for (int d = 0; d < rank; ++d) {
    const int64_t limit = small.dim(d) - (reflect ? 1 : 0);
    for (int k = 0; k < 2; ++k) {
      if (flat[2 * d + k] < 0 || flat[2 * d + k] > limit) {
        return absl::InvalidArgumentError(absl::StrCat(
            "paddings must be non-negative and at most the dimension size", reflect ? " minus one (REFLECT)" : "",
            ": got ", flat[2 * d], ", ", flat[2 * d + 1], " for dim ", d, " of size ", small.dim(d)));
      }
    }
  }
  return flat;
}

// Calls fn(big_index, small_index) for every element of the padded (big) shape.
template <typename Fn>
void ForEachPadded(const TensorShape& small, const std::vector<int64_t>& pads, bool reflect, Fn fn) {
  const int rank = small.rank();
  std::vector<int64_t> big(rank), coord(rank, 0), stride(rank, 1);
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) {
    big[d] = small.dim(d) + pads[2 * d] + pads[2 * d + 1];
    total *= big[d];
  }
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * small.dim(d + 1);
  for (int64_t b = 0; b < total; ++b) {
    int64_t s = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t n = small.dim(d);
      int64_t i = coord[d] - pads[2 * d];
      if (i < 0) i = reflect ? -i : -i - 1;
      if (i >= n) i = reflect ? 2 * (n - 1) - i : 2 * n - 1 - i;
      s += i * stride[d];
    }
    fn(b, s);
    for (int d = rank - 1; d >= 0; --d) {  // next coordinate, last dim fastest
      if (++coord[d] < big[d]) break;
      coord[d] = 0;
    }
  }
}

absl::StatusOr<bool> ReflectMode(OpKernelConstruction& c) {
  std::string mode;
  c.GetAttr("mode", &mode);
  if (mode != "REFLECT" && mode != "SYMMETRIC") {
    return absl::InvalidArgumentError(absl::StrCat("mode must be REFLECT or SYMMETRIC, got '", mode, "'"));
  }
  return mode == "REFLECT";
}

template <typename T>
class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction& c) : OpKernel(c) {
    auto r = ReflectMode(c);
    reflect_ = r.ok() && *r;
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ReadPaddings(ctx.input(1), x.shape(), reflect_));
    std::vector<int64_t> dims(x.rank());
    for (int d = 0; d < x.rank(); ++d) dims[d] = x.dim(d) + pads[2 * d] + pads[2 * d + 1];
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(absl::Span<const int64_t>(dims)), x.dtype()));
    if (x.NumElements() == 0) return absl::OkStatus();
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    ForEachPadded(x.shape(), pads, reflect_, [&](int64_t b, int64_t s) { dst[b] = src[s]; });
    return absl::OkStatus();
  }

 private:
  bool reflect_ = true;
};

template <typename T>
class MirrorPadGradOp : public OpKernel {
 public:
  explicit MirrorPadGradOp(OpKernelConstruction& c) : OpKernel(c) {
    auto r = ReflectMode(c);
    reflect_ = r.ok() && *r;
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& g = ctx.input(0);
    const Tensor& p = ctx.input(1);
    if (p.rank() != 2 || p.dim(0) != g.rank() || p.dim(1) != 2) {
      return absl::InvalidArgumentError(absl::StrCat("paddings must be [", g.rank(), ", 2], got ",
                                                     p.shape().DebugString()));
    }
    std::vector<int64_t> dims(g.rank());
    for (int d = 0; d < g.rank(); ++d) {
      const int64_t before = p.dtype() == DType::kInt64 ? p.data<int64_t>()[2 * d] : p.data<int32_t>()[2 * d];
      const int64_t after = p.dtype() == DType::kInt64 ? p.data<int64_t>()[2 * d + 1] : p.data<int32_t>()[2 * d + 1];
      dims[d] = g.dim(d) - before - after;
      if (dims[d] < 0) {
        return absl::InvalidArgumentError(absl::StrCat("paddings ", before, ", ", after, " exceed dim ", d,
                                                       " of the gradient, of size ", g.dim(d)));
      }
    }
    const TensorShape small{absl::Span<const int64_t>(dims)};
    TW_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ReadPaddings(p, small, reflect_));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, small, g.dtype()));
    T* dst = out->data<T>();
    std::fill(dst, dst + out->NumElements(), T{0});
    if (out->NumElements() == 0) return absl::OkStatus();
    const T* src = g.data<T>();
    ForEachPadded(small, pads, reflect_, [&](int64_t b, int64_t s) { dst[s] += src[b]; });
    return absl::OkStatus();
  }

 private:
  bool reflect_ = true;
};

}  // namespace

void RegisterMirrorPadKernels(KernelRegistry& r) {
  r.Register({"MirrorPad", kDeviceCpu, TypedFactory<MirrorPadOp, KernelTypes::kNumericAndBool>(), "T",
              {DType::kBool, DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
  r.Register({"MirrorPadGrad", kDeviceCpu, TypedFactory<MirrorPadGradOp>(), "T",
              {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
}

}  // namespace tw
