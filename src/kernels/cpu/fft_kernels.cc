// FFT, IFFT, RFFT and IRFFT over the innermost 1-3 dims, as TensorFlow's kernels compute them:
// one-dimensional transforms (Eigen's FFT module, kissfft: any length) along each inner
// axis in turn; the inverse transforms divide by the number of points. RFFT and IRFFT crop
// or zero-pad their input to fft_length, and IRFFT fills the negative frequencies of the
// last axis from the conjugates of the positive ones.
#include <algorithm>
#include <complex>
#include <vector>

#include <unsupported/Eigen/FFT>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/complex_factory.h"
#include "kernels/cpu/cpu_kernels.h"
#include "tensor/complex_dtype.h"

namespace tw {
namespace {

// The innermost dims of a tensor as one batch of arrays: outer arrays of `dims`.
struct FftLayout {
  int64_t outer = 1;
  DimVector dims;
  int64_t inner() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

// Transforms every line of `data` along inner axis `axis` in place.
template <typename C>
void TransformAxis(const OpKernelContext& ctx, C* data, const FftLayout& layout, int axis, bool inverse) {
  using R = typename C::value_type;
  const int64_t n = layout.dims[axis], inner = layout.inner();
  if (n <= 1 || inner == 0) return;  // One point is its own transform, also inverse.
  int64_t stride = 1;
  for (size_t d = axis + 1; d < layout.dims.size(); ++d) stride *= layout.dims[d];
  const int64_t lines_per_array = inner / n, lines = layout.outer * lines_per_array;
  int log2n = 1;
  while ((int64_t{1} << log2n) < n) ++log2n;
  ctx.ParallelFor(lines, 5 * n * log2n, [&](int64_t begin, int64_t end) {
    Eigen::FFT<R> fft;  // Caches its plans: one per thread's share of the lines.
    std::vector<C> in(n), out(n);
    for (int64_t l = begin; l < end; ++l) {
      const int64_t array = l / lines_per_array, r = l % lines_per_array;
      C* line = data + array * inner + (r / stride) * n * stride + r % stride;
      for (int64_t k = 0; k < n; ++k) in[k] = line[k * stride];
      if (inverse) {
        fft.inv(out.data(), in.data(), n);
      } else {
        fft.fwd(out.data(), in.data(), n);
      }
      for (int64_t k = 0; k < n; ++k) line[k * stride] = out[k];
    }
  });
}

// The layout of `shape` with its innermost `rank` dims as the arrays.
absl::StatusOr<FftLayout> LayoutOf(const TensorShape& shape, int rank, const char* op) {
  if (shape.rank() < rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": input must have rank at least ", rank, " but got shape ", shape.DebugString()));
  }
  FftLayout layout;
  for (int d = 0; d < shape.rank() - rank; ++d) layout.outer *= shape.dim(d);
  for (int d = shape.rank() - rank; d < shape.rank(); ++d) layout.dims.push_back(shape.dim(d));
  return layout;
}

// fft_length: `rank` int32 values, each >= 0.
absl::StatusOr<DimVector> ReadFftLength(const Tensor& t, int rank, const char* op) {
  if (t.rank() != 1 || t.NumElements() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": fft_length must be a vector of ", rank, " elements, but has shape ", t.shape().DebugString()));
  }
  DimVector out;
  for (int i = 0; i < rank; ++i) {
    const int64_t v = t.data<int32_t>()[i];
    if (v < 0) return absl::InvalidArgumentError(absl::StrCat(op, ": fft_length[", i, "] must >= 0, but got: ", v));
    out.push_back(v);
  }
  return out;
}

// Copies the arrays of `src` (layout `from`) into those of `dst` (layout `to`, same outer):
// each inner dim cropped to the smaller of the two; the rest of dst is left as it is.
template <typename S, typename D>
void CopyCropped(const S* src, const FftLayout& from, D* dst, const FftLayout& to) {
  const int rank = static_cast<int>(from.dims.size());
  DimVector common(rank);
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    common[d] = std::min(from.dims[d], to.dims[d]);
    count *= common[d];
  }
  if (count == 0) return;
  const int64_t from_inner = from.inner(), to_inner = to.inner();
  const int64_t row = common[rank - 1], rows = count / row;
  for (int64_t a = 0; a < from.outer; ++a) {
    for (int64_t r = 0; r < rows; ++r) {
      // r's coordinates in the common dims but the last, as offsets into both layouts.
      int64_t rem = r, src_off = 0, dst_off = 0, src_stride = from.dims[rank - 1], dst_stride = to.dims[rank - 1];
      for (int d = rank - 2; d >= 0; --d) {
        const int64_t c = rem % common[d];
        rem /= common[d];
        src_off += c * src_stride;
        dst_off += c * dst_stride;
        src_stride *= from.dims[d];
        dst_stride *= to.dims[d];
      }
      const S* s = src + a * from_inner + src_off;
      D* o = dst + a * to_inner + dst_off;
      for (int64_t k = 0; k < row; ++k) o[k] = D(s[k]);
    }
  }
}

template <typename C, int kRank, bool kInverse>
class ComplexFftOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_ASSIGN_OR_RETURN(FftLayout layout, LayoutOf(x.shape(), kRank, op().c_str()));
    const C* in = x.data<C>();
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(x.shape()), DTypeOf<C>::value));
    C* data = out->data<C>();
    std::copy(in, in + x.NumElements(), data);
    for (int axis = 0; axis < kRank; ++axis) TransformAxis(ctx, data, layout, axis, kInverse);
    return absl::OkStatus();
  }
};

// RFFT's and IRFFT's inputs: the arrays of input 0 and fft_length (input 1).
struct RealFftInputs {
  FftLayout layout;
  DimVector fft_length;
};
absl::StatusOr<RealFftInputs> ReadRealFftInputs(OpKernelContext& ctx, int rank, const std::string& op) {
  RealFftInputs in;
  TW_ASSIGN_OR_RETURN(in.layout, LayoutOf(ctx.input(0).shape(), rank, op.c_str()));
  TW_ASSIGN_OR_RETURN(in.fft_length, ReadFftLength(ctx.input(1), rank, op.c_str()));
  return in;
}

// The output shape: the input's outer dims, then `inner`.
TensorShape WithInner(const TensorShape& in, int rank, const DimVector& inner) {
  DimVector dims(in.dims().begin(), in.dims().end() - rank);
  dims.insert(dims.end(), inner.begin(), inner.end());
  return TensorShape(dims);
}

template <typename C, int kRank>
class RfftOp : public OpKernel {
 public:
  using R = typename C::value_type;
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_ASSIGN_OR_RETURN(RealFftInputs in, ReadRealFftInputs(ctx, kRank, op()));
    const DimVector& fft_length = in.fft_length;
    FftLayout full{in.layout.outer, fft_length};
    DimVector half = fft_length;
    half.back() = fft_length.back() / 2 + 1;
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, WithInner(x.shape(), kRank, half), DTypeOf<C>::value));
    C* o = out->data<C>();
    std::fill(o, o + out->NumElements(), C(0));
    if (full.inner() == 0 || full.outer == 0) return absl::OkStatus();
    TW_ASSIGN_OR_RETURN(Tensor buffer, Tensor::Allocate(DTypeOf<C>::value, WithInner(x.shape(), kRank, fft_length)));
    C* data = buffer.data<C>();
    std::fill(data, data + buffer.NumElements(), C(0));
    CopyCropped(x.data<R>(), in.layout, data, full);
    for (int axis = 0; axis < kRank; ++axis) TransformAxis(ctx, data, full, axis, false);
    CopyCropped(data, full, o, FftLayout{full.outer, half});
    return absl::OkStatus();
  }
};

template <typename C, int kRank>
class IrfftOp : public OpKernel {
 public:
  using R = typename C::value_type;
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_ASSIGN_OR_RETURN(RealFftInputs in, ReadRealFftInputs(ctx, kRank, op()));
    const DimVector& fft_length = in.fft_length;
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, WithInner(x.shape(), kRank, fft_length), DTypeOf<R>::value));
    FftLayout full{in.layout.outer, fft_length};
    if (out->NumElements() == 0) return absl::OkStatus();
    TW_ASSIGN_OR_RETURN(Tensor buffer, Tensor::Allocate(DTypeOf<C>::value, out->shape()));
    C* data = buffer.data<C>();
    std::fill(data, data + buffer.NumElements(), C(0));
    const int64_t length = fft_length.back(), half = length / 2 + 1;
    // The input cropped to fft_length, and on the last axis to its non-negative frequencies.
    CopyCropped(x.data<C>(), in.layout, data, full);
    ZeroFrom(data, full, half);
    for (int axis = 0; axis + 1 < kRank; ++axis) TransformAxis(ctx, data, full, axis, true);
    // Negative frequencies: X[t] = conj(X[length - t]) along the last axis.
    const int64_t lines = full.outer * (full.inner() / length);
    for (int64_t l = 0; l < lines; ++l) {
      C* line = data + l * length;
      for (int64_t t = half; t < length; ++t) line[t] = std::conj(line[length - t]);
    }
    TransformAxis(ctx, data, full, kRank - 1, true);
    R* o = out->data<R>();
    for (int64_t i = 0; i < out->NumElements(); ++i) o[i] = data[i].real();
    return absl::OkStatus();
  }

 private:
  // Clears what CopyCropped put beyond the first `half` entries of each last-axis line.
  static void ZeroFrom(C* data, const FftLayout& full, int64_t half) {
    const int64_t length = full.dims.back();
    if (half >= length) return;
    const int64_t lines = full.outer * (full.inner() / length);
    for (int64_t l = 0; l < lines; ++l) std::fill(data + l * length + half, data + (l + 1) * length, C(0));
  }
};

// Registers K for complex64 and complex128 under the type attr Tcomplex; for RFFT and
// IRFFT Treal must be the complex type's half.
template <template <typename> class K>
void RegisterBoth(KernelRegistry& r, const char* op) {
  const KernelFactory make = ComplexTypedFactory<K>("Tcomplex");
  r.Register({op, kDeviceCpu,
              [make](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
                TW_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> k, make(c));
                if (c.attrs().count("Treal")) {
                  DType complex = DType::kInvalid;
                  c.GetAttr("Tcomplex", &complex);
                  TW_RETURN_IF_ERROR(CheckPair(c, "Treal", complex, RealOf(complex)));
                }
                return k;
              },
              "Tcomplex", ComplexTypes()});
}

template <int kRank, bool kInverse>
struct ComplexFft {
  template <typename C>
  using Op = ComplexFftOp<C, kRank, kInverse>;
};
template <int kRank>
struct RealFft {
  template <typename C>
  using Forward = RfftOp<C, kRank>;
  template <typename C>
  using Inverse = IrfftOp<C, kRank>;
};

}  // namespace

void RegisterFftKernels(KernelRegistry& r) {
  RegisterBoth<ComplexFft<1, false>::Op>(r, "FFT");
  RegisterBoth<ComplexFft<1, true>::Op>(r, "IFFT");
  RegisterBoth<ComplexFft<2, false>::Op>(r, "FFT2D");
  RegisterBoth<ComplexFft<2, true>::Op>(r, "IFFT2D");
  RegisterBoth<ComplexFft<3, false>::Op>(r, "FFT3D");
  RegisterBoth<ComplexFft<3, true>::Op>(r, "IFFT3D");
  RegisterBoth<RealFft<1>::Forward>(r, "RFFT");
  RegisterBoth<RealFft<1>::Inverse>(r, "IRFFT");
  RegisterBoth<RealFft<2>::Forward>(r, "RFFT2D");
  RegisterBoth<RealFft<2>::Inverse>(r, "IRFFT2D");
  RegisterBoth<RealFft<3>::Forward>(r, "RFFT3D");
  RegisterBoth<RealFft<3>::Inverse>(r, "IRFFT3D");
}

}  // namespace tw
