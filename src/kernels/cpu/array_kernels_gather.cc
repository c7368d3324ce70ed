// GatherV2: params viewed as [batch, outer, axis_size, inner] and indices as [batch, n]
// (batch = the first batch_dims dims, 1 without them); each index picks one [inner] slice
// per outer row of its own batch row. Bytes are copied by element size (any plain dtype).
// Every index is checked before anything is copied: an index outside [0, axis_size) is
// InvalidArgument naming it, as on TensorFlow's CPU.
// UnsortedSegmentSum: row i of data (viewed as [n, inner]) is added to output row
// segment_ids[i]; negative ids are dropped (TensorFlow's rule), ids >= num_segments are
// errors naming them.
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/array_kernels.h"
#include "kernels/cpu/cwise.h"
#include "ops/array_ops_gather.h"

namespace tw {
namespace {

using array_kernels::CheckScalar;
using array_kernels::IntValues;

class GatherV2Op : public OpKernel {
 public:
  explicit GatherV2Op(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("batch_dims", &batch_dims_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    TW_RETURN_IF_ERROR(CheckScalar(ctx.input(2), "axis"));
    if (params.rank() == 0) return absl::InvalidArgumentError("params must be at least 1 dimensional");
    TW_ASSIGN_OR_RETURN(int axis, array_util::GatherAxis(IntValues(ctx.input(2))[0], params.rank()));
    const auto& pdims = params.shape().dims();
    const auto& idims = indices.shape().dims();
    TW_ASSIGN_OR_RETURN(int bdims, array_util::GatherBatchDims(batch_dims_, pdims, idims, axis));
    TW_ASSIGN_OR_RETURN(TensorShape shape,
                        TensorShape::Build(array_util::GatherDims(pdims, idims, axis, bdims)));
    const DimVector idx = IntValues(indices);
    const int64_t axis_size = pdims[axis];
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0 || idx[i] >= axis_size) {
        return absl::InvalidArgumentError(
            absl::StrCat("indices[", i, "] = ", idx[i], " is not in [0, ", axis_size, ")"));
      }
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, params.dtype()));
    int64_t batch = 1, outer = 1, inner = 1;
    for (int d = 0; d < bdims; ++d) batch *= pdims[d];
    for (int d = bdims; d < axis; ++d) outer *= pdims[d];
    for (int d = axis + 1; d < params.rank(); ++d) inner *= pdims[d];
    const int64_t slice = inner * static_cast<int64_t>(DTypeSize(params.dtype()));
    const int64_t n = batch == 0 ? 0 : static_cast<int64_t>(idx.size()) / batch;  // indices per batch row
    if (slice == 0 || n == 0) return absl::OkStatus();
    // Output row u = (b, o, k) reads params row (b, o, idx[b, k]).
    auto source_row = [&](int64_t u) {
      const int64_t k = u % n, bo = u / n, b = bo / outer;
      return bo * axis_size + idx[b * n + k];
    };
    if (params.dtype() == DType::kString) {  // Objects: assigned, never memcpy'd.
      const std::string* src = params.data<std::string>();
      std::string* dst = out->data<std::string>();
      for (int64_t u = 0; u < batch * outer * n; ++u) std::copy_n(src + source_row(u) * inner, inner, dst + u * inner);
      return absl::OkStatus();
    }
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    // One unit of work is one slice copy.
    ctx.ParallelFor(batch * outer * n, slice / 4 + 10, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) std::memcpy(dst + u * slice, src + source_row(u) * slice, slice);
    });
    return absl::OkStatus();
  }

 private:
  int64_t batch_dims_ = 0;
};

template <typename T>
class UnsortedSegmentSumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& ids_tensor = ctx.input(1);
    TW_RETURN_IF_ERROR(CheckScalar(ctx.input(2), "num_segments"));
    const int64_t num = IntValues(ctx.input(2))[0];
    if (num < 0) return absl::InvalidArgumentError(absl::StrCat("num_segments must be non-negative, got ", num));
    const auto& ddims = data.shape().dims();
    const auto& idims = ids_tensor.shape().dims();
    if (idims.size() > ddims.size() || !std::equal(idims.begin(), idims.end(), ddims.begin())) {
      return absl::InvalidArgumentError(absl::StrCat("segment_ids ", ids_tensor.shape().DebugString(),
                                                     " is not a prefix of data's shape ",
                                                     data.shape().DebugString()));
    }
    const DimVector ids = IntValues(ids_tensor);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] >= num) {
        return absl::InvalidArgumentError(
            absl::StrCat("segment_ids[", i, "] = ", ids[i], " is out of range [0, ", num, ")"));
      }
    }
    DimVector out_dims = {num};
    out_dims.insert(out_dims.end(), ddims.begin() + idims.size(), ddims.end());
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(out_dims));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, data.dtype()));
    T* dst = out->data<T>();
    std::fill(dst, dst + out->NumElements(), T(0));
    const int64_t inner = num == 0 ? 0 : out->NumElements() / num;
    const T* src = data.data<T>();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0) continue;
      T* row = dst + ids[i] * inner;
      const T* in = src + static_cast<int64_t>(i) * inner;
      for (int64_t j = 0; j < inner; ++j) row[j] = cwise::WrapAdd(row[j], in[j]);  // ints wrap, as TF
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterArrayGatherKernels(KernelRegistry& r) {
  array_kernels::RegisterCopyable(r, "GatherV2", Factory<GatherV2Op>(), "Tparams");
  // Constrained so that the small dtypes find widen_kernels.cc's registration.
  r.Register({"UnsortedSegmentSum", kDeviceCpu, TypedFactory<UnsortedSegmentSumOp>(), "T",
              {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
}

}  // namespace tw
