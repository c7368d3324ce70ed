// TensorFlow's FFT ops (spectral_ops.cc there): FFT / IFFT over the innermost 1, 2 or 3
// dims of a complex tensor, RFFT (real in, the non-negative frequencies out) and IRFFT (the
// inverse, Hermitian symmetry assumed), each with an fft_length input.
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

constexpr char kComplex[] = "Tcomplex: {complex64, complex128} = complex64";
constexpr char kReal[] = "Treal: {float32, float64} = float32";

ShapeFn ComplexFftShape(int rank) {
  return [rank](InferenceContext& c) -> absl::Status {
    TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, rank));
    c.set_output(0, c.input_shape(0));
    return absl::OkStatus();
  };
}

// The input's shape with its innermost `rank` dims replaced: by fft_length forward, with the
// last one fft_length / 2 + 1; by fft_length as it is inverse. Unknown while fft_length is.
ShapeFn RealFftShape(int rank, bool forward) {
  return [rank, forward](InferenceContext& c) -> absl::Status {
    TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, rank));
    TW_RETURN_IF_ERROR(c.WithRank(1, 1));
    const PartialShape& lengths = c.input_shape(1);
    if (lengths.known_rank() && lengths.dim(0) >= 0 && lengths.dim(0) != rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("fft_length must have ", rank, " elements, but has shape ", lengths.DebugString()));
    }
    const PartialShape& in = c.input_shape(0);
    if (!in.known_rank()) {
      c.set_output(0, PartialShape::UnknownRank());
      return absl::OkStatus();
    }
    DimVector dims(in.dims().begin(), in.dims().end());
    std::vector<int64_t> fft_length;
    const bool known = c.ConstantIntVector(1, &fft_length);
    for (int i = 0; i < rank; ++i) {
      int64_t& d = dims[dims.size() - rank + i];
      if (!known) {
        d = -1;
        continue;
      }
      if (fft_length[i] < 0) {
        return absl::InvalidArgumentError(absl::StrCat("fft_length[", i, "] must be >= 0, but got ", fft_length[i]));
      }
      d = (forward && i == rank - 1) ? fft_length[i] / 2 + 1 : fft_length[i];
    }
    c.set_output(0, PartialShape(dims));
    return absl::OkStatus();
  };
}

}  // namespace

void RegisterFftOps(OpRegistry& r) {
  const char* names[3][2] = {{"FFT", "IFFT"}, {"FFT2D", "IFFT2D"}, {"FFT3D", "IFFT3D"}};
  const char* real_names[3][2] = {{"RFFT", "IRFFT"}, {"RFFT2D", "IRFFT2D"}, {"RFFT3D", "IRFFT3D"}};
  for (int rank = 1; rank <= 3; ++rank) {
    for (const char* op : names[rank - 1]) {
      r.Register(OpDefBuilder(op)
                     .Input("input: Tcomplex")
                     .Output("output: Tcomplex")
                     .Attr(kComplex)
                     .SetShapeFn(ComplexFftShape(rank)));
    }
    r.Register(OpDefBuilder(real_names[rank - 1][0])
                   .Input("input: Treal")
                   .Input("fft_length: int32")
                   .Output("output: Tcomplex")
                   .Attr(kReal)
                   .Attr(kComplex)
                   .SetShapeFn(RealFftShape(rank, true)));
    r.Register(OpDefBuilder(real_names[rank - 1][1])
                   .Input("input: Tcomplex")
                   .Input("fft_length: int32")
                   .Output("output: Treal")
                   .Attr(kReal)
                   .Attr(kComplex)
                   .SetShapeFn(RealFftShape(rank, false)));
  }
}

}  // namespace tw
