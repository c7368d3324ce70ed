// SegmentSum / SegmentMean (ids sorted, non-negative: output row s reduces the data rows
// with id s; rows no id names are 0) and UnsortedSegmentMax / Min (output rows start at the
// dtype's lowest / highest value, as in TensorFlow; negative ids are dropped, ids >=
// num_segments are errors naming them). Every id is checked before anything is computed.
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/array_kernels.h"

namespace tw {
namespace {

using array_kernels::IntValues;

template <typename T>
class SortedSegmentOp : public OpKernel {
 public:
  explicit SortedSegmentOp(OpKernelConstruction& c) : OpKernel(c), mean_(c.op() == "SegmentMean") {}
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
    std::fill(dst, dst + out->NumElements(), T(0));
    const int64_t inner = rows == 0 ? 0 : out->NumElements() / rows;
    const T* src = data.data<T>();
    size_t i = 0;
    while (i < ids.size()) {  // one run of equal ids at a time
      size_t end = i;
      T* row = dst + ids[i] * inner;
      for (; end < ids.size() && ids[end] == ids[i]; ++end) {
        const T* in = src + static_cast<int64_t>(end) * inner;
        for (int64_t j = 0; j < inner; ++j) row[j] += in[j];
      }
      if (mean_) {
        const T count = static_cast<T>(end - i);
        for (int64_t j = 0; j < inner; ++j) row[j] /= count;
      }
      i = end;
    }
    return absl::OkStatus();
  }

 private:
  bool mean_;
};

template <typename T>
class UnsortedSegmentExtremumOp : public OpKernel {
 public:
  explicit UnsortedSegmentExtremumOp(OpKernelConstruction& c)
      : OpKernel(c), max_(c.op() == "UnsortedSegmentMax") {}
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
              max_ ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
    const int64_t inner = num == 0 ? 0 : out->NumElements() / num;
    const T* src = data.data<T>();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0) continue;
      T* row = dst + ids[i] * inner;
      const T* in = src + static_cast<int64_t>(i) * inner;
      for (int64_t j = 0; j < inner; ++j) {
        // The later element unless the kept one beats it, as TensorFlow's CPU functors: a NaN
        // replaces what was kept and is replaced by the next element.
        if (max_ ? !(in[j] < row[j]) : !(row[j] < in[j])) row[j] = in[j];
      }
    }
    return absl::OkStatus();
  }

 private:
  bool max_;
};

}  // namespace

void RegisterSegmentKernels(KernelRegistry& r) {
  for (const char* op : {"SegmentSum", "SegmentMean"}) {
    r.Register({op, kDeviceCpu, TypedFactory<SortedSegmentOp>(), "T",
                {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
  }
  for (const char* op : {"UnsortedSegmentMax", "UnsortedSegmentMin"}) {
    r.Register({op, kDeviceCpu, TypedFactory<UnsortedSegmentExtremumOp>(), "T",
                {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
  }
}

}  // namespace tw
