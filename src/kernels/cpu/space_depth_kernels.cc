// SpaceToDepth and DepthToSpace on NHWC tensors: pixel (i*bs + di, j*bs + dj), channel k
// of the spatial side is channel (di*bs + dj)*C + k of pixel (i, j) on the depth side.
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"

namespace tw {
namespace {

template <typename T, bool kToDepth>
class SpaceDepthOp : public OpKernel {
 public:
  explicit SpaceDepthOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("block_size", &bs_);
    c.GetAttr("data_format", &format_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (format_ != "NHWC") {
      return absl::InvalidArgumentError(absl::StrCat("Only NHWC data_format is supported on the CPU, got ", format_));
    }
    if (bs_ < 2) return absl::InvalidArgumentError(absl::StrCat("Value for block_size must be > 1, got ", bs_));
    if (x.rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat("Input rank should be: 4 instead of: ", x.rank()));
    }
    const int64_t b = x.dim(0), h = x.dim(1), w = x.dim(2), c = x.dim(3);
    // The spatial side's [B, H, W, C] (sh, sw, sc) and the depth side's (h / bs, w / bs, c * bs * bs).
    int64_t sh, sw, sc;
    if (kToDepth) {
      if (h % bs_ != 0 || w % bs_ != 0) {
        return absl::InvalidArgumentError(absl::StrCat("Image width ", w, " and height ", h,
                                                       " should be divisible by block_size: ", bs_));
      }
      sh = h, sw = w, sc = c;
    } else {
      if (c % (bs_ * bs_) != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Input depth dimension ", c, " should be divisible by: ", bs_ * bs_));
      }
      sh = h * bs_, sw = w * bs_, sc = c / (bs_ * bs_);
    }
    const int64_t dh = sh / bs_, dw = sw / bs_, dc = sc * bs_ * bs_;
    const TensorShape out_shape = kToDepth ? TensorShape({b, dh, dw, dc}) : TensorShape({b, sh, sw, sc});
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_shape, x.dtype()));
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    for (int64_t n = 0; n < b; ++n) {
      for (int64_t i = 0; i < sh; ++i) {
        for (int64_t j = 0; j < sw; ++j) {
          const int64_t spatial = ((n * sh + i) * sw + j) * sc;
          const int64_t depth = ((n * dh + i / bs_) * dw + j / bs_) * dc + ((i % bs_) * bs_ + j % bs_) * sc;
          for (int64_t k = 0; k < sc; ++k) {
            if (kToDepth) {
              dst[depth + k] = src[spatial + k];
            } else {
              dst[spatial + k] = src[depth + k];
            }
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t bs_ = 2;
  std::string format_ = "NHWC";
};

template <typename T>
using SpaceToDepthOp = SpaceDepthOp<T, true>;
template <typename T>
using DepthToSpaceOp = SpaceDepthOp<T, false>;

}  // namespace

void RegisterSpaceDepthKernels(KernelRegistry& r) {
  const std::vector<DType> types = {DType::kBool, DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64};
  r.Register({"SpaceToDepth", kDeviceCpu, TypedFactory<SpaceToDepthOp, KernelTypes::kNumericAndBool>(), "T", types});
  r.Register({"DepthToSpace", kDeviceCpu, TypedFactory<DepthToSpaceOp, KernelTypes::kNumericAndBool>(), "T", types});
}

}  // namespace tw
