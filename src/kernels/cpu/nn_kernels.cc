// Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits, BiasAdd(V1), BiasAddGrad and L2Loss.
// Softmaxes work on rows of the last dim and subtract each row's max before exp, so large
// logits stay finite.

// GCC 12 warns falsely inside its own AVX-512 intrinsics as Eigen inlines them (GCC bug
// 105593); set before any include so the system headers see it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/cwise.h"
#include "tensor/tensor_eigen.h"

namespace tw {
namespace {


// Rough ns per element of an exp-heavy row, for ParallelFor.
constexpr int64_t kExpCost = 8;

template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    if (in.rank() < 1) {
      return absl::InvalidArgumentError("logits must have rank at least 1, got a scalar");
    }
    // Read `in` before forwarding: a forwarded input is moved into the output.
    const int64_t cols = in.dim(in.rank() - 1), n = in.NumElements();
    const T* src = in.data<T>();  // May be out's buffer: each element is read before written.
    TW_ASSIGN_OR_RETURN(Tensor * out,
                        ctx.forward_input_or_allocate_output(0, 0, in.shape(), in.dtype()));
    if (n == 0) return absl::OkStatus();
    const int64_t rows = n / cols;
    T* dst = out->data<T>();
    ctx.ParallelFor(rows, cols * kExpCost, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        ConstArrayMap<T> x(src + r * cols, cols);
        ArrayMap<T> y(dst + r * cols, cols);
        const T max = x.maxCoeff();
        if constexpr (kLog) {
          y = x - max;
          y -= std::log(y.exp().sum());
        } else {
          y = (x - max).exp();
          y /= y.sum();
        }
      }
    });
    return absl::OkStatus();
  }
};

template <typename T>
using SoftmaxKernel = SoftmaxOp<T, false>;
template <typename T>
using LogSoftmaxKernel = SoftmaxOp<T, true>;

// loss[i] = -sum_j labels[i,j] * log_softmax(features)[i,j]; backprop = softmax - labels.
template <typename T>
class SoftmaxCrossEntropyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& features = ctx.input(0);
    const Tensor& labels = ctx.input(1);
    const char* names[] = {"features", "labels"};
    for (int i = 0; i < 2; ++i) {
      if (ctx.input(i).rank() != 2) {
        return absl::InvalidArgumentError(absl::StrCat(
            names[i], " must be 2-dimensional, got shape ", ctx.input(i).shape().DebugString()));
      }
    }
    if (features.shape() != labels.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "logits and labels must be the same size: logits_size=", features.shape().DebugString(),
          " labels_size=", labels.shape().DebugString()));
    }
    const int64_t rows = features.dim(0), cols = features.dim(1);
    TW_ASSIGN_OR_RETURN(Tensor * loss,
                        ctx.allocate_output(0, TensorShape({rows}), features.dtype()));
    TW_ASSIGN_OR_RETURN(Tensor * backprop,
                        ctx.allocate_output(1, features.shape(), features.dtype()));
    T* loss_p = loss->data<T>();
    if (cols == 0) {  // No classes: nothing to lose.
      std::fill(loss_p, loss_p + rows, T(0));
      return absl::OkStatus();
    }
    const T* fp = features.data<T>();
    const T* lp = labels.data<T>();
    T* bp = backprop->data<T>();
    ctx.ParallelFor(rows, cols * kExpCost, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        ConstArrayMap<T> x(fp + r * cols, cols);
        ConstArrayMap<T> y(lp + r * cols, cols);
        ArrayMap<T> g(bp + r * cols, cols);
        const T max = x.maxCoeff();
        g = (x - max).exp();
        const T sum = g.sum();
        const T log_sum = std::log(sum);
        loss_p[r] = (y * (log_sum - (x - max))).sum();
        g = g / sum - y;
      }
    });
    return absl::OkStatus();
  }
};

// The value's layout seen as [outer, channels, inner]: NHWC puts channels last (inner 1),
// NCHW puts them at dim 1.
struct ChannelLayout {
  int64_t outer = 1, channels = 0, inner = 1;
};

ChannelLayout Layout(const TensorShape& s, bool nchw) {
  const int channel = nchw ? 1 : s.rank() - 1;
  ChannelLayout l;
  l.channels = s.dim(channel);
  for (int d = 0; d < channel; ++d) l.outer *= s.dim(d);
  for (int d = channel + 1; d < s.rank(); ++d) l.inner *= s.dim(d);
  return l;
}

absl::Status ReadDataFormat(OpKernelConstruction& c, bool* nchw) {
  *nchw = false;
  if (c.op() == "BiasAddV1") return absl::OkStatus();
  std::string format;
  c.GetAttr("data_format", &format);
  if (!c.status().ok()) return c.status();
  if (format != "NHWC" && format != "NCHW") {
    return absl::InvalidArgumentError("data_format must be NHWC or NCHW, got " + format);
  }
  *nchw = format == "NCHW";
  return absl::OkStatus();
}

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction& c) : OpKernel(c) { c.Fail(ReadDataFormat(c, &nchw_)); }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& value = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    if (value.rank() < 2) {
      return absl::InvalidArgumentError("Input tensor must be at least 2D: " +
                                        value.shape().DebugString());
    }
    if (bias.rank() != 1) {
      return absl::InvalidArgumentError("Biases must be 1D: " + bias.shape().DebugString());
    }
    const ChannelLayout l = Layout(value.shape(), nchw_);
    if (bias.dim(0) != l.channels) {
      return absl::InvalidArgumentError(
          absl::StrCat("Must provide as many biases as the channel dimension of the input tensor: ",
                       bias.shape().DebugString(), " vs. ", value.shape().DebugString()));
    }
    // Read `value` before forwarding: a forwarded input is moved into the output.
    const T* src = value.data<T>();
    const int64_t n = value.NumElements();
    TW_ASSIGN_OR_RETURN(Tensor * out,
                        ctx.forward_input_or_allocate_output(0, 0, value.shape(), value.dtype()));
    if (n == 0) return absl::OkStatus();
    const T* b = bias.data<T>();
    T* dst = out->data<T>();
    const int64_t row = l.channels * l.inner;
    ctx.ParallelFor(l.outer, row, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        if constexpr (std::is_integral_v<T>) {  // integers wrap, as TensorFlow's (no overflow UB)
          for (int64_t i = 0; i < row; ++i) {
            dst[o * row + i] = cwise::WrapAdd(src[o * row + i], b[l.inner == 1 ? i : i / l.inner]);
          }
          continue;
        }
        if (l.inner == 1) {
          ArrayMap<T>(dst + o * row, row) =
              ConstArrayMap<T>(src + o * row, row) + ConstArrayMap<T>(b, row);
          continue;
        }
        for (int64_t c = 0; c < l.channels; ++c) {
          const int64_t off = o * row + c * l.inner;
          ArrayMap<T>(dst + off, l.inner) = ConstArrayMap<T>(src + off, l.inner) + b[c];
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  bool nchw_ = false;
};

// Sums out_backprop over every dim but the channel one. Chunks of outer rows are summed in
// parallel into partial vectors, then combined in a fixed order.
template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction& c) : OpKernel(c) {
    c.Fail(ReadDataFormat(c, &nchw_));
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& g = ctx.input(0);
    if (g.rank() < 2) {
      return absl::InvalidArgumentError("Input tensor must be at least 2D: " +
                                        g.shape().DebugString());
    }
    const ChannelLayout l = Layout(g.shape(), nchw_);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({l.channels}), g.dtype()));
    ArrayMap<T> sum(out->data<T>(), l.channels);
    sum.setZero();
    if (g.NumElements() == 0) return absl::OkStatus();
    const int64_t row = l.channels * l.inner;
    constexpr int64_t kChunkElements = 1 << 16;
    const int64_t rows_per_chunk = std::max<int64_t>(1, kChunkElements / row);
    const int64_t chunks = (l.outer + rows_per_chunk - 1) / rows_per_chunk;
    std::vector<T> partial(chunks * l.channels, T(0));
    const T* src = g.data<T>();
    ctx.ParallelFor(chunks, rows_per_chunk * row, [&](int64_t begin, int64_t end) {
      for (int64_t ch = begin; ch < end; ++ch) {
        ArrayMap<T> acc(partial.data() + ch * l.channels, l.channels);
        const int64_t last = std::min(l.outer, (ch + 1) * rows_per_chunk);
        for (int64_t o = ch * rows_per_chunk; o < last; ++o) {
          if (l.inner == 1) {
            acc += ConstArrayMap<T>(src + o * row, row);
            continue;
          }
          for (int64_t c = 0; c < l.channels; ++c) {
            acc[c] += ConstArrayMap<T>(src + o * row + c * l.inner, l.inner).sum();
          }
        }
      }
    });
    for (int64_t ch = 0; ch < chunks; ++ch)
      sum += ArrayMap<T>(partial.data() + ch * l.channels, l.channels);
    return absl::OkStatus();
  }

 private:
  bool nchw_ = false;
};

const std::vector<DType> kFloatTypes = {DType::kFloat, DType::kDouble};
const std::vector<DType> kNumericTypes = {DType::kFloat, DType::kDouble, DType::kInt32,
                                          DType::kInt64};


}  // namespace

// sum(t ** 2) / 2, accumulated in double: a sum of squares loses float32's last bits
// quickly, and TensorFlow's tree reduction stays within a few ulps of the exact value.
template <typename T>
class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& t = ctx.input(0);
    const T* v = t.data<T>();
    double sum = 0;
    // Each half square in T, as TensorFlow's (t.square() * 0.5).sum(): a square past T's
    // range is inf there too.
    for (int64_t i = 0; i < t.NumElements(); ++i) sum += static_cast<double>(v[i] * v[i] * T(0.5));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(), t.dtype()));
    *out->data<T>() = std::abs(sum) > static_cast<double>(std::numeric_limits<T>::max())
                          ? std::numeric_limits<T>::infinity()
                          : static_cast<T>(sum);
    return absl::OkStatus();
  }
};

void RegisterNnKernels(KernelRegistry& r) {
  r.Register({"Softmax", kDeviceCpu, TypedFactory<SoftmaxKernel, KernelTypes::kFloating>(), "T", kFloatTypes});
  r.Register({"LogSoftmax", kDeviceCpu, TypedFactory<LogSoftmaxKernel, KernelTypes::kFloating>(), "T", kFloatTypes});
  r.Register({"SoftmaxCrossEntropyWithLogits", kDeviceCpu, TypedFactory<SoftmaxCrossEntropyOp, KernelTypes::kFloating>(),
              "T", kFloatTypes});
  r.Register({"BiasAdd", kDeviceCpu, TypedFactory<BiasAddOp>(), "T", kNumericTypes});
  r.Register({"BiasAddV1", kDeviceCpu, TypedFactory<BiasAddOp>(), "T", kNumericTypes});
  r.Register({"BiasAddGrad", kDeviceCpu, TypedFactory<BiasAddGradOp>(), "T", kNumericTypes});
  r.Register({"L2Loss", kDeviceCpu, TypedFactory<L2LossOp, KernelTypes::kFloating>(), "T", kFloatTypes});
}

}  // namespace tw
