// CPU kernels for the small dtypes (int8, uint8, int16, uint16, half) for the ops that
// TensorFlow registers them for. Each runs this node's kernel for a wider dtype on
// widened inputs and narrows its outputs:
//  - the integers compute in int64 and narrow by wrapping (mod 2^bits), which gives what
//    TensorFlow's small-integer kernels give: Add, Sub, Mul, Neg, Abs, Sum, Prod... are
//    exact in modular arithmetic, comparisons, Max and Min are exact;
//  - half computes in float32 and rounds each result once to nearest even, as Eigen::half's
//    operators do per operation. Reductions and MatMul also accumulate in float32 (TF
//    accumulates some of them in half): results may differ by the half rounding of partial
//    sums (the differential tests state the bound).
// No kernel is instantiated for a small type: only the conversions below are, so the many
// kernel templates compile once, for the dtypes they already had.
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/cwise.h"
#include "tensor/half.h"
#include "tensor/tensor_proto.h"

namespace tw {
namespace {

DType WideType(DType t) { return t == DType::kHalf ? DType::kFloat : DType::kInt64; }

// dst[i] = src[i] converted: widening is exact; narrowing wraps integers and rounds float
// to half.
template <typename S, typename D>
void ConvertRange(const S* src, D* dst, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    if constexpr (std::is_same_v<D, half>) {
      dst[i] = FloatToHalf(src[i]);
    } else if constexpr (std::is_same_v<S, half>) {
      dst[i] = HalfToFloat(src[i]);
    } else {
      dst[i] = static_cast<D>(src[i]);  // C++20: modular for integers.
    }
  }
}

// `in` (of dtype `small` or its wide type) as dtype `to`, one of the two.
absl::StatusOr<Tensor> Convert(const OpKernelContext& ctx, const Tensor& in, DType small, DType to) {
  // A widened int8 tensor is 8 times larger: held to the step's cap like any output.
  TW_RETURN_IF_ERROR(CheckTensorBytes(to, in.shape(), ctx.params().max_tensor_bytes, "widened tensor"));
  TW_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(to, in.shape()));
  VisitSmall(small, [&](auto tag) {
    using S = TypeOf<decltype(tag)>;
    using W = std::conditional_t<std::is_same_v<S, half>, float, int64_t>;
    const bool widen = to != small;
    const void* src = in.raw_data();
    void* dst = out.raw_data();
    cwise::ParallelRange(ctx, in.NumElements(), 1, [&](int64_t b, int64_t e) {
      if (widen) {
        ConvertRange(static_cast<const S*>(src), static_cast<W*>(dst), b, e);
      } else {
        ConvertRange(static_cast<const W*>(src), static_cast<S*>(dst), b, e);
      }
    });
  });
  return out;
}

class WidenedOp : public OpKernel {
 public:
  WidenedOp(OpKernelConstruction& c, DType small, std::unique_ptr<OpKernel> inner)
      : OpKernel(c), small_(small), wide_(WideType(small)), inner_(std::move(inner)) {
    for (int i = 0; i < c.num_outputs(); ++i) narrow_.push_back(c.output_type(i) == small);
  }

  bool IsExpensive() const override { return inner_->IsExpensive(); }

  absl::Status Compute(OpKernelContext& ctx) override {
    std::vector<Tensor> inputs(ctx.num_inputs());
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      if (in.dtype() == small_) {
        TW_ASSIGN_OR_RETURN(inputs[i], Convert(ctx, in, small_, wide_));
      } else {
        inputs[i] = in;
      }
    }
    OpKernelContext::Params p = ctx.params();
    p.inputs = inputs.data();
    OpKernelContext wide_ctx(p);
    TW_RETURN_IF_ERROR(inner_->Compute(wide_ctx));
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      Tensor& out = wide_ctx.output(i);
      if (narrow_[i] && out.dtype() == wide_) {
        TW_ASSIGN_OR_RETURN(Tensor narrow, Convert(ctx, out, small_, small_));
        ctx.set_output(i, std::move(narrow));
      } else {
        ctx.set_output(i, std::move(out));
      }
    }
    return absl::OkStatus();
  }

 private:
  const DType small_, wide_;
  std::unique_ptr<OpKernel> inner_;
  std::vector<bool> narrow_;  // Per output: narrow it back to small_.
};

// Builds WidenedOp around the kernel registered for the node's wide dtype (found at
// construction, when the global registry is complete).
KernelFactory WidenFactory(const char* attr) {
  return [attr](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DType t = DType::kInvalid;
    c.GetAttr(attr, &t);
    if (!c.status().ok()) return c.status();
    const DType wide = WideType(t);
    const KernelRegistry::Registration* reg =
        KernelRegistry::Global().FindForType(c.op(), c.device_type(), wide);
    if (reg == nullptr) {
      return absl::UnimplementedError(absl::StrCat("no ", c.op(), " kernel for ", DTypeName(t)));
    }
    OpKernelConstruction wide_c = c.WithType(attr, t, wide);
    TW_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> inner, reg->factory(wide_c));
    if (inner->IsAsync()) {
      return absl::InternalError(absl::StrCat(c.op(), " is asynchronous and cannot be widened"));
    }
    return std::unique_ptr<OpKernel>(std::make_unique<WidenedOp>(c, t, std::move(inner)));
  };
}

constexpr DType kHalf = DType::kHalf, kI8 = DType::kInt8, kU8 = DType::kUint8,
                kI16 = DType::kInt16, kU16 = DType::kUint16;

// TensorFlow's CPU registrations for the small dtypes (tensorflow-cpu 2.20, read from its
// kernel registry; python/tests/test_tf_oracle_small_dtypes.py fails when one side runs an
// op on a dtype the other does not).
struct Widened {
  const char* op;
  std::vector<DType> types;
  const char* attr = "T";
};

const std::vector<Widened>& WidenedOps() {
  static const auto* ops = new std::vector<Widened>{
      {"Add", {kHalf, kI8, kI16, kU8}},
      {"AddV2", {kHalf, kI8, kI16, kU8, kU16}},
      {"Sub", {kHalf, kI8, kI16, kU8, kU16}},
      {"Mul", {kHalf, kI8, kI16, kU8, kU16}},
      {"Div", {kHalf, kI8, kI16, kU8, kU16}},
      {"FloorDiv", {kHalf, kI8, kI16, kU8, kU16}},
      {"FloorMod", {kHalf, kI8, kI16, kU8, kU16}},
      {"Pow", {kHalf, kI8, kI16}},
      {"RealDiv", {kHalf}},
      {"SquaredDifference", {kHalf}},
      {"Maximum", {kHalf, kI8, kI16, kU8, kU16}},
      {"Minimum", {kHalf, kI8, kI16, kU8, kU16}},
      {"Equal", {kHalf, kI8, kI16, kU8, kU16}},
      {"NotEqual", {kHalf, kI8, kI16, kU8, kU16}},
      {"Less", {kHalf, kI8, kI16, kU8, kU16}},
      {"LessEqual", {kHalf, kI8, kI16, kU8, kU16}},
      {"Greater", {kHalf, kI8, kI16, kU8, kU16}},
      {"GreaterEqual", {kHalf, kI8, kI16, kU8, kU16}},
      {"Neg", {kHalf, kI8, kI16}},
      {"Abs", {kHalf, kI8, kI16}},
      {"Sign", {kHalf, kI8, kI16}},
      {"Square", {kHalf, kI8, kI16, kU8, kU16}},
      {"Relu", {kHalf, kI8, kI16, kU8, kU16}},
      {"ReluGrad", {kHalf, kI8, kI16, kU8, kU16}},
      {"Exp", {kHalf}},
      {"Log", {kHalf}},
      {"Sqrt", {kHalf}},
      {"Rsqrt", {kHalf}},
      {"Reciprocal", {kHalf}},
      {"Tanh", {kHalf}},
      {"Sigmoid", {kHalf}},
      {"SigmoidGrad", {kHalf}},
      {"TanhGrad", {kHalf}},
      {"Softmax", {kHalf}},
      {"LogSoftmax", {kHalf}},
      {"MatMul", {kHalf}},  // TF registers int16 too, but its OpDef refuses it.
      {"BatchMatMulV2", {kHalf, kI16}},
      {"Sum", {kHalf, kI8, kI16, kU8, kU16}},
      {"Mean", {kHalf, kI8, kI16, kU8, kU16}},
      {"Prod", {kHalf, kI8, kI16, kU8, kU16}},
      {"Max", {kHalf, kI8, kI16, kU8, kU16}},
      {"Min", {kHalf, kI8, kI16, kU8, kU16}},
      {"ArgMax", {kHalf, kI8, kI16, kU8, kU16}},
      {"ArgMin", {kHalf, kI8, kI16, kU8, kU16}},
      {"AddN", {kHalf, kI8, kI16, kU8, kU16}},
      {"Select", {kHalf, kI8, kI16, kU8, kU16}},
      {"SelectV2", {kHalf, kI8, kI16, kU8, kU16}},
      {"BiasAdd", {kHalf, kI8, kI16, kU8, kU16}},
      {"UnsortedSegmentSum", {kHalf, kI8, kI16, kU8, kU16}},
  };
  return *ops;
}

}  // namespace

void RegisterWidenedKernels(KernelRegistry& r) {
  for (const Widened& w : WidenedOps()) {
    r.Register({w.op, kDeviceCpu, WidenFactory(w.attr), w.attr, w.types});
  }
}

}  // namespace tw
