// Einsum on one or two inputs. Each input is first brought to the labels it shares (a pass
// that takes diagonals of repeated labels and sums the labels nothing else uses); two inputs
// are then laid out as [batch, free, contracted] and [batch, contracted, free] and multiplied
// batch by batch with Eigen's GEMM; a last pass writes the output's order (and the diagonal
// of a repeated output label). A broadcast dim of size 1 facing a larger one is dropped from
// its input (summing over one element), so the other input alone carries that label.

// GCC 12 warns falsely inside its own AVX-512 intrinsics as Eigen inlines them (GCC bug
// 105593); set before any include so the system headers see it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/cpu_kernels.h"
#include "ops/einsum_equation.h"

namespace tw {
namespace {

constexpr int kMaxLabels = einsum::kFirstBroadcast + 64;

// out[out_labels] = sum over the labels missing from out of in[in_labels]. Repeated labels
// in `in` read its diagonal; repeated labels in `out` write out's (the rest stays 0).
// `in_labels` / `in_dims` describe `in`; `out_dims` is out's shape.
template <typename T>
void Relabel(const T* in, const std::vector<int>& in_labels, absl::Span<const int64_t> in_dims,
             const std::vector<int>& out_labels, absl::Span<const int64_t> out_dims, T* out) {
  int64_t out_size = 1;
  for (int64_t d : out_dims) out_size *= d;
  std::fill(out, out + out_size, T(0));
  std::vector<int> unique;
  std::vector<int64_t> size, in_stride, out_stride;
  auto slot = [&](int label, int64_t n) {
    for (size_t u = 0; u < unique.size(); ++u) {
      if (unique[u] == label) return u;
    }
    unique.push_back(label);
    size.push_back(n);
    in_stride.push_back(0);
    out_stride.push_back(0);
    return unique.size() - 1;
  };
  int64_t stride = 1;
  for (int d = static_cast<int>(in_labels.size()) - 1; d >= 0; --d) {
    in_stride[slot(in_labels[d], in_dims[d])] += stride;
    stride *= in_dims[d];
  }
  stride = 1;
  for (int d = static_cast<int>(out_labels.size()) - 1; d >= 0; --d) {
    out_stride[slot(out_labels[d], out_dims[d])] += stride;
    stride *= out_dims[d];
  }
  for (int64_t n : size) {
    if (n == 0) return;
  }
  // Odometer over every label, the innermost (unique[0], the input's last dim) fastest.
  const size_t k = unique.size();
  std::vector<int64_t> idx(k, 0);
  int64_t in_off = 0, out_off = 0;
  while (true) {
    if (k == 0) {
      out[0] += in[0];
      return;
    }
    const int64_t n0 = size[0], is0 = in_stride[0], os0 = out_stride[0];
    for (int64_t i = 0; i < n0; ++i) out[out_off + i * os0] += in[in_off + i * is0];
    size_t u = 1;
    for (; u < k; ++u) {
      in_off += in_stride[u];
      out_off += out_stride[u];
      if (++idx[u] < size[u]) break;
      in_off -= in_stride[u] * size[u];
      out_off -= out_stride[u] * size[u];
      idx[u] = 0;
    }
    if (u == k) return;
  }
}

template <typename T>
class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction& c) : OpKernel(c) {
    std::string text;
    c.GetAttr("equation", &text);
    auto eq = einsum::Parse(text, c.num_inputs());
    if (eq.ok()) {
      eq_ = *std::move(eq);
    } else {
      parse_status_ = eq.status();
    }
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_RETURN_IF_ERROR(parse_status_);
    const int n = ctx.num_inputs();
    std::vector<int> ranks;
    for (int i = 0; i < n; ++i) ranks.push_back(ctx.input(i).rank());
    TW_ASSIGN_OR_RETURN(einsum::Expanded ex, einsum::Expand(eq_, ranks));
    if (einsum::kFirstBroadcast + ex.num_broadcast > kMaxLabels) {
      return absl::InvalidArgumentError("Einsum: too many broadcast dims");
    }
    std::vector<int64_t> size(kMaxLabels, -1);
    TW_RETURN_IF_ERROR(LabelSizes(ctx, ex, size));
    DimVector out_dims;
    for (int l : ex.output) out_dims.push_back(size[l]);
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(out_dims), ctx.input(0).dtype()));
    if (n == 1) {
      Relabel<T>(ctx.input(0).data<T>(), ex.inputs[0], ctx.input(0).shape().dims(), ex.output, out_dims,
                 out->data<T>());
      return absl::OkStatus();
    }
    return Contract(ctx, ex, size, out_dims, out);
  }

 private:
  // Every label's size; equal everywhere but for broadcast dims of 1.
  absl::Status LabelSizes(OpKernelContext& ctx, const einsum::Expanded& ex, std::vector<int64_t>& size) {
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.input(i);
      for (int d = 0; d < x.rank(); ++d) {
        const int l = ex.inputs[i][d];
        const int64_t s = x.dim(d);
        if (size[l] < 0 || (l >= einsum::kFirstBroadcast && size[l] == 1)) {
          size[l] = s;
        } else if (size[l] != s && !(l >= einsum::kFirstBroadcast && s == 1)) {
          if (l >= einsum::kFirstBroadcast) {
            return absl::InvalidArgumentError(absl::StrCat(
                "Einsum: the dims under '...' do not broadcast: ", size[l], " vs. ", s, " at axis ", d, " of input ", i,
                " shaped ", x.shape().DebugString(), " (equation '", eq_.text, "')"));
          }
          return absl::InvalidArgumentError(absl::StrCat("Expected dimension ", size[l], " at axis ", d,
                                                         " of the input shaped ", x.shape().DebugString(),
                                                         " but got dimension ", s));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status Contract(OpKernelContext& ctx, const einsum::Expanded& ex, const std::vector<int64_t>& size,
                        const DimVector& out_dims, Tensor* out) {
    // Labels each input keeps: not a stretched broadcast 1 (dropped), and used elsewhere.
    std::vector<int> count_in[2] = {std::vector<int>(kMaxLabels, 0), std::vector<int>(kMaxLabels, 0)};
    std::vector<bool> in_out(kMaxLabels, false);
    for (int l : ex.output) in_out[l] = true;
    for (int i = 0; i < 2; ++i) {
      const Tensor& x = ctx.input(i);
      for (int d = 0; d < x.rank(); ++d) {
        const int l = ex.inputs[i][d];
        if (!(x.dim(d) == 1 && size[l] != 1)) count_in[i][l]++;
      }
    }
    std::vector<int> batch, free_a, contract, free_b;
    auto add_unique = [](std::vector<int>& v, int l) {
      if (std::find(v.begin(), v.end(), l) == v.end()) v.push_back(l);
    };
    for (int l : ex.inputs[0]) {
      if (!count_in[0][l]) continue;
      if (count_in[1][l]) add_unique(in_out[l] ? batch : contract, l);
      else if (in_out[l]) add_unique(free_a, l);
    }
    for (int l : ex.inputs[1]) {
      if (count_in[1][l] && !count_in[0][l] && in_out[l]) add_unique(free_b, l);
    }
    auto concat = [](std::initializer_list<const std::vector<int>*> parts) {
      std::vector<int> v;
      for (const auto* p : parts) v.insert(v.end(), p->begin(), p->end());
      return v;
    };
    auto dims_of = [&](const std::vector<int>& labels) {
      DimVector d;
      for (int l : labels) d.push_back(size[l]);
      return d;
    };
    auto product = [&](const std::vector<int>& labels) {
      int64_t p = 1;
      for (int l : labels) p *= size[l];
      return p;
    };
    const std::vector<int> a_labels = concat({&batch, &free_a, &contract});
    const std::vector<int> b_labels = concat({&batch, &contract, &free_b});
    const std::vector<int> c_labels = concat({&batch, &free_a, &free_b});
    const int64_t nb = product(batch), m = product(free_a), k = product(contract), nn = product(free_b);
    const DType dt = ctx.input(0).dtype();
    TW_ASSIGN_OR_RETURN(Tensor a, Tensor::Allocate(dt, TensorShape(dims_of(a_labels))));
    TW_ASSIGN_OR_RETURN(Tensor b, Tensor::Allocate(dt, TensorShape(dims_of(b_labels))));
    TW_ASSIGN_OR_RETURN(Tensor c, Tensor::Allocate(dt, TensorShape(dims_of(c_labels))));
    Relabel<T>(ctx.input(0).data<T>(), ex.inputs[0], ctx.input(0).shape().dims(), a_labels, a.shape().dims(),
               a.data<T>());
    Relabel<T>(ctx.input(1).data<T>(), ex.inputs[1], ctx.input(1).shape().dims(), b_labels, b.shape().dims(),
               b.data<T>());
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* pc = c.data<T>();
    ctx.ParallelFor(nb, std::max<int64_t>(1, m * k * nn), [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        Eigen::Map<Matrix> ct(pc + t * m * nn, m, nn);
        if (k == 0) {
          ct.setZero();
        } else {
          ct.noalias() = Eigen::Map<const Matrix>(pa + t * m * k, m, k) * Eigen::Map<const Matrix>(pb + t * k * nn, k, nn);
        }
      }
    });
    Relabel<T>(c.data<T>(), c_labels, c.shape().dims(), ex.output, out_dims, out->data<T>());
    return absl::OkStatus();
  }

  einsum::Equation eq_;
  absl::Status parse_status_;
};

}  // namespace

void RegisterEinsumKernels(KernelRegistry& r) {
  r.Register({"Einsum", kDeviceCpu, TypedFactory<EinsumOp>(), "T",
              {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}});
}

}  // namespace tw
