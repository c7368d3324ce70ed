// SegmentSum / Mean / Max / Min / Prod (ids sorted, non-negative: output row s reduces the
// data rows with id s; rows no id names are 0, 1 for Prod, as in TensorFlow) and
// UnsortedSegmentMax / Min / Prod (output rows start at the dtype's lowest / highest value,
// or 1; negative ids are dropped, ids >= num_segments are errors naming them). Every id is
// checked before anything is computed.
#include <algorithm>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/array_kernels.h"
#include "kernels/cpu/cwise.h"

namespace tw {
namespace {

using array_kernels::IntValues;

enum class Reduce { kSum, kMean, kMax, kMin, kProd };

Reduce ReduceOf(const std::string& op) {
  if (absl::EndsWith(op, "Mean")) return Reduce::kMean;
  if (absl::EndsWith(op, "Max")) return Reduce::kMax;
  if (absl::EndsWith(op, "Min")) return Reduce::kMin;
  if (absl::EndsWith(op, "Prod")) return Reduce::kProd;
  return Reduce::kSum;
}

// Folds in into kept: sums and products wrap for ints, as TensorFlow's; max and min keep the
// later element unless the kept one beats it (a NaN replaces what was kept and is replaced
// by the next element), as TensorFlow's CPU functors.
template <typename T>
T Fold(Reduce r, T kept, T in) {
  switch (r) {
    case Reduce::kMax: return in < kept ? kept : in;
    case Reduce::kMin: return kept < in ? kept : in;
    case Reduce::kProd: return cwise::WrapMul(kept, in);
    default: return cwise::WrapAdd(kept, in);
  }
}

template <typename T>
class SortedSegmentOp : public OpKernel {
 public:
  explicit SortedSegmentOp(OpKernelConstruction& c) : OpKernel(c), reduce_(ReduceOf(c.op())) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& ids_tensor = ctx.input(1);
    TW_RETURN_IF_ERROR(array_kernels::CheckVector(ids_tensor, "segment_ids"));
    if (data.rank() < 1) return absl::InvalidArgumentError("data must be at least 1 dimensional");
    const DimVector ids = IntValues(ids_tensor);
    if (static_cast<int64_t>(ids.size()) != data.dim(0)) {
      return absl::InvalidArgumentError(absl::StrCat("segment_ids should be the size of data's first dimension: ",
                                                     ids.size(), " vs ", data.dim(0)));
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0) {
        return absl::InvalidArgumentError(absl::StrCat("segment_ids[", i, "] = ", ids[i], " is negative"));
      }
      if (i > 0 && ids[i] < ids[i - 1]) {
        return absl::InvalidArgumentError(
            absl::StrCat("segment ids are not increasing: segment_ids[", i, "] = ", ids[i], " after ", ids[i - 1]));
      }
    }
    const int64_t rows = ids.empty() ? 0 : ids.back() + 1;
    DimVector dims = {rows};
    dims.insert(dims.end(), data.shape().dims().begin() + 1, data.shape().dims().end());
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, data.dtype()));
    T* dst = out->data<T>();
    std::fill(dst, dst + out->NumElements(), reduce_ == Reduce::kProd ? T(1) : T(0));  // empty segments
    const int64_t inner = rows == 0 ? 0 : out->NumElements() / rows;
    const T* src = data.data<T>();
    size_t i = 0;
    while (i < ids.size()) {  // one run of equal ids at a time, started from its first row
      T* row = dst + ids[i] * inner;
      std::copy_n(src + static_cast<int64_t>(i) * inner, inner, row);
      size_t end = i + 1;
      for (; end < ids.size() && ids[end] == ids[i]; ++end) {
        const T* in = src + static_cast<int64_t>(end) * inner;
        for (int64_t j = 0; j < inner; ++j) row[j] = Fold(reduce_, row[j], in[j]);
      }
      if (reduce_ == Reduce::kMean) {
        const T count = static_cast<T>(end - i);
        for (int64_t j = 0; j < inner; ++j) row[j] /= count;
      }
      i = end;
    }
    return absl::OkStatus();
  }

 private:
  Reduce reduce_;
};

template <typename T>
class UnsortedSegmentReduceOp : public OpKernel {
 public:
  explicit UnsortedSegmentReduceOp(OpKernelConstruction& c) : OpKernel(c), reduce_(ReduceOf(c.op())) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& ids_tensor = ctx.input(1);
    TW_RETURN_IF_ERROR(array_kernels::CheckScalar(ctx.input(2), "num_segments"));
    const int64_t num = IntValues(ctx.input(2))[0];
    if (num < 0) return absl::InvalidArgumentError(absl::StrCat("num_segments must be non-negative, got ", num));
    const auto& ddims = data.shape().dims();
    const auto& idims = ids_tensor.shape().dims();
    if (idims.size() > ddims.size() || !std::equal(idims.begin(), idims.end(), ddims.begin())) {
      return absl::InvalidArgumentError(absl::StrCat("segment_ids ", ids_tensor.shape().DebugString(),
                                                     " is not a prefix of data's shape ", data.shape().DebugString()));
    }
    const DimVector ids = IntValues(ids_tensor);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] >= num) {
        return absl::InvalidArgumentError(
            absl::StrCat("segment_ids[", i, "] = ", ids[i], " is out of range [0, ", num, ")"));
      }
    }
    DimVector dims = {num};
    dims.insert(dims.end(), ddims.begin() + idims.size(), ddims.end());
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, data.dtype()));
    T* dst = out->data<T>();
    std::fill(dst, dst + out->NumElements(),
              reduce_ == Reduce::kMax   ? std::numeric_limits<T>::lowest()
              : reduce_ == Reduce::kMin ? std::numeric_limits<T>::max()
                                        : T(1));
    const int64_t inner = num == 0 ? 0 : out->NumElements() / num;
    const T* src = data.data<T>();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0) continue;
      T* row = dst + ids[i] * inner;
      const T* in = src + static_cast<int64_t>(i) * inner;
      for (int64_t j = 0; j < inner; ++j) row[j] = Fold(reduce_, row[j], in[j]);
    }
    return absl::OkStatus();
  }

 private:
  Reduce reduce_;
};

}  // namespace

void RegisterSegmentKernels(KernelRegistry& r) {
  for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"}) {
    r.Register({op, kDeviceCpu, TypedFactory<SortedSegmentOp>(), "T",
                {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
  }
  for (const char* op : {"UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"}) {
    r.Register({op, kDeviceCpu, TypedFactory<UnsortedSegmentReduceOp>(), "T",
                {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
  }
}

}  // namespace tw
