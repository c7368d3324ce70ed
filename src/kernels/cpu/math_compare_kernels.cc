// Comparisons (bool output) and binary logical ops, all with NumPy broadcasting.
#include <string>

#include "kernels/cpu/cwise.h"
#include "kernels/cpu/math_kernels.h"

namespace tw {
namespace {

using cwise::BinaryOp;
using cwise::NumericOrBoolTypes;
using cwise::NumericTypes;

struct EqualF : cwise::NumericBoolOrComplexTypes {
  static constexpr int64_t kCost = 1;
  static constexpr bool kIncompatibleResult = false;
  template <typename T>
  bool operator()(T x, T y) const {
    return x == y;
  }
};

struct NotEqualF : cwise::NumericBoolOrComplexTypes {
  static constexpr int64_t kCost = 1;
  static constexpr bool kIncompatibleResult = true;
  template <typename T>
  bool operator()(T x, T y) const {
    return x != y;
  }
};

// String equality (TensorFlow registers Equal/NotEqual for strings); by reference, as
// the numeric functors' by-value arguments would copy every string.
struct StringEqualF {
  static constexpr int64_t kCost = 10;
  static constexpr bool kIncompatibleResult = false;
  bool operator()(const std::string& x, const std::string& y) const { return x == y; }
};

struct StringNotEqualF {
  static constexpr int64_t kCost = 10;
  static constexpr bool kIncompatibleResult = true;
  bool operator()(const std::string& x, const std::string& y) const { return x != y; }
};

struct LessF : NumericTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  bool operator()(T x, T y) const {
    return x < y;
  }
};

struct LessEqualF : NumericTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  bool operator()(T x, T y) const {
    return x <= y;
  }
};

struct GreaterF : NumericTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  bool operator()(T x, T y) const {
    return x > y;
  }
};

struct GreaterEqualF : NumericTypes {
  static constexpr int64_t kCost = 1;
  template <typename T>
  bool operator()(T x, T y) const {
    return x >= y;
  }
};

struct LogicalAndF : cwise::BoolTypes {
  static constexpr int64_t kCost = 1;
  bool operator()(bool x, bool y) const { return x && y; }
};

struct LogicalOrF : cwise::BoolTypes {
  static constexpr int64_t kCost = 1;
  bool operator()(bool x, bool y) const { return x || y; }
};

// Equal and NotEqual have TensorFlow's attr incompatible_shape_error: when false, shapes
// that do not broadcast give a scalar (false for Equal, true for NotEqual), not an error.
template <typename T, typename F>
class EqualityOp : public BinaryOp<T, F> {
 public:
  explicit EqualityOp(OpKernelConstruction& c) : BinaryOp<T, F>(c) {
    c.GetAttr("incompatible_shape_error", &shape_error_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const TensorShape& xs = ctx.input(0).shape();
    const TensorShape& ys = ctx.input(1).shape();
    if (!shape_error_ && xs != ys) {
      cwise::BroadcastPlan plan;
      if (!cwise::MakeBroadcastPlan({&xs, &ys}, &plan).ok()) {
        TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(), DType::kBool));
        out->scalar<bool>() = F::kIncompatibleResult;
        return absl::OkStatus();
      }
    }
    return BinaryOp<T, F>::Compute(ctx);
  }

 private:
  bool shape_error_ = true;
};

}  // namespace

void RegisterMathCompareKernels(KernelRegistry& r) {
  cwise::RegisterCwise<EqualityOp, EqualF>(r, "Equal");
  cwise::RegisterCwise<EqualityOp, NotEqualF>(r, "NotEqual");
  r.Register({"Equal", kDeviceCpu, Factory<EqualityOp<std::string, StringEqualF>>(), "T", {DType::kString}});
  r.Register({"NotEqual", kDeviceCpu, Factory<EqualityOp<std::string, StringNotEqualF>>(), "T", {DType::kString}});
  cwise::RegisterBinary<LessF>(r, "Less");
  cwise::RegisterBinary<LessEqualF>(r, "LessEqual");
  cwise::RegisterBinary<GreaterF>(r, "Greater");
  cwise::RegisterBinary<GreaterEqualF>(r, "GreaterEqual");
  r.Register("LogicalAnd", kDeviceCpu, Factory<BinaryOp<bool, LogicalAndF>>());
  r.Register("LogicalOr", kDeviceCpu, Factory<BinaryOp<bool, LogicalOrF>>());
}

}  // namespace tw
