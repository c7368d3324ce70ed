// ShapeN, IdentityN, EnsureShape and BroadcastArgs.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/cpu_kernels.h"

namespace tw {
namespace {

class ShapeNOp : public OpKernel {
 public:
  explicit ShapeNOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("out_type", &out_type_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.input(i);
      TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(i, TensorShape({x.rank()}), out_type_));
      for (int d = 0; d < x.rank(); ++d) {
        if (out_type_ == DType::kInt64) {
          out->data<int64_t>()[d] = x.dim(d);
        } else {
          if (x.dim(d) > INT32_MAX) {
            return absl::InvalidArgumentError(
                absl::StrCat("Shape of input ", i, " has a dim ", x.dim(d), " over int32's range: use out_type int64"));
          }
          out->data<int32_t>()[d] = static_cast<int32_t>(x.dim(d));
        }
      }
    }
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType out_type_ = DType::kInt32;
};

class IdentityNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.input(i));
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }
};

class EnsureShapeOp : public OpKernel {
 public:
  explicit EnsureShapeOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("shape", &shape_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (!shape_.Matches(x.shape())) {
      return absl::InvalidArgumentError(absl::StrCat("Shape of tensor input ", x.shape().DebugString(),
                                                     " is not compatible with expected shape ",
                                                     shape_.DebugString(), "."));
    }
    ctx.set_output(0, x);
    return absl::OkStatus();
  }
  bool IsExpensive() const override { return false; }

 private:
  PartialShape shape_;
};

template <typename T>
class BroadcastArgsOp : public OpKernel {
 public:
  explicit BroadcastArgsOp(OpKernelConstruction& c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.rank() != 1 || b.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("In[0] and In[1] must be vectors, got shapes ",
                                                     a.shape().DebugString(), " and ", b.shape().DebugString()));
    }
    const std::vector<T> x(a.data<T>(), a.data<T>() + a.NumElements());
    const std::vector<T> y(b.data<T>(), b.data<T>() + b.NumElements());
    const size_t n = std::max(x.size(), y.size());
    std::vector<T> out(n);
    // Aligned at the last dim, as NumPy: a 1 stretches to the other side's size.
    for (size_t i = 0; i < n; ++i) {
      const T dx = i < n - x.size() ? T{1} : x[i - (n - x.size())];
      const T dy = i < n - y.size() ? T{1} : y[i - (n - y.size())];
      if (dx != dy && dx != 1 && dy != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("Incompatible shapes: [", absl::StrJoin(x, ","), "] vs. [", absl::StrJoin(y, ","), "]"));
      }
      out[i] = dx == 1 ? dy : dx;
    }
    TW_ASSIGN_OR_RETURN(Tensor * r, ctx.allocate_output(0, TensorShape({static_cast<int64_t>(n)}), a.dtype()));
    std::copy(out.begin(), out.end(), r->data<T>());
    return absl::OkStatus();
  }
};

template <typename T>
using BroadcastArgsKernel = BroadcastArgsOp<T>;

}  // namespace

void RegisterArrayShapeNKernels(KernelRegistry& r) {
  r.Register("ShapeN", kDeviceCpu, Factory<ShapeNOp>());
  r.Register("IdentityN", kDeviceCpu, Factory<IdentityNOp>());
  r.Register("EnsureShape", kDeviceCpu, Factory<EnsureShapeOp>());
  r.Register({"BroadcastArgs", kDeviceCpu, TypedFactory<BroadcastArgsKernel>(), "T", {DType::kInt32, DType::kInt64}});
}

}  // namespace tw
