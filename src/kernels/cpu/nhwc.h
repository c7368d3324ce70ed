// 4-D image tensors in the convolution and pooling kernels: their dims, a rank check, and
// the NCHW <-> NHWC transposition that lets one NHWC implementation serve both formats.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_NHWC_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_NHWC_H_

#include <array>
#include <cstdint>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/op_kernel.h"
#include "tensorweave/status.h"
#include "tensorweave/tensor.h"

namespace tw::nhwc {

inline std::array<int64_t, 4> Dims(const Tensor& t) { return {t.dim(0), t.dim(1), t.dim(2), t.dim(3)}; }

inline absl::Status CheckRank4(const Tensor& t, const char* what) {
  if (t.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be 4-dimensional, got shape ", t.shape().DebugString()));
  }
  return absl::OkStatus();
}

// A 4-D tensor with its dims permuted (NCHW <-> NHWC); `to_nhwc` picks the direction.
template <typename T>
Tensor Transposed(const Tensor& t, bool to_nhwc) {
  const std::array<int64_t, 4> d = Dims(t);
  const std::array<int, 4> perm = to_nhwc ? std::array<int, 4>{0, 2, 3, 1} : std::array<int, 4>{0, 3, 1, 2};
  Tensor out(t.dtype(), TensorShape({d[perm[0]], d[perm[1]], d[perm[2]], d[perm[3]]}));
  const std::array<int64_t, 4> in_strides = {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
  const T* src = t.data<T>();
  T* dst = out.data<T>();
  const auto od = Dims(out);
  int64_t i = 0;
  for (int64_t a = 0; a < od[0]; ++a)
    for (int64_t b = 0; b < od[1]; ++b)
      for (int64_t c = 0; c < od[2]; ++c)
        for (int64_t e = 0; e < od[3]; ++e)
          dst[i++] = src[a * in_strides[perm[0]] + b * in_strides[perm[1]] + c * in_strides[perm[2]] +
                         e * in_strides[perm[3]]];
  return out;
}

// Output 0 of an image kernel: allocated in the data format (so the size limit applies
// before any work), with an NHWC tensor to compute into: the output itself, or for NCHW a
// scratch tensor that Finish transposes into it.
class Output {
 public:
  absl::Status Allocate(OpKernelContext& ctx, const std::array<int64_t, 4>& nhwc_dims, DType dtype, bool nchw) {
    nchw_ = nchw;
    const std::array<int64_t, 4> dims =
        nchw ? std::array<int64_t, 4>{nhwc_dims[0], nhwc_dims[3], nhwc_dims[1], nhwc_dims[2]} : nhwc_dims;
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(DimVector(dims.begin(), dims.end())));
    TW_ASSIGN_OR_RETURN(output_, ctx.allocate_output(0, shape, dtype));
    nhwc_ = nchw ? Tensor(dtype, TensorShape({nhwc_dims[0], nhwc_dims[1], nhwc_dims[2], nhwc_dims[3]})) : *output_;
    return absl::OkStatus();
  }
  Tensor& nhwc() { return nhwc_; }
  template <typename T>
  void Finish() {
    if (!nchw_) return;
    const Tensor ordered = Transposed<T>(nhwc_, false);
    std::memcpy(output_->raw_data(), ordered.raw_data(), ordered.TotalBytes());
  }

 private:
  bool nchw_ = false;
  Tensor* output_ = nullptr;
  Tensor nhwc_;
};

}  // namespace tw::nhwc

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_NHWC_H_
