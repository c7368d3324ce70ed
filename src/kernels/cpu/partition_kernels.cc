// Kernels that move whole rows by index (rows = the trailing dims past the index tensor's
// rank, copied as bytes): Gather (v1, axis 0), DynamicPartition, DynamicStitch and
// ParallelDynamicStitch, and Unique. Every index is checked before anything is copied: one
// outside its range is InvalidArgument naming it, never a read or write outside a tensor.
#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/array_kernels.h"

namespace tw {
namespace {

using array_kernels::IntValues;

// Bytes in one row of t past its first `prefix_rank` dims.
int64_t RowBytes(const Tensor& t, int prefix_rank) {
  int64_t n = static_cast<int64_t>(DTypeSize(t.dtype()));
  for (int d = prefix_rank; d < t.rank(); ++d) n *= t.dim(d);
  return n;
}

// True when `prefix`'s dims are the first dims of `full`.
bool IsPrefix(const TensorShape& prefix, const TensorShape& full) {
  const auto& p = prefix.dims();
  const auto& f = full.dims();
  return p.size() <= f.size() && std::equal(p.begin(), p.end(), f.begin());
}

// TensorShape with the first dim `rows` followed by t.shape[prefix_rank:].
absl::StatusOr<TensorShape> RowsShape(int64_t rows, const Tensor& t, int prefix_rank) {
  DimVector dims = {rows};
  dims.insert(dims.end(), t.shape().dims().begin() + prefix_rank, t.shape().dims().end());
  return TensorShape::Build(dims);
}

class GatherV1Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    if (params.rank() == 0) return absl::InvalidArgumentError("params must be at least 1 dimensional");
    const DimVector idx = IntValues(indices);
    const int64_t rows = params.dim(0);
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < 0 || idx[i] >= rows) {
        return absl::InvalidArgumentError(absl::StrCat("indices[", i, "] = ", idx[i], " is not in [0, ", rows, ")"));
      }
    }
    DimVector dims(indices.shape().dims().begin(), indices.shape().dims().end());
    dims.insert(dims.end(), params.shape().dims().begin() + 1, params.shape().dims().end());
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, params.dtype()));
    const int64_t row = RowBytes(params, 1);
    if (row == 0) return absl::OkStatus();
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    for (size_t i = 0; i < idx.size(); ++i) std::memcpy(dst + i * row, src + idx[i] * row, row);
    return absl::OkStatus();
  }
};

class DynamicPartitionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& parts = ctx.input(1);
    if (!IsPrefix(parts.shape(), data.shape())) {
      return absl::InvalidArgumentError(absl::StrCat("data.shape must start with partitions.shape, got data.shape = ",
                                                     data.shape().DebugString(), ", partitions.shape = ",
                                                     parts.shape().DebugString()));
    }
    const int n = ctx.num_outputs();
    const int32_t* p = parts.data<int32_t>();
    const int64_t count = parts.NumElements();
    std::vector<int64_t> sizes(n, 0);
    for (int64_t i = 0; i < count; ++i) {
      if (p[i] < 0 || p[i] >= n) {
        return absl::InvalidArgumentError(absl::StrCat("partitions[", i, "] = ", p[i], " is not in [0, ", n, ")"));
      }
      ++sizes[p[i]];
    }
    std::vector<char*> dst(n);
    for (int k = 0; k < n; ++k) {
      TW_ASSIGN_OR_RETURN(TensorShape shape, RowsShape(sizes[k], data, parts.rank()));
      TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(k, shape, data.dtype()));
      dst[k] = static_cast<char*>(out->raw_data());
    }
    const int64_t row = RowBytes(data, parts.rank());
    if (row == 0) return absl::OkStatus();
    const char* src = static_cast<const char*>(data.raw_data());
    for (int64_t i = 0; i < count; ++i) {
      std::memcpy(dst[p[i]], src + i * row, row);
      dst[p[i]] += row;
    }
    return absl::OkStatus();
  }
};

// merged[indices[m][i]] = data[m][i]; a later (m, i) wins on duplicates, as in TensorFlow's
// CPU kernel. Rows no index names stay zero.
class DynamicStitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const int n = ctx.num_inputs() / 2;
    const Tensor& data0 = ctx.input(n);
    const int prefix0 = ctx.input(0).rank();
    if (!IsPrefix(ctx.input(0).shape(), data0.shape())) {
      return absl::InvalidArgumentError(absl::StrCat("data[0].shape = ", data0.shape().DebugString(),
                                                     " does not start with indices[0].shape = ",
                                                     ctx.input(0).shape().DebugString()));
    }
    std::vector<DimVector> idx(n);
    int64_t rows = 0;
    for (int m = 0; m < n; ++m) {
      const Tensor& indices = ctx.input(m);
      const Tensor& data = ctx.input(n + m);
      // data[m].shape must be indices[m].shape + data[0]'s row shape.
      const auto& rest0 = data0.shape().dims();
      DimVector want(indices.shape().dims().begin(), indices.shape().dims().end());
      want.insert(want.end(), rest0.begin() + prefix0, rest0.end());
      if (DimVector(data.shape().dims().begin(), data.shape().dims().end()) != want) {
        TW_ASSIGN_OR_RETURN(TensorShape want_shape, TensorShape::Build(want));
        return absl::InvalidArgumentError(absl::StrCat("data[", m, "].shape = ", data.shape().DebugString(),
                                                       " does not equal indices[", m, "].shape + data[0].shape[",
                                                       prefix0, ":] = ", want_shape.DebugString()));
      }
      idx[m] = IntValues(indices);
      for (size_t i = 0; i < idx[m].size(); ++i) {
        if (idx[m][i] < 0) {
          return absl::InvalidArgumentError(absl::StrCat("indices[", m, "][", i, "] = ", idx[m][i],
                                                         " is negative"));
        }
        rows = std::max(rows, idx[m][i] + 1);
      }
    }
    TW_ASSIGN_OR_RETURN(TensorShape shape, RowsShape(rows, data0, prefix0));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, data0.dtype()));
    const int64_t row = RowBytes(data0, prefix0);
    char* dst = static_cast<char*>(out->raw_data());
    if (row == 0) return absl::OkStatus();
    std::memset(dst, 0, static_cast<size_t>(rows * row));
    for (int m = 0; m < n; ++m) {
      const char* src = static_cast<const char*>(ctx.input(n + m).raw_data());
      for (size_t i = 0; i < idx[m].size(); ++i) std::memcpy(dst + idx[m][i] * row, src + i * row, row);
    }
    return absl::OkStatus();
  }
};

// y: the distinct values of x in order of first appearance; idx[i]: x[i]'s position in y.
// Floats compare with == as in TensorFlow: 0 and -0 are one value, every NaN its own.
template <typename T>
class UniqueOp : public OpKernel {
 public:
  explicit UniqueOp(OpKernelConstruction& c) : OpKernel(c), idx_type_(c.output_type(1)) {}
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("unique expects a 1D vector, got shape ", x.shape().DebugString()));
    }
    const T* v = x.data<T>();
    const int64_t n = x.NumElements();
    std::unordered_map<T, int64_t> position;
    std::vector<T> y;
    DimVector idx(n);
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] = position.try_emplace(v[i], static_cast<int64_t>(y.size()));
      if (inserted) y.push_back(v[i]);
      idx[i] = it->second;
    }
    TW_ASSIGN_OR_RETURN(TensorShape yshape, TensorShape::Build({static_cast<int64_t>(y.size())}));
    TW_ASSIGN_OR_RETURN(Tensor * out_y, ctx.allocate_output(0, yshape, x.dtype()));
    std::copy(y.begin(), y.end(), out_y->data<T>());
    const DType idx_type = idx_type_;
    TW_ASSIGN_OR_RETURN(Tensor * out_idx, ctx.allocate_output(1, x.shape(), idx_type));
    if (idx_type == DType::kInt32) {
      if (!y.empty() && static_cast<int64_t>(y.size()) > std::numeric_limits<int32_t>::max()) {
        return absl::InvalidArgumentError("unique: more distinct values than int32 idx can count");
      }
      std::copy(idx.begin(), idx.end(), out_idx->data<int32_t>());
    } else {
      std::copy(idx.begin(), idx.end(), out_idx->data<int64_t>());
    }
    return absl::OkStatus();
  }

 private:
  DType idx_type_;
};

}  // namespace

void RegisterPartitionKernels(KernelRegistry& r) {
  array_kernels::RegisterPod(r, "Gather", Factory<GatherV1Op>(), "Tparams");
  array_kernels::RegisterPod(r, "DynamicPartition", Factory<DynamicPartitionOp>());
  array_kernels::RegisterPod(r, "DynamicStitch", Factory<DynamicStitchOp>());
  array_kernels::RegisterPod(r, "ParallelDynamicStitch", Factory<DynamicStitchOp>());
  r.Register({"Unique", kDeviceCpu, TypedFactory<UniqueOp>(), "T",
              {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
}

}  // namespace tw
