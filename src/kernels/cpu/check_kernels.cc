// Assert and CheckNumerics: fail the step with InvalidArgument carrying the user's message
// (and for Assert the data tensors, summarized as TensorFlow prints them).
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/math_kernels.h"
#include "kernels/cpu/summarize_value.h"
#include "tensor/half.h"

namespace tw {
namespace {

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("summarize", &summarize_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& cond = ctx.input(0);
    if (cond.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat("In[0] should be a scalar: ", cond.shape().DebugString()));
    }
    if (cond.data<bool>()[0]) return absl::OkStatus();
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      absl::StrAppend(&msg, "[", SummarizeValue(ctx.input(i), summarize_), "]");
      if (i < ctx.num_inputs() - 1) msg.append(" ");
    }
    return absl::InvalidArgumentError(msg);
  }
  bool IsExpensive() const override { return false; }

 private:
  int64_t summarize_ = 3;
};

// Passes input 0 through and writes "<message>[data 1][data 2]..." as one line to stderr,
// as TensorFlow's Print does; with first_n >= 0 only on its first first_n runs.
class PrintOp : public OpKernel {
 public:
  explicit PrintOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("message", &message_);
    c.GetAttr("first_n", &first_n_);
    c.GetAttr("summarize", &summarize_);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, ctx.input(0));
    if (first_n_ >= 0 && calls_.fetch_add(1) >= first_n_) return absl::OkStatus();
    std::string msg = message_;
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      absl::StrAppend(&msg, "[", SummarizeValue(ctx.input(i), summarize_), "]");
    }
    msg.append("\n");
    std::fwrite(msg.data(), 1, msg.size(), stderr);  // one write: lines of concurrent steps do not interleave
    std::fflush(stderr);
    return absl::OkStatus();
  }

 private:
  std::string message_;
  int64_t first_n_ = -1;
  int64_t summarize_ = 3;
  std::atomic<int64_t> calls_{0};
};

// Passes `tensor` through, or fails naming what it found: "<message> : Tensor had NaN values".
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("message", &message_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    bool nan = false, inf = false;
    auto scan = [&](auto tag) {
      using T = TypeOf<decltype(tag)>;
      const T* p = x.data<T>();
      for (int64_t i = 0, n = x.NumElements(); i < n; ++i) {
        float v;
        if constexpr (std::is_same_v<T, half>) {
          v = HalfToFloat(p[i]);
        } else {
          v = static_cast<float>(p[i]);  // inf and NaN survive the narrowing; finite doubles may
          if (std::isinf(v) && std::isfinite(p[i])) v = 0;  // overflow to inf: not a finding
        }
        nan |= std::isnan(v);
        inf |= std::isinf(v);
      }
    };
    if (x.dtype() == DType::kHalf) {
      scan(TypeTag<half>{});
    } else {
      VisitFloating(x.dtype(), scan);
    }
    if (nan || inf) {
      const char* what = nan && inf ? "Inf and NaN" : (inf ? "Inf" : "NaN");
      return absl::InvalidArgumentError(absl::StrCat(message_, " : Tensor had ", what, " values"));
    }
    ctx.set_output(0, x);
    return absl::OkStatus();
  }

 private:
  std::string message_;
};

}  // namespace

void RegisterCheckKernels(KernelRegistry& r) {
  r.Register("Assert", kDeviceCpu, Factory<AssertOp>());
  r.Register("CheckNumerics", kDeviceCpu, Factory<CheckNumericsOp>());
  r.Register("Print", kDeviceCpu, Factory<PrintOp>());
}

}  // namespace tw
