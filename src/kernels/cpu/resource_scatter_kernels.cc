// ResourceScatterUpdate / Add / Sub / Mul / Div / Min / Max: rows of a resource variable
// replaced by or combined with rows of `updates` (var[indices[i], ...] = / += / -= / *= / /=
// / min= / max= updates[i, ...]). They are what TF1's Scatter* on reference variables lower
// to (ScatterSub: GradientDescent's sparse update). Copy-on-write as the other variable
// kernels: a value someone read keeps its buffer. Integer division by zero is an error
// (TensorFlow's kernel would trap), INT_MIN / -1 wraps.
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/resource_handle_input.h"

namespace tw {
namespace {

template <typename Index>
absl::Status CheckIndices(const Tensor& indices, int64_t rows, std::vector<int64_t>* out) {
  const Index* p = indices.data<Index>();
  for (int64_t i = 0; i < indices.NumElements(); ++i) {
    if (p[i] < 0 || p[i] >= rows) {
      return absl::InvalidArgumentError(
          absl::StrCat("indices[", i, "] = ", p[i], " is not in [0, ", rows, ")"));
    }
    out->push_back(static_cast<int64_t>(p[i]));
  }
  return absl::OkStatus();
}

enum class ScatterMode { kUpdate, kAdd, kSub, kMul, kDiv, kMin, kMax };

// d (op)= u (an integer divisor is never 0 here: checked first).
template <ScatterMode kMode, typename T>
void Combine(T& d, T u) {
  if constexpr (std::is_integral_v<T>) {  // + - * wrap around, as TensorFlow's do
    using U = std::make_unsigned_t<T>;
    const U x = static_cast<U>(d), y = static_cast<U>(u);
    if constexpr (kMode == ScatterMode::kAdd) d = static_cast<T>(x + y);
    if constexpr (kMode == ScatterMode::kSub) d = static_cast<T>(x - y);
    if constexpr (kMode == ScatterMode::kMul) d = static_cast<T>(x * y);
    if constexpr (kMode == ScatterMode::kDiv) {
      d = u == -1 ? static_cast<T>(U{0} - x) : static_cast<T>(d / u);
    }
  } else {
    if constexpr (kMode == ScatterMode::kAdd) d = d + u;
    if constexpr (kMode == ScatterMode::kSub) d = d - u;
    if constexpr (kMode == ScatterMode::kMul) d = d * u;
    if constexpr (kMode == ScatterMode::kDiv) d = d / u;
  }
  if constexpr (kMode == ScatterMode::kMin) d = u < d ? u : d;
  if constexpr (kMode == ScatterMode::kMax) d = u > d ? u : d;
}

template <ScatterMode kMode>
class ResourceScatterOp : public OpKernel {
  static constexpr bool kArithmetic = kMode != ScatterMode::kUpdate;

 public:
  explicit ResourceScatterOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("dtype", &dtype_);
    if (!c.status().ok()) return;
    const bool ok = kArithmetic ? (dtype_ == DType::kFloat || dtype_ == DType::kDouble || dtype_ == DType::kInt32 ||
                            dtype_ == DType::kInt64)
                         : VisitAllPod(dtype_, [](auto) {});
    if (!ok) {
      c.Fail(absl::InvalidArgumentError(absl::StrCat(c.op(), " does not support dtype ", DTypeName(dtype_))));
    }
  }

  absl::Status Compute(OpKernelContext& ctx) override ABSL_NO_THREAD_SAFETY_ANALYSIS {
    TW_ASSIGN_OR_RETURN(ResourceHandle h, ResourceHandleInput(ctx, 0, "variable"));
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    auto found = ctx.resource_mgr()->Lookup(h.container, h.name);
    if (!found.ok()) return Uninitialized(h.name);
    std::shared_ptr<Var> var = *std::move(found);
    if (var->dtype() != dtype_ || updates.dtype() != dtype_) {
      return absl::InvalidArgumentError(absl::StrCat("variable '", h.name, "' has dtype ", DTypeName(var->dtype()),
                                                     " but the updates have dtype ", DTypeName(updates.dtype())));
    }
    absl::MutexLock lock(var->mu());
    if (!var->initialized()) return Uninitialized(h.name);
    Tensor& current = var->value();
    if (current.rank() < 1) {
      return absl::InvalidArgumentError(absl::StrCat("cannot scatter into variable '", h.name,
                                                     "' of shape ", current.shape().DebugString(),
                                                     ": it must have rank >= 1"));
    }
    // updates.shape must be indices.shape + var.shape[1:].
    std::vector<int64_t> want(indices.shape().dims().begin(), indices.shape().dims().end());
    for (int d = 1; d < current.rank(); ++d) want.push_back(current.dim(d));
    if (updates.shape() != TensorShape(want)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "updates of shape ", updates.shape().DebugString(), " do not fit indices of shape ",
          indices.shape().DebugString(), " into variable '", h.name, "' of shape ",
          current.shape().DebugString(), " (want ", TensorShape(want).DebugString(), ")"));
    }
    std::vector<int64_t> rows;
    TW_RETURN_IF_ERROR(indices.dtype() == DType::kInt32 ? CheckIndices<int32_t>(indices, current.dim(0), &rows)
                                                        : CheckIndices<int64_t>(indices, current.dim(0), &rows));
    if constexpr (kMode == ScatterMode::kDiv) {  // refused before anything is written
      bool zero = false;
      VisitNumeric(dtype_, [&](auto tag) {
        using T = TypeOf<decltype(tag)>;
        if constexpr (std::is_integral_v<T>) {
          for (int64_t i = 0; i < updates.NumElements(); ++i) zero |= updates.data<T>()[i] == 0;
        }
      });
      if (zero) return absl::InvalidArgumentError("Integer division by zero");
    }
    Tensor result = current.RefCountIsOne() ? current : current.Copy();
    const int64_t row = current.dim(0) == 0 ? 0 : current.NumElements() / current.dim(0);
    if constexpr (kArithmetic) {
      VisitNumeric(dtype_, [&](auto tag) {
        using T = TypeOf<decltype(tag)>;
        T* dst = result.data<T>();
        const T* src = updates.data<T>();
        for (size_t i = 0; i < rows.size(); ++i) {
          for (int64_t k = 0; k < row; ++k) Combine<kMode>(dst[rows[i] * row + k], src[i * row + k]);
        }
      });
    } else {
      const size_t bytes = static_cast<size_t>(row) * DTypeSize(dtype_);
      char* dst = static_cast<char*>(result.raw_data());
      const char* src = static_cast<const char*>(updates.raw_data());
      for (size_t i = 0; i < rows.size(); ++i) {
        if (bytes > 0) std::memcpy(dst + rows[i] * bytes, src + i * bytes, bytes);
      }
    }
    current = std::move(result);
    return absl::OkStatus();
  }

 private:
  static absl::Status Uninitialized(const std::string& name) {
    return absl::FailedPreconditionError(absl::StrCat(
        "variable '", name, "' is uninitialized (run its initializer, e.g. global_variables_initializer, first)"));
  }
  DType dtype_ = DType::kInvalid;
};

}  // namespace

void RegisterResourceScatterKernels(KernelRegistry& r) {
  r.Register("ResourceScatterUpdate", kDeviceCpu, Factory<ResourceScatterOp<ScatterMode::kUpdate>>());
  r.Register("ResourceScatterAdd", kDeviceCpu, Factory<ResourceScatterOp<ScatterMode::kAdd>>());
  r.Register("ResourceScatterSub", kDeviceCpu, Factory<ResourceScatterOp<ScatterMode::kSub>>());
  r.Register("ResourceScatterMul", kDeviceCpu, Factory<ResourceScatterOp<ScatterMode::kMul>>());
  r.Register("ResourceScatterDiv", kDeviceCpu, Factory<ResourceScatterOp<ScatterMode::kDiv>>());
  r.Register("ResourceScatterMin", kDeviceCpu, Factory<ResourceScatterOp<ScatterMode::kMin>>());
  r.Register("ResourceScatterMax", kDeviceCpu, Factory<ResourceScatterOp<ScatterMode::kMax>>());
}

}  // namespace tw
