// Array kernels, part 1: shape queries, zero-copy reshapes and broadcasting helpers.
// Registration of every array kernel starts here (RegisterArrayKernels).
#include <limits>

#include "kernels/cpu/array_kernels.h"
#include "kernels/cpu/cpu_kernels.h"
#include "ops/array_ops_util.h"

namespace tw {
namespace {

using array_kernels::CheckVector;
using array_kernels::IntValues;

// Writes `values` into a new output of dtype int32 or int64; int32 overflow is an error.
absl::Status OutputInts(OpKernelContext& ctx, int i, DType dtype, const TensorShape& shape,
                        absl::Span<const int64_t> values, const char* what) {
  TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(i, shape, dtype));
  for (size_t k = 0; k < values.size(); ++k) {
    if (dtype == DType::kInt64) {
      out->data<int64_t>()[k] = values[k];
    } else if (values[k] > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(absl::StrCat(what, " ", values[k],
                                                     " does not fit the 32-bit output type"));
    } else {
      out->data<int32_t>()[k] = static_cast<int32_t>(values[k]);
    }
  }
  return absl::OkStatus();
}

// Metadata-only kernels run inline: they never touch the elements.
class CheapKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }
};

class ShapeOp : public CheapKernel {
 public:
  explicit ShapeOp(OpKernelConstruction& c) : CheapKernel(c), out_type_(c.output_type(0)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const TensorShape& s = ctx.input(0).shape();
    return OutputInts(ctx, 0, out_type_, TensorShape({s.rank()}), s.dims(), "dimension");
  }

 private:
  DType out_type_;
};

class SizeOp : public CheapKernel {
 public:
  explicit SizeOp(OpKernelConstruction& c) : CheapKernel(c), out_type_(c.output_type(0)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const int64_t n = ctx.input(0).NumElements();
    return OutputInts(ctx, 0, out_type_, TensorShape(), {n}, "number of elements");
  }

 private:
  DType out_type_;
};

class RankOp : public CheapKernel {
 public:
  using CheapKernel::CheapKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, Tensor::Scalar<int32_t>(ctx.input(0).rank()));
    return absl::OkStatus();
  }
};

class ReshapeOp : public CheapKernel {
 public:
  using CheapKernel::CheapKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor& sizes = ctx.input(1);
    if (sizes.rank() > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("sizes input must be 1-D, not ", sizes.shape().DebugString()));
    }
    TW_ASSIGN_OR_RETURN(DimVector dims, array_util::ReshapeDims(in.shape(), IntValues(sizes)));
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    TW_ASSIGN_OR_RETURN(Tensor out, in.Reshaped(shape));  // Shares the input's buffer.
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }
};

class SqueezeOp : public CheapKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction& c) : CheapKernel(c) {
    c.GetAttr("squeeze_dims", &squeeze_dims_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_ASSIGN_OR_RETURN(PartialShape out, array_util::SqueezeShape(in.shape(), squeeze_dims_));
    TW_ASSIGN_OR_RETURN(TensorShape shape, out.ToTensorShape());
    TW_ASSIGN_OR_RETURN(Tensor t, in.Reshaped(shape));
    ctx.set_output(0, std::move(t));
    return absl::OkStatus();
  }

 private:
  std::vector<int64_t> squeeze_dims_;
};

class ExpandDimsOp : public CheapKernel {
 public:
  using CheapKernel::CheapKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor& dim = ctx.input(1);
    if (dim.NumElements() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'dim' must be a tensor with a single value, got shape ", dim.shape().DebugString()));
    }
    TW_ASSIGN_OR_RETURN(int index, array_util::ExpandDimsIndex(IntValues(dim)[0], in.rank()));
    TensorShape shape = in.shape();
    shape.InsertDim(index, 1);
    TW_ASSIGN_OR_RETURN(Tensor t, in.Reshaped(shape));
    ctx.set_output(0, std::move(t));
    return absl::OkStatus();
  }
};

class BroadcastGradientArgsOp : public CheapKernel {
 public:
  using CheapKernel::CheapKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(CheckVector(ctx.input(0), "s0"));
    TW_RETURN_IF_ERROR(CheckVector(ctx.input(1), "s1"));
    DimVector r0, r1;
    TW_RETURN_IF_ERROR(array_util::BroadcastGradientArgs(IntValues(ctx.input(0)),
                                                         IntValues(ctx.input(1)), &r0, &r1));
    const DType t = ctx.input(0).dtype();
    TW_RETURN_IF_ERROR(OutputInts(ctx, 0, t, TensorShape({static_cast<int64_t>(r0.size())}), r0, "axis"));
    return OutputInts(ctx, 1, t, TensorShape({static_cast<int64_t>(r1.size())}), r1, "axis");
  }
};

}  // namespace

void RegisterArrayShapeKernels(KernelRegistry& r) {
  // Shape queries and reshapes never look at elements, so any dtype is fine.
  r.Register("Shape", kDeviceCpu, Factory<ShapeOp>());
  r.Register("Size", kDeviceCpu, Factory<SizeOp>());
  r.Register("Rank", kDeviceCpu, Factory<RankOp>());
  r.Register("Reshape", kDeviceCpu, Factory<ReshapeOp>());
  r.Register("Squeeze", kDeviceCpu, Factory<SqueezeOp>());
  r.Register("ExpandDims", kDeviceCpu, Factory<ExpandDimsOp>());
  r.Register("BroadcastGradientArgs", kDeviceCpu, Factory<BroadcastGradientArgsOp>());
}

void RegisterArrayPadKernels(KernelRegistry& r);  // array_kernels_pad.cc
void RegisterArrayWhereKernels(KernelRegistry& r);  // array_kernels_where.cc

void RegisterArrayKernels(KernelRegistry& r) {
  RegisterArrayShapeKernels(r);
  RegisterArraySliceKernels(r);
  RegisterArrayJoinKernels(r);
  RegisterArrayFillKernels(r);
  RegisterArrayPadKernels(r);
  RegisterArrayGatherKernels(r);
  RegisterArrayWhereKernels(r);
}

}  // namespace tw
