// Array kernels, part 4: tensors made from values or descriptions (Fill, ZerosLike,
// OnesLike, Range, OneHot). Sizes are checked before anything is allocated.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/array_kernels.h"
#include "ops/array_ops_util.h"

namespace tw {
namespace {

using array_kernels::CheckScalar;
using array_kernels::IntValues;

class FillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& dims = ctx.input(0);
    const Tensor& value = ctx.input(1);
    TW_RETURN_IF_ERROR(array_kernels::CheckVector(dims, "dims"));
    TW_RETURN_IF_ERROR(CheckScalar(value, "value"));
    TW_ASSIGN_OR_RETURN(TensorShape shape, array_util::FillShape(IntValues(dims)));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, value.dtype()));
    if (value.dtype() == DType::kString) {
      absl::Span<std::string> all = out->flat<std::string>();
      std::fill(all.begin(), all.end(), value.scalar<std::string>());
      return absl::OkStatus();
    }
    array_kernels::FillElements(ctx, DTypeSize(value.dtype()), value.raw_data(),
                                out->NumElements(), out->raw_data());
    return absl::OkStatus();
  }
};

// ZerosLike and OnesLike: the input's shape filled with 0 or 1 of its dtype.
class ConstantLikeOp : public OpKernel {
 public:
  explicit ConstantLikeOp(OpKernelConstruction& c) : OpKernel(c) {
    const DType t = c.input_type(0);
    const bool one = c.op() == "OnesLike";
    VisitAllPod(t, [&](auto tag) {
      using T = TypeOf<decltype(tag)>;
      const T v = one ? T(1) : T(0);
      std::memcpy(value_, &v, sizeof(T));
    });
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_ASSIGN_OR_RETURN(Tensor * out,
                        ctx.forward_input_or_allocate_output(0, 0, in.shape(), in.dtype()));
    array_kernels::FillElements(ctx, DTypeSize(out->dtype()), value_, out->NumElements(),
                                out->raw_data());
    return absl::OkStatus();
  }

 private:
  alignas(16) char value_[16] = {};  // Up to complex128.
};

template <typename T>
class RangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(CheckScalar(ctx.input(0), "start"));
    TW_RETURN_IF_ERROR(CheckScalar(ctx.input(1), "limit"));
    TW_RETURN_IF_ERROR(CheckScalar(ctx.input(2), "delta"));
    const T start = ctx.input(0).scalar<T>(), delta = ctx.input(2).scalar<T>();
    TW_ASSIGN_OR_RETURN(int64_t n, array_util::RangeSize<T>(start, ctx.input(1).scalar<T>(), delta));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({n}), DTypeOf<T>::value));
    T* data = out->data<T>();
    ctx.ParallelFor(n, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if constexpr (std::is_integral_v<T>) {
          // Wrapping arithmetic: the true value fits T even when i * delta would not.
          data[i] = static_cast<T>(static_cast<uint64_t>(start) +
                                   static_cast<uint64_t>(i) * static_cast<uint64_t>(delta));
        } else {
          data[i] = start + static_cast<T>(i) * delta;
        }
      }
    });
    return absl::OkStatus();
  }
};

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("axis", &axis_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    TW_RETURN_IF_ERROR(CheckScalar(ctx.input(1), "depth"));
    TW_RETURN_IF_ERROR(CheckScalar(ctx.input(2), "on_value"));
    TW_RETURN_IF_ERROR(CheckScalar(ctx.input(3), "off_value"));
    const int64_t depth = ctx.input(1).scalar<int32_t>();
    if (depth < 0) {
      return absl::InvalidArgumentError(absl::StrCat("depth must be non-negative, got: ", depth));
    }
    TW_ASSIGN_OR_RETURN(int a, array_util::OneHotAxis(axis_, indices.rank()));
    DimVector dims(indices.shape().dims().begin(), indices.shape().dims().end());
    dims.insert(dims.begin() + a, depth);
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    const Tensor& on = ctx.input(2);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, on.dtype()));
    const size_t size = DTypeSize(on.dtype());
    array_kernels::FillElements(ctx, size, ctx.input(3).raw_data(), out->NumElements(),
                                out->raw_data());
    if (out->NumElements() == 0) return absl::OkStatus();
    // Output viewed as [prefix, depth, suffix]; out-of-range indices leave off_value rows.
    int64_t suffix = 1;
    for (int i = a; i < indices.rank(); ++i) suffix *= indices.dim(i);
    char* dst = static_cast<char*>(out->raw_data());
    auto scatter = [&](const auto* idx) {
      for (int64_t k = 0; k < indices.NumElements(); ++k) {
        const int64_t d = idx[k];
        if (d < 0 || d >= depth) continue;
        const int64_t p = k / suffix, s = k % suffix;
        std::memcpy(dst + ((p * depth + d) * suffix + s) * size, on.raw_data(), size);
      }
    };
    if (indices.dtype() == DType::kInt32) {
      scatter(indices.data<int32_t>());
    } else {
      scatter(indices.data<int64_t>());
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_ = -1;
};

}  // namespace

void RegisterArrayFillKernels(KernelRegistry& r) {
  array_kernels::RegisterCopyable(r, "Fill", Factory<FillOp>());
  array_kernels::RegisterPod(r, "ZerosLike", Factory<ConstantLikeOp>());
  array_kernels::RegisterPod(r, "OnesLike", Factory<ConstantLikeOp>());
  r.Register({"Range", kDeviceCpu, TypedFactory<RangeOp>("Tidx"), "", {}});
  array_kernels::RegisterPod(r, "OneHot", Factory<OneHotOp>());
}

}  // namespace tw
