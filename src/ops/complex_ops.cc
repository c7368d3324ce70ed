// TensorFlow's complex-number ops (math_ops.cc there): Complex builds complex64/128 from
// real and imaginary parts; Real, Imag, Angle and ComplexAbs take them apart; Conj.
#include "ops/ops.h"

namespace tw {
namespace {

constexpr char kRealT[] = "T: {float32, float64} = float32";
constexpr char kComplexT[] = "T: {complex64, complex128} = complex64";
constexpr char kComplexTout[] = "Tout: {complex64, complex128} = complex64";
constexpr char kRealTout[] = "Tout: {float32, float64} = float32";

}  // namespace

void RegisterComplexOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Complex")
                 .Input("real: T")
                 .Input("imag: T")
                 .Output("out: Tout")
                 .Attr(kRealT)
                 .Attr(kComplexTout)
                 .SetShapeFn(BroadcastBinaryShape));
  for (const char* op : {"Real", "Imag", "Angle"}) {
    r.Register(OpDefBuilder(op)
                   .Input("input: T")
                   .Output("output: Tout")
                   .Attr(kComplexT)
                   .Attr(kRealTout)
                   .SetShapeFn(UnchangedShape));
  }
  r.Register(OpDefBuilder("ComplexAbs")
                 .Input("x: T")
                 .Output("y: Tout")
                 .Attr(kComplexT)
                 .Attr(kRealTout)
                 .SetShapeFn(UnchangedShape));
  r.Register(OpDefBuilder("Conj")
                 .Input("input: T")
                 .Output("output: T")
                 .Attr(kComplexT)
                 .SetShapeFn(UnchangedShape));
}

}  // namespace tw
