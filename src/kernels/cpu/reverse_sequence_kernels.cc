// ReverseSequence: each output element reads the input at the same coordinates but for the
// seq_dim one, mirrored within its batch entry's length.
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"

namespace tw {
namespace {

template <typename T>
class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("seq_dim", &seq_dim_);
    c.GetAttr("batch_dim", &batch_dim_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& lens_t = ctx.input(1);
    const int rank = x.rank();
    if (seq_dim_ == batch_dim_ || seq_dim_ < 0 || batch_dim_ < 0 || seq_dim_ >= rank || batch_dim_ >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid seq_dim ", seq_dim_, " and batch_dim ", batch_dim_,
                                                     " for input of rank ", rank));
    }
    if (lens_t.rank() != 1 || lens_t.dim(0) != x.dim(batch_dim_)) {
      return absl::InvalidArgumentError(absl::StrCat("Length of seq_lengths != input.dims(", batch_dim_, "), (",
                                                     lens_t.NumElements(), " vs. ", x.dim(batch_dim_), ")"));
    }
    std::vector<int64_t> lens(lens_t.NumElements());
    for (size_t b = 0; b < lens.size(); ++b) {
      lens[b] = lens_t.dtype() == DType::kInt64 ? lens_t.data<int64_t>()[b] : lens_t.data<int32_t>()[b];
      if (lens[b] < 0 || lens[b] > x.dim(seq_dim_)) {
        return absl::InvalidArgumentError(absl::StrCat("seq_lens(", b, ") = ", lens[b],
                                                       " is outside [0, input.dims(seq_dim) = ", x.dim(seq_dim_), "]"));
      }
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape(), x.dtype()));
    const int64_t total = x.NumElements();
    if (total == 0) return absl::OkStatus();
    std::vector<int64_t> stride(rank, 1), coord(rank, 0);
    for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * x.dim(d + 1);
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    for (int64_t i = 0; i < total; ++i) {
      const int64_t len = lens[coord[batch_dim_]];
      const int64_t s = coord[seq_dim_];
      dst[i] = s < len ? src[i + (len - 1 - 2 * s) * stride[seq_dim_]] : src[i];
      for (int d = rank - 1; d >= 0; --d) {
        if (++coord[d] < x.dim(d)) break;
        coord[d] = 0;
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t seq_dim_ = 0, batch_dim_ = 0;
};

}  // namespace

void RegisterReverseSequenceKernels(KernelRegistry& r) {
  r.Register({"ReverseSequence", kDeviceCpu, TypedFactory<ReverseSequenceOp, KernelTypes::kNumericAndBool>(), "T",
              {DType::kBool, DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
}

}  // namespace tw
