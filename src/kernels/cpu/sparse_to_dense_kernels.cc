// SparseToDense: the output starts as default_value everywhere; each index row gets its
// value. Indices are always bounds-checked (a bad one is InvalidArgument, never a write out
// of bounds); with validate_indices they must also be sorted and distinct, as TensorFlow
// requires, with its messages.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kInt32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
}

class SparseToDenseOp : public OpKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("validate_indices", &validate_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& shape_t = ctx.input(1);
    const Tensor& values = ctx.input(2);
    const Tensor& default_value = ctx.input(3);
    if (indices.rank() > 2) {
      return absl::InvalidArgumentError(absl::StrCat("sparse_indices should be a scalar, vector, or matrix, got shape ",
                                                     indices.shape().DebugString()));
    }
    if (shape_t.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("output_shape must be rank 1, got shape ", shape_t.shape().DebugString()));
    }
    const int64_t num = indices.rank() > 0 ? indices.dim(0) : 1;
    const int64_t ndims = indices.rank() > 1 ? indices.dim(1) : 1;
    if (values.rank() != 0 && !(values.rank() == 1 && values.dim(0) == num)) {
      return absl::InvalidArgumentError(absl::StrCat("sparse_values has incorrect shape ",
                                                     values.shape().DebugString(), ", should be [] or [", num, "]"));
    }
    if (default_value.rank() != 0) return absl::InvalidArgumentError("default_value should be a scalar.");
    if (!IsPodDType(values.dtype()) && values.dtype() != DType::kString) {
      return absl::InvalidArgumentError(absl::StrCat("SparseToDense does not take ", DTypeName(values.dtype())));
    }
    if (shape_t.dim(0) != ndims) {
      return absl::InvalidArgumentError(absl::StrCat("output_shape has incorrect number of elements: ",
                                                     shape_t.dim(0), " should be: ", ndims));
    }
    std::vector<int64_t> dims(static_cast<size_t>(ndims));
    for (int64_t d = 0; d < ndims; ++d) dims[d] = IndexAt(shape_t, d);
    TW_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_shape, values.dtype()));

    // Row-major strides of the output, and each index row's flat offset (checked first, so
    // a bad index leaves nothing half written).
    std::vector<int64_t> strides(static_cast<size_t>(ndims), 1);
    for (int64_t d = ndims - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
    std::vector<int64_t> offsets(static_cast<size_t>(num));
    std::vector<int64_t> row(static_cast<size_t>(ndims)), prev;
    for (int64_t i = 0; i < num; ++i) {
      int64_t offset = 0;
      bool in_bounds = true;
      for (int64_t d = 0; d < ndims; ++d) {
        row[d] = IndexAt(indices, i * ndims + d);
        in_bounds = in_bounds && row[d] >= 0 && row[d] < dims[d];
        offset += row[d] * strides[d];
      }
      if (!in_bounds) {
        return absl::InvalidArgumentError(absl::StrCat("indices[", i, "] = [", absl::StrJoin(row, ","),
                                                       "] is out of bounds: need 0 <= index < [",
                                                       absl::StrJoin(dims, ","), "]"));
      }
      if (validate_ && i > 0) {
        if (row == prev) {
          return absl::InvalidArgumentError(absl::StrCat("indices[", i, "] = [", absl::StrJoin(row, ","),
                                                         "] is repeated"));
        }
        if (row < prev) {
          return absl::InvalidArgumentError(absl::StrCat(
              "indices[", i, "] = [", absl::StrJoin(row, ","),
              "] is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a "
              "correctly ordered copy.\n\n"));
        }
      }
      prev = row;
      offsets[i] = offset;
    }

    const int64_t total = out->NumElements();
    const bool scalar_value = values.rank() == 0;
    if (values.dtype() == DType::kString) {
      std::string* o = out->data<std::string>();
      std::fill_n(o, total, default_value.data<std::string>()[0]);
      for (int64_t i = 0; i < num; ++i) o[offsets[i]] = values.data<std::string>()[scalar_value ? 0 : i];
      return absl::OkStatus();
    }
    const size_t es = DTypeSize(values.dtype());
    char* o = static_cast<char*>(out->raw_data());
    const char* dv = static_cast<const char*>(default_value.raw_data());
    for (int64_t e = 0; e < total; ++e) std::memcpy(o + e * es, dv, es);
    const char* v = static_cast<const char*>(values.raw_data());
    for (int64_t i = 0; i < num; ++i) std::memcpy(o + offsets[i] * es, v + (scalar_value ? 0 : i) * es, es);
    return absl::OkStatus();
  }

 private:
  bool validate_ = true;
};

}  // namespace

void RegisterSparseToDenseKernels(KernelRegistry& r) {
  r.Register("SparseToDense", kDeviceCpu, Factory<SparseToDenseOp>());
}

}  // namespace tw
