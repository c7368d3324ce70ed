// SpaceToBatchND / BatchToSpaceND and the 4-D SpaceToBatch / BatchToSpace. On the batch side,
// batch row ob = offset * batch + n holds, at spatial position p, the space-side element
// (n, p * block + offset - pad_start) (offset taken row-major over the block); positions
// that fall in the padding are zeros (to batch) or cropped away (to space). Elements move as
// bytes in rows of the trailing (depth) dims.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/array_kernels.h"
#include "ops/array_ops_space_batch.h"

namespace tw {
namespace {

using array_kernels::IntValues;

template <bool kToBatch, bool kNd>
class SpaceBatchOp : public OpKernel {
 public:
  explicit SpaceBatchOp(OpKernelConstruction& c) : OpKernel(c) {
    if (!kNd) c.GetAttr("block_size", &block_size_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    DimVector block;
    if (kNd) {
      const Tensor& b = ctx.input(1);
      if (b.rank() != 1) return absl::InvalidArgumentError(absl::StrCat("block_shape rank should be 1 instead of ", b.rank()));
      block = IntValues(b);
    } else {
      if (block_size_ <= 1) return absl::InvalidArgumentError(absl::StrCat("Block size should be > 1: ", block_size_));
      if (x.rank() != 4) return absl::InvalidArgumentError(absl::StrCat("Input rank should be: 4 instead of: ", x.rank()));
      block = {block_size_, block_size_};
    }
    const int m = static_cast<int>(block.size());
    const Tensor& e = ctx.input(kNd ? 2 : 1);
    if (e.rank() != 2 || e.dim(0) != m || e.dim(1) != 2) {
      return absl::InvalidArgumentError(absl::StrCat(kToBatch ? "paddings" : "crops", " should have shape [", m,
                                                     ", 2] instead of ", e.shape().DebugString()));
    }
    const DimVector edges = IntValues(e);
    TW_ASSIGN_OR_RETURN(DimVector out_dims, array_util::SpaceBatchDims(kToBatch, x.shape().dims(), block, edges));
    TW_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(out_dims));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_shape, x.dtype()));
    const TensorShape& space = kToBatch ? x.shape() : out->shape();
    const TensorShape& batch_side = kToBatch ? out->shape() : x.shape();
    int64_t depth = static_cast<int64_t>(DTypeSize(x.dtype()));
    for (int d = 1 + m; d < x.rank(); ++d) depth *= x.dim(d);
    int64_t rows_per_batch = 1;  // batch-side rows (spatial positions) per batch entry
    for (int i = 0; i < m; ++i) rows_per_batch *= batch_side.dim(1 + i);
    const int64_t batch = space.dim(0);
    const char* src = static_cast<const char*>(x.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    if (depth == 0 || out->NumElements() == 0) return absl::OkStatus();
    // One unit of work: one batch-side row (ob, p).
    ctx.ParallelFor(batch_side.dim(0) * rows_per_batch, depth / 4 + 10, [&](int64_t begin, int64_t end) {
      DimVector offset(m), pos(m);
      for (int64_t row = begin; row < end; ++row) {
        const int64_t ob = row / rows_per_batch;
        int64_t rest = row % rows_per_batch, off = ob / batch;
        for (int i = m - 1; i >= 0; --i) {
          pos[i] = rest % batch_side.dim(1 + i), rest /= batch_side.dim(1 + i);
          offset[i] = off % block[i], off /= block[i];
        }
        int64_t space_row = ob % batch;
        bool inside = true;
        for (int i = 0; i < m && inside; ++i) {
          const int64_t s = pos[i] * block[i] + offset[i] - edges[2 * i];
          inside = s >= 0 && s < space.dim(1 + i);
          space_row = space_row * space.dim(1 + i) + s;
        }
        if (kToBatch) {
          if (inside) {
            std::memcpy(dst + row * depth, src + space_row * depth, depth);
          } else {
            std::memset(dst + row * depth, 0, depth);  // zero of every plain dtype
          }
        } else if (inside) {
          std::memcpy(dst + space_row * depth, src + row * depth, depth);
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  int64_t block_size_ = 2;
};

}  // namespace

void RegisterSpaceBatchKernels(KernelRegistry& r) {
  // TensorFlow's CPU kernels take the real number types (not bool, complex or strings).
  const std::vector<DType> types = {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64, DType::kUint8,
                                    DType::kInt16, DType::kInt8,   DType::kUint16, DType::kHalf};
  r.Register({"SpaceToBatchND", kDeviceCpu, Factory<SpaceBatchOp<true, true>>(), "T", types});
  r.Register({"BatchToSpaceND", kDeviceCpu, Factory<SpaceBatchOp<false, true>>(), "T", types});
  r.Register({"SpaceToBatch", kDeviceCpu, Factory<SpaceBatchOp<true, false>>(), "T", types});
  r.Register({"BatchToSpace", kDeviceCpu, Factory<SpaceBatchOp<false, false>>(), "T", types});
}

}  // namespace tw
