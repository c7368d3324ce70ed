// Pad and StridedSliceGrad kernels: a zero output with the input written into a strided
// window of it (the reverse of the strided views in array_kernels_slice.cc).
#include <cstring>

#include "kernels/cpu/array_kernels.h"
#include "ops/array_ops_pad.h"
#include "ops/array_ops_util.h"

namespace tw {
namespace {

using array_kernels::CheckVector;
using array_kernels::IntValues;
using array_kernels::RowMajorStrides;
using array_kernels::StridedWindow;
using array_kernels::ReadStridedSliceMasks;
using array_kernels::WindowOf;

// Writes the dense row-major `dims` block `src` into `dst`: element (i0, .., ik) goes to
// dst + offset + sum(i_j * strides[j]) elements. Distinct elements land apart, so rows
// can be written in parallel.
void Scatter(const OpKernelContext& ctx, size_t n, absl::Span<const int64_t> dims,
             absl::Span<const int64_t> strides, int64_t offset, const char* src, char* dst) {
  const int r = static_cast<int>(dims.size());
  dst += offset * static_cast<int64_t>(n);
  if (r == 0) {
    std::memcpy(dst, src, n);
    return;
  }
  const int64_t inner = dims[r - 1], inner_stride = strides[r - 1];
  int64_t rows = 1;
  for (int j = 0; j < r - 1; ++j) rows *= dims[j];
  const int64_t row_bytes = inner * static_cast<int64_t>(n);
  ctx.ParallelFor(rows, row_bytes / 2 + 20, [&](int64_t begin, int64_t end) {
    DimVector idx(r, 0);
    int64_t off = 0;
    int64_t rem = begin;
    for (int j = r - 2; j >= 0; --j) {
      idx[j] = rem % dims[j];
      rem /= dims[j];
      off += idx[j] * strides[j];
    }
    for (int64_t row = begin; row < end; ++row) {
      const char* s = src + row * row_bytes;
      char* d = dst + off * static_cast<int64_t>(n);
      if (inner_stride == 1) {
        std::memcpy(d, s, static_cast<size_t>(row_bytes));
      } else {
        for (int64_t i = 0; i < inner; ++i)
          std::memcpy(d + i * inner_stride * static_cast<int64_t>(n), s + i * n, n);
      }
      for (int j = r - 2; j >= 0; --j) {  // Odometer step to the next row.
        if (++idx[j] < dims[j]) {
          off += strides[j];
          break;
        }
        off -= strides[j] * (dims[j] - 1);
        idx[j] = 0;
      }
    }
  });
}

// A zeroed output 0 of `shape` with `in` scattered into the window (dims, strides,
// offset), all in elements of the output.
absl::Status ZerosWithWindow(OpKernelContext& ctx, const Tensor& in, const TensorShape& shape,
                             absl::Span<const int64_t> dims, absl::Span<const int64_t> strides,
                             int64_t offset) {
  TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, in.dtype()));
  const size_t n = DTypeSize(in.dtype());
  std::memset(out->raw_data(), 0, static_cast<size_t>(out->NumElements()) * n);
  if (in.NumElements() == 0) return absl::OkStatus();
  Scatter(ctx, n, dims, strides, offset, static_cast<const char*>(in.raw_data()),
          static_cast<char*>(out->raw_data()));
  return absl::OkStatus();
}

class PadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor& paddings = ctx.input(1);
    TW_RETURN_IF_ERROR(array_util::CheckPaddingsShape(in.shape(), paddings.shape()));
    TW_ASSIGN_OR_RETURN(DimVector dims,
                        array_util::PaddedDims(in.shape().dims(), IntValues(paddings)));
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    if (shape == in.shape()) {  // All paddings zero.
      ctx.set_output(0, in);
      return absl::OkStatus();
    }
    const DimVector strides = RowMajorStrides(dims);
    const DimVector pads = IntValues(paddings);
    int64_t offset = 0;
    for (int d = 0; d < in.rank(); ++d) offset += pads[2 * d] * strides[d];
    return ZerosWithWindow(ctx, in, shape, in.shape().dims(), strides, offset);
  }
};

class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction& c) : OpKernel(c), masks_(ReadStridedSliceMasks(c)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const char* names[] = {"shape", "begin", "end", "strides"};
    for (int i = 0; i <= 3; ++i) TW_RETURN_IF_ERROR(CheckVector(ctx.input(i), names[i]));
    const Tensor& dy = ctx.input(4);
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(IntValues(ctx.input(0))));
    const DimVector begin = IntValues(ctx.input(1)), end = IntValues(ctx.input(2));
    array_util::StridedSliceResult r;
    TW_RETURN_IF_ERROR(
        array_util::ValidateStridedSlice(shape, &begin, &end, IntValues(ctx.input(3)), masks_, &r));
    TW_RETURN_IF_ERROR(array_util::CheckSliceGradShape(dy.shape(), r.final_dims));
    if (r.is_identity) {
      TW_ASSIGN_OR_RETURN(Tensor out, dy.Reshaped(shape));
      ctx.set_output(0, std::move(out));
      return absl::OkStatus();
    }
    const StridedWindow w = WindowOf(r, shape.dims(), dy.NumElements() == 0);
    return ZerosWithWindow(ctx, dy, shape, r.processing_dims, w.strides, w.offset);
  }

 private:
  array_util::StridedSliceMasks masks_;
};

}  // namespace

void RegisterArrayPadKernels(KernelRegistry& r) {
  array_kernels::RegisterPod(r, "Pad", Factory<PadOp>());
  array_kernels::RegisterPod(r, "StridedSliceGrad", Factory<StridedSliceGradOp>());
}

}  // namespace tw
