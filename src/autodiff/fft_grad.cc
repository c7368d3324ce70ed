// Gradients of the FFT ops. FFT and IFFT as TensorFlow's fft_ops.py: the other direction's
// transform scaled by the number of points. RFFT and IRFFT are real-linear maps whose
// adjoints are written directly (TensorFlow builds the same values from IRFFT / RFFT and
// correction terms): for RFFT, the gradient zero-extended to the full spectrum, inverse
// transformed, times the number of points, real part; for IRFFT, the RFFT of the gradient
// over the number of points, the frequencies that stand for two counted twice. Both then
// undo the kernel's crop or zero padding of the input to fft_length.
#include "autodiff/grad_util.h"
#include "tensor/complex_dtype.h"

namespace tw {
namespace {

constexpr const char* kComplexOps[3][2] = {{"FFT", "IFFT"}, {"FFT2D", "IFFT2D"}, {"FFT3D", "IFFT3D"}};
constexpr const char* kRealOps[3][2] = {{"RFFT", "IRFFT"}, {"RFFT2D", "IRFFT2D"}, {"RFFT3D", "IRFFT3D"}};

Output AsVector(const Output& scalar) { return reshape(scalar, Axes{1}); }

// The first rank(x) - `rank` dims of x's shape, and the last `rank`, as int32 vectors.
Output OuterDims(const Output& x, int rank) {
  Graph& g = *x.graph();
  return grad::Op("Slice", {grad::ShapeOf(x), grad::IntVector(g, {0}), AsVector(grad::RankOf(x) - grad::IntScalar(g, rank))});
}
Output InnerDims(const Output& x, int rank) {
  Graph& g = *x.graph();
  return grad::Op("Slice", {grad::ShapeOf(x), AsVector(grad::RankOf(x) - grad::IntScalar(g, rank)), grad::IntVector(g, {rank})});
}

// The product of x's innermost `rank` dims, as a scalar of `dtype`.
Output InnerSize(const Output& x, int rank, DType dtype) {
  return cast(grad::Op("Prod", {InnerDims(x, rank), grad::IntScalar(*x.graph(), 0)}), dtype);
}

// [[0, 0], ..., [0, 0], then `after` (an int32 vector of `rank`) as the pads after the last
// `rank` dims]: Pad's paddings for a tensor of rank(x).
Output PadInnerAfter(const Output& x, int rank, const Output& after) {
  Graph& g = *x.graph();
  const Output zeros_outer = grad::Op("Fill", {AsVector(grad::RankOf(x) - grad::IntScalar(g, rank)), grad::IntScalar(g, 0)});
  const Output before = concat({zeros_outer, grad::Op("ZerosLike", {after})}, 0);
  return stack({before, concat({zeros_outer, after}, 0)}, 1);
}

// `r` (inner dims fft_length) fitted back to the inner dims of `input`: cropped where the
// forward op padded the input, zero-padded where it cropped it.
Output FitToInput(const Output& r, const Output& input, const Output& fft_length, int rank) {
  const Output in_inner = InnerDims(input, rank);
  const Output common = minimum(in_inner, fft_length);
  const Output size = concat({OuterDims(input, rank), common}, 0);
  const Output cropped = grad::Op("Slice", {r, grad::Op("ZerosLike", {size}), size});
  return grad::Op("Pad", {cropped, PadInnerAfter(input, rank, in_inner - common)});
}

GradFn ComplexFftGrad(int rank, bool inverse) {
  return [rank, inverse](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output other = grad::Op(kComplexOps[rank - 1][inverse ? 0 : 1], {g});
    const Output n = InnerSize(g, rank, g.dtype());
    return std::vector<Output>{inverse ? other / n : other * n};
  };
}

GradFn RfftGrad(int rank) {
  return [rank](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    Graph& graph = *g.graph();
    const Output fft_length = ctx.input(1);
    // Zero-extend the last axis from fft_length / 2 + 1 to fft_length; the others are fft_length already.
    const Output have = InnerDims(g, rank);
    const Output full = grad::Op("Pad", {g, PadInnerAfter(g, rank, fft_length - have)});
    const Output inverse = grad::Op(kComplexOps[rank - 1][1], {full});
    const DType real = RealOf(g.dtype());
    const Output n = cast(grad::Op("Prod", {fft_length, grad::IntScalar(graph, 0)}), real);
    const Output r = grad::Op("Real", {inverse}, {{"Tout", MakeAttr(real)}}) * n;
    return std::vector<Output>{FitToInput(r, ctx.input(0), fft_length, rank), Output()};
  };
}

GradFn IrfftGrad(int rank) {
  return [rank](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    Graph& graph = *g.graph();
    const Output fft_length = ctx.input(1);
    const DType complex = ComplexOf(g.dtype());
    const Output spectrum = grad::Op(kRealOps[rank - 1][0], {g, fft_length}, {{"Tcomplex", MakeAttr(complex)}});
    // Weight 2 - [k == 0] - [2k == length] on frequency k of the last axis: 1 for the
    // zero and (even lengths) the middle frequency, 2 for those standing for a pair.
    const Output length = grad::Op("Reshape", {grad::Op("Slice", {fft_length, grad::IntVector(graph, {rank - 1}),
                                                                  grad::IntVector(graph, {1})}),
                                               grad::IntVector(graph, {})});
    const Output half = floordiv(length, grad::IntScalar(graph, 2)) + grad::IntScalar(graph, 1);
    const Output k = grad::Op("Range", {grad::IntScalar(graph, 0), half, grad::IntScalar(graph, 1)});
    const Output weight = grad::IntScalar(graph, 2) - cast(equal(k, grad::IntScalar(graph, 0)), DType::kInt32) -
                          cast(equal(k * 2, length), DType::kInt32);
    const Output n = grad::Op("Prod", {fft_length, grad::IntScalar(graph, 0)});
    const Output scale = cast(cast(weight, g.dtype()) / cast(n, g.dtype()), complex);
    const Output gx = spectrum * scale;
    // The kernel read fft_length on the other axes and fft_length / 2 + 1 on the last.
    const Output kept = concat({grad::Op("Slice", {fft_length, grad::IntVector(graph, {0}), grad::IntVector(graph, {rank - 1})}),
                                AsVector(half)},
                               0);
    return std::vector<Output>{FitToInput(gx, ctx.input(0), kept, rank), Output()};
  };
}

}  // namespace

void RegisterFftGradients(GradientRegistry& r) {
  for (int rank = 1; rank <= 3; ++rank) {
    r.Register(kComplexOps[rank - 1][0], ComplexFftGrad(rank, false));
    r.Register(kComplexOps[rank - 1][1], ComplexFftGrad(rank, true));
    r.Register(kRealOps[rank - 1][0], RfftGrad(rank));
    r.Register(kRealOps[rank - 1][1], IrfftGrad(rank));
  }
}

}  // namespace tw
