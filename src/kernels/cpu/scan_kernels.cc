// Cumsum and Cumprod. The tensor is seen as [outer, length, inner] around the scan axis;
// outer slices are independent and split over the intra-op pool. Each slice accumulates
// in the order of the axis, as TensorFlow's CPU scan, so float sums agree to the bit.
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/cwise.h"

namespace tw {
namespace {

struct SumF {
  template <typename T>
  static T Identity() { return T{0}; }
  template <typename T>
  static T Combine(T a, T b) { return cwise::WrapAdd(a, b); }
};
struct ProdF {
  template <typename T>
  static T Identity() { return T{1}; }
  template <typename T>
  static T Combine(T a, T b) { return cwise::WrapMul(a, b); }
};

template <typename T, typename F>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("exclusive", &exclusive_);
    c.GetAttr("reverse", &reverse_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& axis_t = ctx.input(1);
    if (axis_t.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("ScanOp: axis must be a scalar, not ", axis_t.shape().DebugString()));
    }
    int64_t axis = axis_t.dtype() == DType::kInt64 ? *axis_t.data<int64_t>() : *axis_t.data<int32_t>();
    const int rank = x.rank();
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("ScanOp: Expected scan axis in the range [", -rank, ", ",
                                                     rank, "), but got ", axis));
    }
    if (axis < 0) axis += rank;
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    if (x.NumElements() == 0) return absl::OkStatus();
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int d = axis + 1; d < rank; ++d) inner *= x.dim(d);
    const int64_t length = x.dim(axis);
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    cwise::ParallelRange(ctx, outer, length * inner * 2, [&](int64_t begin, int64_t end) {
      std::vector<T> acc(inner);
      for (int64_t o = begin; o < end; ++o) {
        std::fill(acc.begin(), acc.end(), F::template Identity<T>());
        for (int64_t step = 0; step < length; ++step) {
          const int64_t j = reverse_ ? length - 1 - step : step;
          const int64_t base = (o * length + j) * inner;
          for (int64_t i = 0; i < inner; ++i) {
            // From the identity, as TensorFlow: a leading -0 sums to +0.
            const T combined = F::Combine(acc[i], src[base + i]);
            dst[base + i] = exclusive_ ? acc[i] : combined;
            acc[i] = combined;
          }
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  bool exclusive_ = false, reverse_ = false;
};

template <typename T>
using CumsumOp = ScanOp<T, SumF>;
template <typename T>
using CumprodOp = ScanOp<T, ProdF>;

}  // namespace

void RegisterScanKernels(KernelRegistry& r) {
  const auto types = cwise::SupportedDTypes<cwise::NumericTypes>();
  r.Register({"Cumsum", kDeviceCpu, TypedFactory<CumsumOp>(), "T", types});
  r.Register({"Cumprod", kDeviceCpu, TypedFactory<CumprodOp>(), "T", types});
}

}  // namespace tw
