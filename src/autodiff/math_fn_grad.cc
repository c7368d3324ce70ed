// Gradients of the unary functions of math_unary_fn_kernels.cc and the binary ones of
// math_binary_fn_kernels.cc, written as TensorFlow's math_grad.py writes them (so that
// values and second derivatives agree), and the ops TensorFlow gives no gradient.
#include "absl/strings/str_cat.h"
#include "autodiff/math_grad.h"
#include "graph/graph.h"

namespace tw::math_grad {
namespace {

using grad::Op;
using grad::ScalarLike;

// dx from the op's input x (or output y) and the incoming gradient g.
using UnaryGrad = Output (*)(const Output& v, const Output& g);

GradFn FromInput(UnaryGrad f) {
  return [f](const GradContext& ctx) { return std::vector<Output>{f(ctx.input(0), ctx.grad_outputs[0])}; };
}

GradFn FromOutput(UnaryGrad f) {
  return [f](const GradContext& ctx) { return std::vector<Output>{f(ctx.output(0), ctx.grad_outputs[0])}; };
}

Output Reciprocal(const Output& x) { return Op("Reciprocal", {x}); }

// 1 / sqrt(1 - x^2), Asin's and Acos's derivative up to sign.
Output InvSqrtOneMinusSquare(const Output& x) {
  return Reciprocal(sqrt(ScalarLike(x, 1) - square(x)));
}

// The gradient of a binary op whose first input gets none (Zeta, Polygamma).
GradFn SecondOnly(Output (*partial)(const Output& in0, const Output& in1)) {
  return [partial](const GradContext& ctx) {
    const Output gx = partial(ctx.input(0), ctx.input(1)) * ctx.grad_outputs[0];
    return std::vector<Output>{Output(), grad::Unbroadcast(gx, ctx.input(1))};
  };
}

// d/da and d/dx of Igamma(a, x) = P(a, x); d/dx is exp(-x + (a - 1) log x - lgamma(a)),
// evaluated in log space as TensorFlow does (Gamma(a) overflows early).
std::vector<Output> IgammaPartials(const GradContext& ctx, double sign) {
  const Output& g = ctx.grad_outputs[0];
  const Output a = ctx.input(0), x = ctx.input(1);
  const Output partial_a = Op("IgammaGradA", {a, x});
  const Output partial_x = exp(negative(x) + (a - 1.0) * log(x) - Op("Lgamma", {a}));
  return grad::UnbroadcastBoth(ctx, (partial_a * g) * sign, (partial_x * g) * sign);
}

// Xdivy, Xlogy and Xlog1py: d/dx is the op itself with x replaced by (x != 0), so it is
// 0 where x is 0; d/dy is x / y for Xlogy, x / (y + 1) for Xlog1py, -x / y^2 for Xdivy.
GradFn XopGrad(const char* op) {
  return [op = std::string(op)](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output x = ctx.input(0), y = ctx.input(1);
    const Output not_zero_x = cast(not_equal(x, ScalarLike(x, 0)), x.dtype());
    const Output partial_x = Op(op, {not_zero_x, y});
    Output partial_y;
    if (op == "Xlogy") {
      partial_y = Op("Xdivy", {x, y});
    } else if (op == "Xlog1py") {
      partial_y = Op("Xdivy", {x, y + 1.0});
    } else {
      partial_y = Op("Xdivy", {negative(x), square(y)});
    }
    return grad::UnbroadcastBoth(ctx, partial_x * g, partial_y * g);
  };
}

}  // namespace

void RegisterFnGradients(GradientRegistry& r) {
  // Trigonometric and hyperbolic functions.
  r.Register("Sin", FromInput([](const Output& x, const Output& g) { return g * Op("Cos", {x}); }));
  r.Register("Cos", FromInput([](const Output& x, const Output& g) { return negative(g) * Op("Sin", {x}); }));
  r.Register("Tan", FromInput([](const Output& x, const Output& g) { return square(Reciprocal(Op("Cos", {x}))) * g; }));
  r.Register("Asin", FromInput([](const Output& x, const Output& g) { return g * InvSqrtOneMinusSquare(x); }));
  r.Register("Acos",
             FromInput([](const Output& x, const Output& g) { return negative(g) * InvSqrtOneMinusSquare(x); }));
  r.Register("Atan", FromInput([](const Output& x, const Output& g) {
               return g * Reciprocal(ScalarLike(x, 1) + square(x));
             }));
  r.Register("Sinh", FromInput([](const Output& x, const Output& g) { return g * Op("Cosh", {x}); }));
  r.Register("Cosh", FromInput([](const Output& x, const Output& g) { return g * Op("Sinh", {x}); }));
  r.Register("Asinh", FromOutput([](const Output& y, const Output& g) { return g / Op("Cosh", {y}); }));
  r.Register("Acosh", FromOutput([](const Output& y, const Output& g) { return g / Op("Sinh", {y}); }));
  r.Register("Atanh", FromInput([](const Output& x, const Output& g) {
               return g * Reciprocal(ScalarLike(x, 1) - square(x));
             }));
  // Inv is Reciprocal's older name: d (1/x) = -y^2.
  r.Register("Inv", FromOutput([](const Output& y, const Output& g) { return negative(g) * square(y); }));

  // Exponentials, logarithms and the special functions.
  r.Register("Expm1", FromInput([](const Output& x, const Output& g) { return g * exp(x); }));
  r.Register("Log1p", FromInput([](const Output& x, const Output& g) { return g * Reciprocal(x + 1.0); }));
  r.Register("Erf", FromInput([](const Output& x, const Output& g) {
               return (g * 1.1283791670955126) * exp(negative(square(x)));  // 2 / sqrt(pi)
             }));
  r.Register("Erfc", FromInput([](const Output& x, const Output& g) {
               return (g * -1.1283791670955126) * exp(negative(square(x)));
             }));
  r.Register("Lgamma", FromInput([](const Output& x, const Output& g) { return g * Op("Digamma", {x}); }));
  r.Register("Digamma", FromInput([](const Output& x, const Output& g) {
               return g * Op("Polygamma", {ScalarLike(x, 1), x});
             }));

  // Binary functions.
  r.Register("Atan2", [](const GradContext& ctx) {
    const Output y = ctx.input(0), x = ctx.input(1);
    const Output g_inv = ctx.grad_outputs[0] / (square(y) + square(x));
    return grad::UnbroadcastBoth(ctx, x * g_inv, negative(y) * g_inv);
  });
  r.Register("DivNoNan", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output x = ctx.input(0), y = ctx.input(1);
    const Output gy = g * Op("DivNoNan", {Op("DivNoNan", {negative(x), y}), y});
    return grad::UnbroadcastBoth(ctx, Op("DivNoNan", {g, y}), gy);
  });
  for (const char* op : {"Xdivy", "Xlogy", "Xlog1py"}) r.Register(op, XopGrad(op));
  r.Register("MulNoNan", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    return grad::UnbroadcastBoth(ctx, Op("MulNoNan", {g, ctx.input(1)}), Op("MulNoNan", {ctx.input(0), g}));
  });
  // Betainc: d/dx only (TensorFlow has none for a and b), in log space:
  // x^(a-1) (1-x)^(b-1) / B(a, b).
  r.Register("Betainc", [](const GradContext& ctx) {
    const Output a = ctx.input(0), b = ctx.input(1), x = ctx.input(2);
    const Output log_beta = Op("Lgamma", {a}) + Op("Lgamma", {b}) - Op("Lgamma", {a + b});
    const Output partial_x = exp(Op("Xlog1py", {b - 1.0, negative(x)}) + Op("Xlogy", {a - 1.0, x}) - log_beta);
    return std::vector<Output>{Output(), Output(), grad::Unbroadcast(partial_x * ctx.grad_outputs[0], x)};
  });
  r.Register("Igamma", [](const GradContext& ctx) { return IgammaPartials(ctx, 1.0); });
  r.Register("Igammac", [](const GradContext& ctx) { return IgammaPartials(ctx, -1.0); });
  // TensorFlow has no derivative with respect to Zeta's x or Polygamma's n.
  r.Register("Zeta", SecondOnly([](const Output& x, const Output& q) {
               return negative(x) * Op("Zeta", {x + 1.0, q});
             }));
  r.Register("Polygamma",
             SecondOnly([](const Output& n, const Output& x) { return Op("Polygamma", {n + 1.0, x}); }));

  // The gradient is checked too, its message saying so. TensorFlow's formats the attr as
  // Python bytes (b'msg'); so does ours, for the same message text.
  r.Register("CheckNumerics", [](const GradContext& ctx) {
    auto message = GetStringAttr(ctx.attrs(), "message");
    const std::string text = absl::StrCat("Not a number (NaN) or infinity (Inf) values detected in gradient. b'",
                                          message.ok() ? *message : "", "'");
    return std::vector<Output>{Op("CheckNumerics", {ctx.grad_outputs[0]}, {{"message", MakeAttr(text)}})};
  });

  // Print passes its first input through; the data get none.
  r.Register("Print", [](const GradContext& ctx) {
    std::vector<Output> grads(ctx.op.node()->num_inputs());
    grads[0] = ctx.grad_outputs[0];
    return grads;
  });

  // Steps, predicates and bit operations: TensorFlow gives none (or None) either.
  // TensorFlow registers none at all for Mod, TruncateMod and IgammaGradA (LookupError).
  for (const char* op : {"Floor", "Ceil", "Round", "Rint", "IsFinite", "IsInf", "IsNan", "TruncateDiv",
                         "TruncateMod", "Mod", "IgammaGradA", "All", "Any",
                         "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift", "Invert"}) {
    r.RegisterNoGradient(op);
  }
}

}  // namespace tw::math_grad
