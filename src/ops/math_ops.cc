// Elementwise math: binary arithmetic and comparisons with NumPy broadcasting, logical
// ops, unary functions and their gradient helpers, Select, Cast and AddN.
#include <initializer_list>
#include <string>

#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// As TensorFlow's op definitions: they admit the small types (half, int8, ...) that only
// some kernels support; the others fail at placement with "no CPU kernel".
constexpr char kNumeric[] = "T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16}";
constexpr char kFloat[] = "T: {float16, float32, float64}";
constexpr char kNumericOrComplex[] =
    "T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16, complex64, complex128}";
constexpr char kFloatOrComplex[] = "T: {float16, float32, float64, complex64, complex128}";
constexpr char kNumericOrBool[] =
    "T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16, bool}";
constexpr char kAllPodTypes[] =
    "{float16, float32, float64, int8, int16, int32, int64, uint8, uint16, bool, complex64, complex128}";

// NumPy broadcast of partial shapes. Unknown dims take the known size of another input
// (they must be 1 or equal to it at run time). The error text matches the kernels':
// "Incompatible shapes: [2,3] vs. [4]".
absl::StatusOr<PartialShape> BroadcastAll(std::initializer_list<const PartialShape*> shapes) {
  int rank = 0;
  for (const PartialShape* s : shapes) {
    if (!s->known_rank()) return PartialShape::UnknownRank();
    rank = std::max(rank, s->rank());
  }
  DimVector dims(rank);
  for (int d = 0; d < rank; ++d) {
    int64_t size = 1;
    bool unknown = false;
    for (const PartialShape* s : shapes) {
      const int i = s->rank() - rank + d;
      const int64_t v = i >= 0 ? s->dim(i) : 1;
      if (v == 1) continue;
      if (v < 0) {
        unknown = true;
      } else if (size != 1 && size != v) {
        std::string msg = "Incompatible shapes: ";
        const char* sep = "";
        for (const PartialShape* t : shapes) {
          absl::StrAppend(&msg, sep, t->DebugString());
          sep = " vs. ";
        }
        return absl::InvalidArgumentError(msg);
      } else {
        size = v;
      }
    }
    dims[d] = size != 1 ? size : (unknown ? -1 : 1);
  }
  return PartialShape(dims);
}

absl::Status BroadcastShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(PartialShape out, BroadcastAll({&c.input_shape(0), &c.input_shape(1)}));
  c.set_output(0, out);
  return absl::OkStatus();
}

// Equal/NotEqual with incompatible_shape_error = false give a scalar when the shapes do
// not broadcast, which is only known once both shapes are.
absl::Status EqualityShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(bool shape_error, GetBoolAttr(c.attrs(), "incompatible_shape_error"));
  if (shape_error) return BroadcastShapeFn(c);
  const PartialShape& x = c.input_shape(0);
  const PartialShape& y = c.input_shape(1);
  if (!x.IsFullyDefined() || !y.IsFullyDefined()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  auto out = BroadcastAll({&x, &y});
  c.set_output(0, out.ok() ? *out : PartialShape({}));
  return absl::OkStatus();
}

// Two inputs of one shape (the gradient helpers); names are used in the error.
ShapeFn SameShapeFn(const char* name0, const char* name1) {
  return [name0, name1](InferenceContext& c) -> absl::Status {
    auto merged = c.input_shape(0).Merge(c.input_shape(1));
    if (!merged.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name0, " and ", name1, " must have the same shape, got ",
                       c.input_shape(0).DebugString(), " and ", c.input_shape(1).DebugString()));
    }
    c.set_output(0, *merged);
    return absl::OkStatus();
  };
}

// Select: TensorFlow 1's row select (condition a vector over the first dim of t and e,
// which share a shape of rank >= 2), else NumPy broadcasting of all three. SelectV2 only
// broadcasts. Mirrors SelectOp in math_misc_kernels.cc.
ShapeFn SelectShapeFn(bool row_select) {
  return [row_select](InferenceContext& c) -> absl::Status {
    const PartialShape& cond = c.input_shape(0);
    const PartialShape& t = c.input_shape(1);
    const PartialShape& e = c.input_shape(2);
    if (row_select && cond.rank() == 1 && t.rank() >= 2) {
      auto te = t.Merge(e);
      const int64_t n = cond.dim(0), rows = t.dim(0);
      if (te.ok() && (n < 0 || rows < 0 || n == rows)) {
        // Whether rows or broadcasting apply at run time, the output has t's shape.
        c.set_output(0, *te);
        return absl::OkStatus();
      }
    }
    TW_ASSIGN_OR_RETURN(PartialShape out, BroadcastAll({&cond, &t, &e}));
    c.set_output(0, out);
    return absl::OkStatus();
  };
}

absl::Status AddNShapeFn(InferenceContext& c) {
  PartialShape merged = c.input_shape(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    auto m = merged.Merge(c.input_shape(i));
    if (!m.ok()) {
      int j = 0;
      while (j < i && c.input_shape(j).IsCompatibleWith(c.input_shape(i))) ++j;
      return absl::InvalidArgumentError(
          absl::StrCat("AddN inputs must have the same shape: inputs[", i, "] has shape ",
                       c.input_shape(i).DebugString(), " but inputs[", j, "] has shape ",
                       c.input_shape(j).DebugString()));
    }
    merged = *m;
  }
  c.set_output(0, merged);
  return absl::OkStatus();
}

void Binary(OpRegistry& r, const char* op, const char* types) {
  r.Register(OpDefBuilder(op).Input("x: T").Input("y: T").Output("z: T").Attr(types).SetShapeFn(
      BroadcastShapeFn));
}

// A broadcasting binary op whose inputs TensorFlow names otherwise (Atan2's y and x, ...).
void NamedBinary(OpRegistry& r, const char* op, const char* in0, const char* in1, const char* types) {
  r.Register(OpDefBuilder(op)
                 .Input(absl::StrCat(in0, ": T"))
                 .Input(absl::StrCat(in1, ": T"))
                 .Output("z: T")
                 .Attr(types)
                 .SetShapeFn(BroadcastShapeFn));
}

void Compare(OpRegistry& r, const char* op) {
  r.Register(
      OpDefBuilder(op).Input("x: T").Input("y: T").Output("z: bool").Attr(kNumeric).SetShapeFn(
          BroadcastShapeFn));
}

void Unary(OpRegistry& r, const char* op, const char* types) {
  r.Register(OpDefBuilder(op).Input("x: T").Output("y: T").Attr(types).SetShapeFn(UnchangedShape));
}

}  // namespace

void RegisterCheckOps(OpRegistry& r);  // check_ops.cc

void RegisterMathOps(OpRegistry& r) {
  RegisterCheckOps(r);
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "Div"}) Binary(r, op, kNumericOrComplex);
  for (const char* op : {"FloorDiv", "FloorMod", "Maximum", "Minimum", "Pow"}) Binary(r, op, kNumeric);
  Binary(r, "RealDiv", kFloatOrComplex);
  Binary(r, "SquaredDifference", kFloat);

  for (const char* op : {"TruncateDiv", "TruncateMod", "Mod"}) Binary(r, op, kNumeric);
  for (const char* op : {"DivNoNan", "Xdivy", "Xlogy", "Xlog1py"}) Binary(r, op, kFloat);
  constexpr char kInteger[] = "T: {int8, int16, int32, int64, uint8, uint16}";
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"}) {
    Binary(r, op, kInteger);
  }
  Unary(r, "Invert", kInteger);
  constexpr char kFloat32Or64[] = "T: {float32, float64}";
  NamedBinary(r, "Atan2", "y", "x", kFloat);
  for (const char* op : {"Igamma", "Igammac", "IgammaGradA", "Polygamma"}) NamedBinary(r, op, "a", "x", kFloat32Or64);
  NamedBinary(r, "Zeta", "x", "q", kFloat32Or64);
  Binary(r, "MulNoNan", kFloat);
  // Betainc(a, b, x): one shape, scalars standing for any (as its kernel checks).
  r.Register(OpDefBuilder("Betainc")
                 .Input("a: T")
                 .Input("b: T")
                 .Input("x: T")
                 .Output("z: T")
                 .Attr(kFloat32Or64)
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   PartialShape merged = PartialShape::UnknownRank();
                   for (int i = 0; i < 3; ++i) {
                     const PartialShape& s = c.input_shape(i);
                     if (s.known_rank() && s.rank() == 0) continue;
                     auto m = merged.Merge(s);
                     if (!m.ok()) {
                       return absl::InvalidArgumentError(absl::StrCat("Betainc inputs are inconsistent: ",
                                                                      merged.DebugString(), " vs. ", s.DebugString()));
                     }
                     merged = *m;
                   }
                   const bool all_scalars = c.input_shape(0).known_rank() && c.input_shape(0).rank() == 0 &&
                                            c.input_shape(1).known_rank() && c.input_shape(1).rank() == 0 &&
                                            c.input_shape(2).known_rank() && c.input_shape(2).rank() == 0;
                   c.set_output(0, all_scalars ? PartialShape({}) : merged);
                   return absl::OkStatus();
                 }));

  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual"}) Compare(r, op);
  // TensorFlow's Equal, NotEqual, Select and SelectV2 also take strings.
  std::string or_string = kNumericOrBool;
  or_string.insert(or_string.rfind('}'), ", string");
  std::string or_string_complex = or_string;
  or_string_complex.insert(or_string_complex.rfind('}'), ", complex64, complex128");
  for (const char* op : {"Equal", "NotEqual"}) {
    r.Register(OpDefBuilder(op)
                   .Input("x: T")
                   .Input("y: T")
                   .Output("z: bool")
                   .Attr(or_string_complex)
                   .Attr("incompatible_shape_error: bool = true")
                   .SetShapeFn(EqualityShapeFn));
  }
  for (const char* op : {"LogicalAnd", "LogicalOr"}) {
    r.Register(OpDefBuilder(op).Input("x: bool").Input("y: bool").Output("z: bool").SetShapeFn(
        BroadcastShapeFn));
  }
  r.Register(
      OpDefBuilder("LogicalNot").Input("x: bool").Output("y: bool").SetShapeFn(UnchangedShape));

  for (const char* op : {"Neg", "Square"}) Unary(r, op, kNumericOrComplex);
  for (const char* op : {"Abs", "Sign"}) Unary(r, op, kNumeric);
  for (const char* op : {"Sqrt", "Exp", "Log", "Reciprocal"}) Unary(r, op, kFloatOrComplex);
  for (const char* op : {"Rsqrt", "Tanh", "Sigmoid"}) Unary(r, op, kFloat);
  for (const char* op : {"Inv", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
                         "Atanh", "Floor", "Ceil", "Rint", "Expm1", "Log1p", "Erf", "Erfc", "Lgamma", "Digamma"}) {
    Unary(r, op, kFloat);
  }
  Unary(r, "Round", kNumeric);  // Halves to even; integers unchanged.
  for (const char* op : {"IsFinite", "IsInf", "IsNan"}) {
    r.Register(OpDefBuilder(op).Input("x: T").Output("y: bool").Attr(kFloat).SetShapeFn(UnchangedShape));
  }
  // TensorFlow names Relu's arguments after what they are.
  r.Register(OpDefBuilder("Relu")
                 .Input("features: T")
                 .Output("activations: T")
                 .Attr(kNumeric)
                 .SetShapeFn(UnchangedShape));
  r.Register(OpDefBuilder("ReluGrad")
                 .Input("gradients: T")
                 .Input("features: T")
                 .Output("backprops: T")
                 .Attr(kNumeric)
                 .SetShapeFn(SameShapeFn("gradients", "features")));
  for (const char* op : {"SigmoidGrad", "TanhGrad"}) {
    r.Register(OpDefBuilder(op).Input("y: T").Input("dy: T").Output("z: T").Attr(kFloat).SetShapeFn(
        SameShapeFn("y", "dy")));
  }

  r.Register(OpDefBuilder("Select")
                 .Input("condition: bool")
                 .Input("t: T")
                 .Input("e: T")
                 .Output("output: T")
                 .Attr(or_string)
                 .SetShapeFn(SelectShapeFn(true)));
  r.Register(OpDefBuilder("SelectV2")
                 .Input("condition: bool")
                 .Input("t: T")
                 .Input("e: T")
                 .Output("output: T")
                 .Attr(or_string)
                 .SetShapeFn(SelectShapeFn(false)));
  r.Register(OpDefBuilder("Cast")
                 .Input("x: SrcT")
                 .Output("y: DstT")
                 .Attr(absl::StrCat("SrcT: ", kAllPodTypes))
                 .Attr(absl::StrCat("DstT: ", kAllPodTypes))
                 .Attr("Truncate: bool = false")
                 .SetShapeFn(UnchangedShape));
  r.Register(OpDefBuilder("AddN")
                 .Input("inputs: N * T")
                 .Output("sum: T")
                 .Attr("N: int >= 1")
                 .Attr(kNumericOrComplex)
                 .SetShapeFn(AddNShapeFn));
}

}  // namespace tw
