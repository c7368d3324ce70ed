// FusedBatchNorm(V2/V3) and FusedBatchNormGrad(V2/V3) on CPU, as TensorFlow's CPU kernels:
//  - training: y normalizes with the batch's mean and biased variance; the batch_variance
//    output carries Bessel's correction n/(n-1) (none when n == 1), and an
//    exponential_avg_factor f != 1 blends both outputs as (1 - f) * given + f * batch;
//    reserve_space_1/2 keep the batch mean and biased variance for the gradient;
//  - inference: y normalizes with the given mean and variance, which are also the outputs.
// The data is seen as [rows, channels] (NCHW is transposed to NHWC first); per-channel
// sums accumulate in double so that large batches keep float32's precision.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/cwise.h"
#include "kernels/cpu/nhwc.h"

namespace tw {
namespace {

class BatchNormKernelBase : public OpKernel {
 public:
  explicit BatchNormKernelBase(OpKernelConstruction& c, bool has_factor) : OpKernel(c) {
    std::string format;
    c.GetAttr("epsilon", &epsilon_);
    c.GetAttr("data_format", &format);
    c.GetAttr("is_training", &is_training_);
    if (has_factor) c.GetAttr("exponential_avg_factor", &factor_);
    if (!c.status().ok()) return;
    if (format != "NHWC" && format != "NCHW") {
      c.Fail(absl::InvalidArgumentError(
          absl::StrCat("batch norm takes data_format NHWC or NCHW (4-D inputs), got '", format, "'")));
    }
    nchw_ = format == "NCHW";
  }

 protected:
  // x as NHWC and its channel count.
  template <typename T>
  absl::StatusOr<Tensor> Nhwc(const Tensor& x, const char* what) const {
    if (x.rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(what, " must be 4-dimensional, got shape ", x.shape().DebugString()));
    }
    return nchw_ ? nhwc::Transposed<T>(x, true) : x;
  }
  static absl::Status CheckVector(const Tensor& t, const char* what, int64_t channels, const char* when = "") {
    if (t.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(what, " must be 1-dimensional, got shape ", t.shape().DebugString()));
    }
    if (t.dim(0) != channels) {
      return absl::InvalidArgumentError(absl::StrCat(when, what, " must have the same number of elements as the channels of x, got ",
                                                     t.dim(0), " and ", channels));
    }
    return absl::OkStatus();
  }
  template <typename U>
  static absl::StatusOr<U*> VectorOutput(OpKernelContext& ctx, int i, int64_t n, DType dtype) {
    TW_ASSIGN_OR_RETURN(Tensor * t, ctx.allocate_output(i, TensorShape({n}), dtype));
    return t->data<U>();
  }

  float epsilon_ = 1e-4f;
  float factor_ = 1.0f;
  bool is_training_ = true;
  bool nchw_ = false;
};

// Per-channel mean and biased variance of the NHWC data x ([rows, c]), in double.
template <typename T>
void Moments(const T* x, int64_t rows, int64_t c, std::vector<double>* mean, std::vector<double>* var) {
  mean->assign(c, 0.0);
  var->assign(c, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < c; ++j) (*mean)[j] += x[r * c + j];
  for (int64_t j = 0; j < c; ++j) (*mean)[j] /= static_cast<double>(rows);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < c; ++j) {
      const double d = x[r * c + j] - (*mean)[j];
      (*var)[j] += d * d;
    }
  for (int64_t j = 0; j < c; ++j) (*var)[j] /= static_cast<double>(rows);
}

template <typename T>
class FusedBatchNormOp : public BatchNormKernelBase {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction& c) : BatchNormKernelBase(c, true) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(const Tensor x, Nhwc<T>(ctx.input(0), "input"));
    const int64_t c = x.dim(3), rows = x.dim(0) * x.dim(1) * x.dim(2);
    TW_RETURN_IF_ERROR(CheckVector(ctx.input(1), "scale", c));
    TW_RETURN_IF_ERROR(CheckVector(ctx.input(2), "offset", c));
    const bool use_given = !is_training_ || factor_ != 1.0f;
    if (use_given) {
      const char* when = is_training_ ? "When exponential_avg_factor != 1, " : "When is_training=false, ";
      TW_RETURN_IF_ERROR(CheckVector(ctx.input(3), "mean", c, when));
      TW_RETURN_IF_ERROR(CheckVector(ctx.input(4), "variance", c, when));
    }
    const T *scale = ctx.input(1).data<T>(), *offset = ctx.input(2).data<T>();
    std::vector<double> mean(c), var(c);
    if (is_training_) {
      Moments(x.data<T>(), rows, c, &mean, &var);
    } else {
      for (int64_t j = 0; j < c; ++j) {
        mean[j] = ctx.input(3).data<T>()[j];
        var[j] = ctx.input(4).data<T>()[j];
      }
    }
    // y = x * a + b per channel.
    std::vector<T> a(c), b(c);
    for (int64_t j = 0; j < c; ++j) {
      const double inv = 1.0 / std::sqrt(var[j] + static_cast<double>(epsilon_));
      a[j] = static_cast<T>(scale[j] * inv);
      b[j] = static_cast<T>(offset[j] - mean[j] * scale[j] * inv);
    }
    nhwc::Output out;
    TW_RETURN_IF_ERROR(out.Allocate(ctx, nhwc::Dims(x), x.dtype(), nchw_));
    const T* in = x.data<T>();
    T* y = out.nhwc().data<T>();
    cwise::ParallelRange(ctx, rows, 2 * c, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r)
        for (int64_t j = 0; j < c; ++j) y[r * c + j] = in[r * c + j] * a[j] + b[j];
    });
    out.Finish<T>();

    TW_ASSIGN_OR_RETURN(T * batch_mean, VectorOutput<T>(ctx, 1, c, x.dtype()));
    TW_ASSIGN_OR_RETURN(T * batch_var, VectorOutput<T>(ctx, 2, c, x.dtype()));
    TW_ASSIGN_OR_RETURN(T * saved_mean, VectorOutput<T>(ctx, 3, c, x.dtype()));
    TW_ASSIGN_OR_RETURN(T * saved_var, VectorOutput<T>(ctx, 4, c, x.dtype()));
    const double bessel = rows > 1 ? static_cast<double>(rows) / static_cast<double>(rows - 1) : 1.0;
    const double f = factor_;
    for (int64_t j = 0; j < c; ++j) {
      saved_mean[j] = static_cast<T>(mean[j]);
      saved_var[j] = static_cast<T>(var[j]);
      if (!is_training_) {
        batch_mean[j] = static_cast<T>(mean[j]);
        batch_var[j] = static_cast<T>(var[j]);
      } else if (factor_ == 1.0f) {
        batch_mean[j] = static_cast<T>(mean[j]);
        batch_var[j] = static_cast<T>(var[j] * bessel);
      } else {
        const T old_mean = ctx.input(3).data<T>()[j], old_var = ctx.input(4).data<T>()[j];
        batch_mean[j] = static_cast<T>((1 - f) * old_mean + f * mean[j]);
        batch_var[j] = static_cast<T>((1 - f) * old_var + f * var[j] * bessel);
      }
    }
    if (ctx.num_outputs() == 6) TW_RETURN_IF_ERROR(VectorOutput<T>(ctx, 5, 0, x.dtype()).status());
    return absl::OkStatus();
  }
};

// FusedBatchNormGrad(y_backprop, x, scale, reserve_space_1, reserve_space_2[, 3]): the
// reserve spaces are the batch mean and biased variance (training) or the population
// mean and variance (inference, where mean and variance are constants).
template <typename T>
class FusedBatchNormGradOp : public BatchNormKernelBase {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction& c) : BatchNormKernelBase(c, false) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(const Tensor dy, Nhwc<T>(ctx.input(0), "y_backprop"));
    TW_ASSIGN_OR_RETURN(const Tensor x, Nhwc<T>(ctx.input(1), "x"));
    if (ctx.input(0).shape() != ctx.input(1).shape()) {
      return absl::InvalidArgumentError(absl::StrCat("x and y_backprop must have same shape, but x has shape ",
                                                     ctx.input(1).shape().DebugString(), " and y_backprop has shape ",
                                                     ctx.input(0).shape().DebugString()));
    }
    const int64_t c = x.dim(3), rows = x.dim(0) * x.dim(1) * x.dim(2);
    TW_RETURN_IF_ERROR(CheckVector(ctx.input(2), "scale", c));
    TW_RETURN_IF_ERROR(CheckVector(ctx.input(3), "reserve_space_1", c));
    TW_RETURN_IF_ERROR(CheckVector(ctx.input(4), "reserve_space_2", c));
    const T *scale = ctx.input(2).data<T>(), *mean = ctx.input(3).data<T>(), *var = ctx.input(4).data<T>();
    const T *g = dy.data<T>(), *in = x.data<T>();
    std::vector<double> inv(c), sum_dy(c, 0.0), sum_dy_xhat(c, 0.0);
    for (int64_t j = 0; j < c; ++j) inv[j] = 1.0 / std::sqrt(static_cast<double>(var[j]) + epsilon_);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < c; ++j) {
        sum_dy[j] += g[r * c + j];
        sum_dy_xhat[j] += g[r * c + j] * ((in[r * c + j] - static_cast<double>(mean[j])) * inv[j]);
      }
    nhwc::Output out;
    TW_RETURN_IF_ERROR(out.Allocate(ctx, nhwc::Dims(x), x.dtype(), nchw_));
    T* dx = out.nhwc().data<T>();
    const double n = static_cast<double>(rows);
    cwise::ParallelRange(ctx, rows, 4 * c, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r)
        for (int64_t j = 0; j < c; ++j) {
          const double k = scale[j] * inv[j];
          if (is_training_) {
            const double xhat = (in[r * c + j] - static_cast<double>(mean[j])) * inv[j];
            dx[r * c + j] = static_cast<T>(k * (g[r * c + j] - sum_dy[j] / n - xhat * sum_dy_xhat[j] / n));
          } else {
            dx[r * c + j] = static_cast<T>(k * g[r * c + j]);
          }
        }
    });
    out.Finish<T>();
    TW_ASSIGN_OR_RETURN(T * dscale, VectorOutput<T>(ctx, 1, c, x.dtype()));
    TW_ASSIGN_OR_RETURN(T * doffset, VectorOutput<T>(ctx, 2, c, x.dtype()));
    for (int64_t j = 0; j < c; ++j) {
      dscale[j] = static_cast<T>(sum_dy_xhat[j]);
      doffset[j] = static_cast<T>(sum_dy[j]);
    }
    for (int i = 3; i <= 4; ++i) {
      TW_ASSIGN_OR_RETURN(Tensor * placeholder, ctx.allocate_output(i, TensorShape({}), x.dtype()));
      placeholder->data<T>()[0] = T(0);
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterBatchNormKernels(KernelRegistry& r) {
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    r.Register({op, kDeviceCpu, Factory<FusedBatchNormOp<float>>(), "", {}});
  }
  for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    r.Register({op, kDeviceCpu, Factory<FusedBatchNormGradOp<float>>(), "", {}});
  }
}

}  // namespace tw
