// Array kernels, part 2: strided views of one input copied out (Slice, StridedSlice,
// Transpose, Tile, BroadcastTo). Each builds (dims, strides, offset) over the input and
// hands it to StridedCopy; views that keep every element in order share the input.
#include "kernels/cpu/array_kernels.h"
#include "ops/array_ops_util.h"

namespace tw {
namespace {

using array_kernels::CheckVector;
using array_kernels::IntValues;
using array_kernels::RowMajorStrides;
using array_kernels::StridedWindow;
using array_kernels::ReadStridedSliceMasks;
using array_kernels::WindowOf;

// Writes the view of `in` (dims/strides in elements, starting `offset` elements in) into
// a new output 0 of `shape`, which has the view's element count.
absl::Status CopyView(OpKernelContext& ctx, const Tensor& in, const TensorShape& shape,
                      absl::Span<const int64_t> dims, absl::Span<const int64_t> strides,
                      int64_t offset) {
  TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, in.dtype()));
  if (out->NumElements() == 0) return absl::OkStatus();
  if (in.dtype() == DType::kString) {
    array_kernels::StridedCopyStrings(dims, strides, in.data<std::string>() + offset, out->data<std::string>());
    return absl::OkStatus();
  }
  const size_t size = DTypeSize(in.dtype());
  array_kernels::StridedCopy(ctx, size, dims, strides,
                             static_cast<const char*>(in.raw_data()) + offset * size,
                             out->raw_data());
  return absl::OkStatus();
}

class SliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor& begin_t = ctx.input(1);
    const Tensor& size_t_ = ctx.input(2);
    if (begin_t.rank() != 1 || size_t_.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected begin and size arguments to be 1-D tensors of size ", in.rank(),
          ", but got shapes ", begin_t.shape().DebugString(), " and ",
          size_t_.shape().DebugString(), " instead."));
    }
    const DimVector begin = IntValues(begin_t);
    TW_ASSIGN_OR_RETURN(DimVector sizes,
                        array_util::SliceSizes(in.shape().dims(), begin, IntValues(size_t_)));
    const TensorShape shape(sizes);
    if (shape == in.shape()) {  // Begins are all 0: the whole input.
      ctx.set_output(0, in);
      return absl::OkStatus();
    }
    const DimVector strides = RowMajorStrides(in.shape().dims());
    int64_t offset = 0;
    if (shape.num_elements() > 0)
      for (int i = 0; i < in.rank(); ++i) offset += begin[i] * strides[i];
    return CopyView(ctx, in, shape, sizes, strides, offset);
  }
};

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction& c) : OpKernel(c), masks_(ReadStridedSliceMasks(c)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor &b = ctx.input(1), &e = ctx.input(2), &s = ctx.input(3);
    if (b.rank() != 1 || e.rank() != 1 || s.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected begin, end, and strides to be 1-D tensors, but got shapes ",
          b.shape().DebugString(), ", ", e.shape().DebugString(), " and ",
          s.shape().DebugString()));
    }
    const DimVector begin = IntValues(b), end = IntValues(e);
    array_util::StridedSliceResult r;
    TW_RETURN_IF_ERROR(array_util::ValidateStridedSlice(in.shape(), &begin, &end, IntValues(s),
                                                        masks_, &r));
    const TensorShape shape(r.final_dims);
    if (r.is_identity) {  // Every element in order: only the shape changes.
      TW_ASSIGN_OR_RETURN(Tensor out, in.Reshaped(shape));
      ctx.set_output(0, std::move(out));
      return absl::OkStatus();
    }
    const StridedWindow w = WindowOf(r, in.shape().dims(), shape.num_elements() == 0);
    return CopyView(ctx, in, shape, r.processing_dims, w.strides, w.offset);
  }

 private:
  array_util::StridedSliceMasks masks_;
};

class TransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckVector(ctx.input(1), "perm"));
    const DimVector perm = IntValues(ctx.input(1));
    TW_RETURN_IF_ERROR(array_util::CheckPermutation(perm, in.rank()));
    const DimVector in_strides = RowMajorStrides(in.shape().dims());
    DimVector dims(in.rank()), strides(in.rank());
    bool in_order = true;  // Dims other than size 1 keep their order: a reshape.
    int last = -1;
    for (int i = 0; i < in.rank(); ++i) {
      dims[i] = in.dim(static_cast<int>(perm[i]));
      strides[i] = in_strides[perm[i]];
      if (dims[i] != 1) {
        in_order &= perm[i] > last;
        last = static_cast<int>(perm[i]);
      }
    }
    const TensorShape shape(dims);
    if (in_order) {
      TW_ASSIGN_OR_RETURN(Tensor out, in.Reshaped(shape));
      ctx.set_output(0, std::move(out));
      return absl::OkStatus();
    }
    return CopyView(ctx, in, shape, dims, strides, 0);
  }
};

class TileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckVector(ctx.input(1), "multiples"));
    const DimVector multiples = IntValues(ctx.input(1));
    TW_ASSIGN_OR_RETURN(DimVector out_dims, array_util::TiledDims(in.shape().dims(), multiples));
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(out_dims));
    if (shape == in.shape()) {
      ctx.set_output(0, in);
      return absl::OkStatus();
    }
    // Output dim i of size m * d is the row-major pair (m, d) reading the input (0, s).
    const DimVector in_strides = RowMajorStrides(in.shape().dims());
    DimVector dims, strides;
    for (int i = 0; i < in.rank(); ++i) {
      dims.insert(dims.end(), {multiples[i], in.dim(i)});
      strides.insert(strides.end(), {0, in_strides[i]});
    }
    return CopyView(ctx, in, shape, dims, strides, 0);
  }
};

class BroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckVector(ctx.input(1), "shape"));
    const DimVector target = IntValues(ctx.input(1));
    TW_RETURN_IF_ERROR(array_util::CheckBroadcastTo(in.shape(), target));
    const TensorShape shape(target);
    if (shape == in.shape()) {
      ctx.set_output(0, in);
      return absl::OkStatus();
    }
    const DimVector in_strides = RowMajorStrides(in.shape().dims());
    const int pad = shape.rank() - in.rank();
    DimVector strides(shape.rank(), 0);
    for (int i = pad; i < shape.rank(); ++i) {
      if (in.dim(i - pad) == shape.dim(i)) strides[i] = in_strides[i - pad];
    }
    return CopyView(ctx, in, shape, target, strides, 0);
  }
};

}  // namespace

void RegisterArraySliceKernels(KernelRegistry& r) {
  array_kernels::RegisterCopyable(r, "Slice", Factory<SliceOp>());
  array_kernels::RegisterCopyable(r, "StridedSlice", Factory<StridedSliceOp>());
  array_kernels::RegisterCopyable(r, "Transpose", Factory<TransposeOp>());
  array_kernels::RegisterCopyable(r, "Tile", Factory<TileOp>());
  array_kernels::RegisterCopyable(r, "BroadcastTo", Factory<BroadcastToOp>());
}

}  // namespace tw
