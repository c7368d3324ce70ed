// ExtractImagePatches on NHWC images: output pixel (r, c) holds, for each window position
// (i, j), the depth values of input pixel (r*stride + i*rate - pad_top, c*stride + j*rate -
// pad_left), zeros where that falls in the padding. A pure copy, so one kernel moves the
// bytes of every dtype (zero bytes are zero in each of them); registered for the real number
// types, as TensorFlow's CPU kernel is (the schema also names complex and bool).
#include <cstring>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "ops/patches_geometry.h"

namespace tw {
namespace {

class ExtractImagePatchesOp : public OpKernel {
 public:
  explicit ExtractImagePatchesOp(OpKernelConstruction& c) : OpKernel(c) {
    auto a = patches::ReadPatchesAttrs(c.attrs());
    if (!a.ok()) {
      c.Fail(a.status());
    } else if (absl::Status entries = patches::CheckPatchesEntries(c.attrs()); !entries.ok()) {
      c.Fail(entries);
    } else {
      a_ = *a;
    }
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat("input must be 4-dimensional", x.shape().DebugString()));
    }
    const int64_t batch = x.dim(0), in_h = x.dim(1), in_w = x.dim(2), depth = x.dim(3);
    TW_ASSIGN_OR_RETURN(patches::PatchesDim rows,
                        patches::ComputePatchesDim(in_h, a_.k_h, a_.stride_h, a_.rate_h, a_.same));
    TW_ASSIGN_OR_RETURN(patches::PatchesDim cols,
                        patches::ComputePatchesDim(in_w, a_.k_w, a_.stride_w, a_.rate_w, a_.same));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({batch, rows.out, cols.out,
                                                                          a_.k_h * a_.k_w * depth}),
                                                          x.dtype()));
    const size_t pixel = static_cast<size_t>(depth) * DTypeSize(x.dtype());
    if (out->NumElements() == 0) return absl::OkStatus();
    const char* src = static_cast<const char*>(x.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t r = 0; r < rows.out; ++r) {
        for (int64_t c = 0; c < cols.out; ++c) {
          for (int64_t i = 0; i < a_.k_h; ++i) {
            const int64_t y = r * a_.stride_h + i * a_.rate_h - rows.pad_before;
            for (int64_t j = 0; j < a_.k_w; ++j, dst += pixel) {
              const int64_t x_at = c * a_.stride_w + j * a_.rate_w - cols.pad_before;
              if (y < 0 || y >= in_h || x_at < 0 || x_at >= in_w) {
                std::memset(dst, 0, pixel);
              } else {
                std::memcpy(dst, src + ((n * in_h + y) * in_w + x_at) * pixel, pixel);
              }
            }
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  patches::PatchesAttrs a_;
};

}  // namespace

void RegisterExtractPatchesKernels(KernelRegistry& r) {
  r.Register({"ExtractImagePatches", kDeviceCpu,
              [](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
                auto k = std::make_unique<ExtractImagePatchesOp>(c);
                if (!c.status().ok()) return c.status();
                return k;
              },
              "T",
              {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64, DType::kUint8, DType::kInt16,
               DType::kInt8, DType::kUint16, DType::kHalf}});
}

}  // namespace tw
