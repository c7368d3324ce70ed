// TopKV2 and InTopK/InTopKV2. Rows of the last dim are independent and split over the
// intra-op pool; ties rank the lower index first, as TensorFlow's kernel does.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/cwise.h"

namespace tw {
namespace {

// A scalar int32/int64 input as int64; InvalidArgument naming `what` otherwise.
absl::StatusOr<int64_t> ScalarInt(const Tensor& t, const char* what) {
  if (t.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be 0-D, got shape ", t.shape().DebugString()));
  }
  if (t.dtype() == DType::kInt64) return *t.data<int64_t>();
  if (t.dtype() == DType::kInt32) return *t.data<int32_t>();
  return absl::InvalidArgumentError(absl::StrCat(what, " must be int32 or int64"));
}

template <typename T>
class TopKOp : public OpKernel {
 public:
  explicit TopKOp(OpKernelConstruction& c) : OpKernel(c), index_type_(c.output_type(1)) {
    c.GetAttr("sorted", &sorted_);  // Order is always sorted: a valid answer for sorted=false too.
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    TW_ASSIGN_OR_RETURN(int64_t k, ScalarInt(ctx.input(1), "k"));
    if (k < 0) return absl::InvalidArgumentError(absl::StrCat("Need k >= 0, got ", k));
    if (in.rank() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be >= 1-D, got shape ", in.shape().DebugString()));
    }
    const int64_t cols = in.dim(in.rank() - 1);
    if (cols < k) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must have at least k columns. Had ", cols, ", needed ", k));
    }
    TensorShape out_shape = in.shape();
    out_shape.set_dim(in.rank() - 1, k);
    const DType index_type = index_type_;
    TW_ASSIGN_OR_RETURN(Tensor * values, ctx.allocate_output(0, out_shape, in.dtype()));
    TW_ASSIGN_OR_RETURN(Tensor * indices, ctx.allocate_output(1, out_shape, index_type));
    if (k == 0 || in.NumElements() == 0) return absl::OkStatus();
    const int64_t rows = in.NumElements() / cols;
    const T* x = in.data<T>();
    T* v = values->data<T>();
    const bool i64 = index_type == DType::kInt64;
    const int64_t cost = cols * 4 + k * 8;
    cwise::ParallelRange(ctx, rows, cost, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> order(cols);
      for (int64_t r = begin; r < end; ++r) {
        const T* row = x + r * cols;
        std::iota(order.begin(), order.end(), int64_t{0});
        // Larger first; equal values by lower index (a strict weak order without NaN).
        auto before = [row](int64_t a, int64_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        for (int64_t j = 0; j < k; ++j) {
          v[r * k + j] = row[order[j]];
          if (i64) {
            indices->data<int64_t>()[r * k + j] = order[j];
          } else {
            indices->data<int32_t>()[r * k + j] = static_cast<int32_t>(order[j]);
          }
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  const DType index_type_;
  bool sorted_ = true;
};

// precision[b] = targets[b] is a valid class, its row's predictions are all finite, and
// fewer than k classes are predicted strictly higher.
class InTopKOp : public OpKernel {
 public:
  explicit InTopKOp(OpKernelConstruction& c) : OpKernel(c), v2_(c.op() == "InTopKV2") {
    if (!v2_) c.GetAttr("k", &k_attr_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& pred = ctx.input(0);
    const Tensor& targets = ctx.input(1);
    int64_t k = k_attr_;
    if (v2_) {
      TW_ASSIGN_OR_RETURN(k, ScalarInt(ctx.input(2), "k"));
    }
    if (pred.rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("predictions must be 2-dimensional, got shape ", pred.shape().DebugString()));
    }
    if (targets.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("targets must be 1-dimensional, got shape ", targets.shape().DebugString()));
    }
    const int64_t batch = pred.dim(0), classes = pred.dim(1);
    if (targets.dim(0) != batch) {
      return absl::InvalidArgumentError(absl::StrCat("First dimension of predictions ", batch,
                                                     " must match length of targets ", targets.dim(0)));
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({batch}), DType::kBool));
    const float* p = pred.data<float>();
    bool* o = out->data<bool>();
    const bool t64 = targets.dtype() == DType::kInt64;
    cwise::ParallelRange(ctx, batch, classes + 1, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        const int64_t t = t64 ? targets.data<int64_t>()[b] : targets.data<int32_t>()[b];
        const float* row = p + b * classes;
        if (t < 0 || t >= classes || !std::isfinite(row[t])) {
          o[b] = false;
          continue;
        }
        // As TensorFlow: any non-finite prediction in the row makes the answer false.
        int64_t higher = 0;
        bool finite = true;
        for (int64_t c = 0; c < classes; ++c) {
          finite = finite && std::isfinite(row[c]);
          higher += row[c] > row[t];
        }
        o[b] = finite && higher < k;
      }
    });
    return absl::OkStatus();
  }

 private:
  const bool v2_;
  int64_t k_attr_ = 0;
};

}  // namespace

void RegisterTopKKernels(KernelRegistry& r) {
  r.Register({"TopKV2", kDeviceCpu, TypedFactory<TopKOp>(), "T", cwise::SupportedDTypes<cwise::NumericTypes>()});
  r.Register("InTopK", kDeviceCpu, Factory<InTopKOp>());
  r.Register("InTopKV2", kDeviceCpu, Factory<InTopKOp>());
}

}  // namespace tw
