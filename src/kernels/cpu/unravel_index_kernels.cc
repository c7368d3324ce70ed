// UnravelIndex: each flat index, checked against the product of dims, split into
// row-major coordinates; output [len(dims)] for a scalar, [len(dims), n] for a vector.
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"

namespace tw {
namespace {

template <typename T>
class UnravelIndexOp : public OpKernel {
 public:
  explicit UnravelIndexOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& idx = ctx.input(0);
    const Tensor& dims_t = ctx.input(1);
    if (dims_t.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("The dims input must be a vector, got shape ",
                                                     dims_t.shape().DebugString()));
    }
    if (idx.rank() > 1) {
      return absl::InvalidArgumentError(absl::StrCat("The indices input must be a scalar or a vector, got shape ",
                                                     idx.shape().DebugString()));
    }
    const int64_t k = dims_t.NumElements();
    std::vector<int64_t> dims(k);
    int64_t size = 1;
    for (int64_t d = 0; d < k; ++d) {
      dims[d] = static_cast<int64_t>(dims_t.data<T>()[d]);
      if (dims[d] <= 0) {
        return absl::InvalidArgumentError(absl::StrCat("Input dims must be positive, got ", dims[d], " at ", d));
      }
      size *= dims[d];
    }
    const int64_t n = idx.NumElements();
    const TensorShape out_shape = idx.rank() == 0 ? TensorShape({k}) : TensorShape({k, n});
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_shape, idx.dtype()));
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = static_cast<int64_t>(idx.data<T>()[i]);
      if (v < 0 || v >= size) {
        return absl::InvalidArgumentError(
            absl::StrCat("index ", v, " is out of bounds for array with size ", size));
      }
      for (int64_t d = k - 1; d >= 0; --d) {
        out->data<T>()[d * n + i] = static_cast<T>(v % dims[d]);
        v /= dims[d];
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterUnravelIndexKernels(KernelRegistry& r) {
  r.Register({"UnravelIndex", kDeviceCpu, TypedFactory<UnravelIndexOp>("Tidx"), "Tidx", {DType::kInt32, DType::kInt64}});
}

}  // namespace tw
