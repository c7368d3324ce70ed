// Array kernels, part 3: joining inputs along an axis (Concat, ConcatV2, Pack) and
// splitting one (Unpack, Split, SplitV). Both view tensors as [outer, row bytes] around
// the axis and move whole rows with memcpy.
#include "kernels/cpu/array_kernels.h"
#include "ops/array_ops_util.h"

namespace tw {
namespace {

using array_kernels::IntValues;

int64_t Product(absl::Span<const int64_t> dims, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= dims[i];
  return n;
}

absl::StatusOr<int64_t> ScalarAxis(const Tensor& t, const char* what) {
  if (t.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " tensor should be a scalar integer, but got shape ", t.shape().DebugString()));
  }
  return IntValues(t)[0];
}

// Joins `values` along `axis` into output 0 of `shape` (ConcatShape/PackShape checked them).
absl::Status Join(OpKernelContext& ctx, absl::Span<const Tensor* const> values, int axis,
                  const TensorShape& shape) {
  TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, values[0]->dtype()));
  if (out->NumElements() == 0) return absl::OkStatus();
  if (out->dtype() == DType::kString) {
    std::vector<const std::string*> ptrs;
    std::vector<int64_t> counts;
    for (const Tensor* v : values) {
      ptrs.push_back(v->data<std::string>());
      counts.push_back(Product(v->shape().dims(), axis, v->rank()));
    }
    array_kernels::JoinStringRows(Product(shape.dims(), 0, axis), ptrs, counts, out->data<std::string>());
    return absl::OkStatus();
  }
  const int64_t size = static_cast<int64_t>(DTypeSize(out->dtype()));
  std::vector<const char*> ptrs;
  std::vector<int64_t> bytes;
  for (const Tensor* v : values) {
    ptrs.push_back(static_cast<const char*>(v->raw_data()));
    bytes.push_back(Product(v->shape().dims(), axis, v->rank()) * size);
  }
  array_kernels::JoinRows(ctx, Product(shape.dims(), 0, axis), ptrs, bytes,
                          static_cast<char*>(out->raw_data()));
  return absl::OkStatus();
}

// Splits `in` along `axis` into outputs of the given shapes (whose dims after `axis`
// match the input's, or, for Unpack, drop it).
absl::Status SplitInto(OpKernelContext& ctx, const Tensor& in, int axis,
                       absl::Span<const TensorShape> shapes) {
  const int64_t size = static_cast<int64_t>(DTypeSize(in.dtype()));
  std::vector<char*> ptrs;
  std::vector<int64_t> bytes;
  for (size_t i = 0; i < shapes.size(); ++i) {
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(static_cast<int>(i), shapes[i], in.dtype()));
    ptrs.push_back(static_cast<char*>(out->raw_data()));
    bytes.push_back(Product(shapes[i].dims(), axis, shapes[i].rank()) * size);
  }
  if (in.NumElements() == 0) return absl::OkStatus();
  if (in.dtype() == DType::kString) {
    std::vector<std::string*> strs;
    std::vector<int64_t> counts;
    for (size_t i = 0; i < shapes.size(); ++i) {
      strs.push_back(ctx.output(static_cast<int>(i)).data<std::string>());
      counts.push_back(Product(shapes[i].dims(), axis, shapes[i].rank()));
    }
    array_kernels::SplitStringRows(Product(in.shape().dims(), 0, axis), in.data<std::string>(), strs, counts);
    return absl::OkStatus();
  }
  array_kernels::SplitRows(ctx, Product(in.shape().dims(), 0, axis),
                           static_cast<const char*>(in.raw_data()), ptrs, bytes);
  return absl::OkStatus();
}

class ConcatOp : public OpKernel {
 public:
  explicit ConcatOp(OpKernelConstruction& c) : OpKernel(c), v2_(c.op() == "ConcatV2") {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const int n = ctx.num_inputs() - 1;
    const int axis_input = v2_ ? n : 0, first = v2_ ? 0 : 1;
    TW_ASSIGN_OR_RETURN(int64_t axis, ScalarAxis(ctx.input(axis_input), "Concat dim"));
    std::vector<PartialShape> shapes;
    std::vector<const Tensor*> values;
    for (int i = 0; i < n; ++i) {
      values.push_back(&ctx.input(first + i));
      shapes.push_back(values.back()->shape());
    }
    TW_ASSIGN_OR_RETURN(PartialShape out, array_util::ConcatShape(shapes, axis));
    TW_ASSIGN_OR_RETURN(TensorShape shape, out.ToTensorShape());
    const int c = static_cast<int>(axis < 0 ? axis + shape.rank() : axis);
    return Join(ctx, values, c, shape);
  }

 private:
  bool v2_;
};

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("axis", &axis_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    std::vector<PartialShape> shapes;
    std::vector<const Tensor*> values;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      values.push_back(&ctx.input(i));
      shapes.push_back(values.back()->shape());
    }
    TW_ASSIGN_OR_RETURN(PartialShape out, array_util::PackShape(shapes, axis_));
    TW_ASSIGN_OR_RETURN(TensorShape shape, out.ToTensorShape());
    // Each input is one row piece of the [outer, N * inner] output.
    return Join(ctx, values, static_cast<int>(axis_ < 0 ? axis_ + shape.rank() : axis_), shape);
  }

 private:
  int64_t axis_ = 0;
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("axis", &axis_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_ASSIGN_OR_RETURN(int a, array_util::UnpackAxis(in.shape(), axis_, ctx.num_outputs()));
    TensorShape piece = in.shape();
    piece.RemoveDim(a);
    std::vector<TensorShape> shapes(ctx.num_outputs(), piece);
    return SplitInto(ctx, in, a, shapes);
  }

 private:
  int64_t axis_ = 0;
};

class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction& c) : OpKernel(c), v_(c.op() == "SplitV") {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(v_ ? 0 : 1);
    const int n = ctx.num_outputs();
    TW_ASSIGN_OR_RETURN(int64_t split_dim, ScalarAxis(ctx.input(v_ ? 2 : 0), "split_dim"));
    TW_ASSIGN_OR_RETURN(int axis, array_util::CanonicalAxis(split_dim, in.rank(), "split_dim"));
    DimVector sizes;
    if (v_) {
      TW_RETURN_IF_ERROR(array_kernels::CheckVector(ctx.input(1), "size_splits"));
      TW_ASSIGN_OR_RETURN(sizes, array_util::SplitVSizes(IntValues(ctx.input(1)), in.dim(axis), n));
    } else {
      TW_ASSIGN_OR_RETURN(int64_t size, array_util::SplitSize(in.dim(axis), axis, n));
      sizes.assign(n, size);
    }
    if (n == 1) {  // One piece: the input itself.
      ctx.set_output(0, in);
      return absl::OkStatus();
    }
    std::vector<TensorShape> shapes(n, in.shape());
    for (int i = 0; i < n; ++i) shapes[i].set_dim(axis, sizes[i]);
    return SplitInto(ctx, in, axis, shapes);
  }

 private:
  bool v_;
};

}  // namespace

void RegisterArrayJoinKernels(KernelRegistry& r) {
  array_kernels::RegisterCopyable(r, "ConcatV2", Factory<ConcatOp>());
  array_kernels::RegisterCopyable(r, "Concat", Factory<ConcatOp>());
  array_kernels::RegisterCopyable(r, "Pack", Factory<PackOp>());
  array_kernels::RegisterCopyable(r, "Unpack", Factory<UnpackOp>());
  array_kernels::RegisterCopyable(r, "Split", Factory<SplitOp>());
  array_kernels::RegisterCopyable(r, "SplitV", Factory<SplitOp>());
}

}  // namespace tw
