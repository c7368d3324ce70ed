// Gradients of the elementwise math ops: binary arithmetic, Select, Cast, AddN and the
// ops with no gradient. Unary functions are in math_unary_grad.cc.
#include "autodiff/math_grad.h"

#include "graph/graph.h"

namespace tw {
namespace math_grad {

Output Masked(const Output& mask, const Output& g, bool where_true) {
  const Output zero = grad::ScalarLike(g, 0);
  return where_true ? grad::Op("SelectV2", {mask, g, zero}) : grad::Op("SelectV2", {mask, zero, g});
}

namespace {

std::vector<Output> NoGradients(const GradContext& ctx) {
  return std::vector<Output>(ctx.op.node()->num_inputs());
}

std::vector<Output> AddGrad(const GradContext& ctx) {
  return grad::UnbroadcastBoth(ctx, ctx.grad_outputs[0], ctx.grad_outputs[0]);
}

std::vector<Output> SubGrad(const GradContext& ctx) {
  return grad::UnbroadcastBoth(ctx, ctx.grad_outputs[0], negative(ctx.grad_outputs[0]));
}

std::vector<Output> MulGrad(const GradContext& ctx) {
  const Output& g = ctx.grad_outputs[0];
  return grad::UnbroadcastBoth(ctx, g * grad::ConjIfComplex(ctx.input(1)), grad::ConjIfComplex(ctx.input(0)) * g);
}

// z = x / y: dz/dx = 1 / y, dz/dy = -x / y^2 (conjugated for complex, as TensorFlow).
// Integer Div truncates, so it has none.
std::vector<Output> DivGrad(const GradContext& ctx) {
  const DType t = ctx.input(0).dtype();
  if (!IsFloating(t) && !IsComplex(t)) return NoGradients(ctx);
  const Output& g = ctx.grad_outputs[0];
  const Output x = ctx.input(0), y = ctx.input(1);
  return grad::UnbroadcastBoth(ctx, g / grad::ConjIfComplex(y), g * grad::ConjIfComplex(negative(x) / y / y));
}

// z = x - floor(x / y) * y: dz/dx = 1, dz/dy = -floor(x / y) (as TensorFlow; the jumps of
// floor are ignored). Integer FloorMod has none.
std::vector<Output> FloorModGrad(const GradContext& ctx) {
  if (!IsFloating(ctx.input(0).dtype())) return NoGradients(ctx);
  const Output& g = ctx.grad_outputs[0];
  const Output floor_xy = grad::Op("FloorDiv", {ctx.input(0), ctx.input(1)});
  return grad::UnbroadcastBoth(ctx, g, g * negative(floor_xy));
}

// The gradient goes to the input that was selected; on ties to x, as in TensorFlow
// (Maximum selects x where x >= y, Minimum where x <= y).
GradFn MaxMinGrad(const char* x_selected_op) {
  return [x_selected_op](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output mask = grad::Op(x_selected_op, {ctx.input(0), ctx.input(1)});
    return grad::UnbroadcastBoth(ctx, Masked(mask, g, true), Masked(mask, g, false));
  };
}

// z = x^y: dz/dx = y x^(y-1), dz/dy = z log(x). log(x) is taken as 0 where x <= 0 (as
// TensorFlow does), and log sees 1 there so that its own gradient is not 0/0 = NaN in
// second-order gradients.
std::vector<Output> PowGrad(const GradContext& ctx) {
  const Output& g = ctx.grad_outputs[0];
  const Output x = ctx.input(0), y = ctx.input(1), z = ctx.output(0);
  const Output gx = g * y * pow(x, y - 1.0);
  const Output positive = greater(x, grad::ScalarLike(x, 0));
  const Output safe_x = grad::Op("SelectV2", {positive, x, grad::ScalarLike(x, 1)});
  const Output log_x = Masked(positive, log(safe_x));
  return grad::UnbroadcastBoth(ctx, gx, g * z * log_x);
}

// z = (x - y)^2: dz/dx = 2 (x - y) = -dz/dy.
std::vector<Output> SquaredDifferenceGrad(const GradContext& ctx) {
  const Output gx = (ctx.grad_outputs[0] * 2.0) * (ctx.input(0) - ctx.input(1));
  return grad::UnbroadcastBoth(ctx, gx, negative(gx));
}

// Select V1 picks whole rows when the condition is a vector over t's first dim and t and
// e share a shape of rank >= 2 (see SelectOp). Returns a condition that SelectV2 applies
// the same way: `c` itself when rows are ruled out statically, `c` reshaped to
// [n, 1, ...] when rows are certain, otherwise the forward op run on all-true t and
// all-false e, which makes the kernel's own choice at run time.
Output RowSelectCondition(const Output& c, const Output& t, const Output& e) {
  const PartialShape cs = c.shape(), ts = t.shape(), es = e.shape();
  if ((cs.known_rank() && cs.rank() != 1) || (ts.known_rank() && ts.rank() < 2)) return c;
  // As far as is known now, c is a vector and t has rank >= 2.
  const int64_t n = cs.known_rank() ? cs.dim(0) : -1, rows = ts.known_rank() ? ts.dim(0) : -1;
  const bool shapes_known = ts.IsFullyDefined() && es.IsFullyDefined();
  if ((shapes_known && ts != es) || (n >= 0 && rows >= 0 && n != rows)) return c;
  if (shapes_known && n >= 0) {
    Axes dims(ts.rank(), 1);
    dims[0] = n;
    return reshape(c, dims);
  }
  Graph& g = *c.graph();
  const Output all_true = grad::Op("Fill", {shape(t), constant(g, true)});
  const Output all_false = grad::Op("Fill", {shape(e), constant(g, false)});
  return grad::Op("Select", {c, all_true, all_false});
}

// No gradient for the condition; each branch gets g where it was chosen and zeros
// elsewhere, reduced to its own shape when it was broadcast.
GradFn SelectGrad(bool row_select) {
  return [row_select](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output c = ctx.input(0), t = ctx.input(1), e = ctx.input(2);
    const Output mask = row_select ? RowSelectCondition(c, t, e) : c;
    return std::vector<Output>{Output(), grad::Unbroadcast(Masked(mask, g, true), t),
                               grad::Unbroadcast(Masked(mask, g, false), e)};
  };
}

// Between floating and complex types the gradient is cast back to the source type (a
// complex one to a real source keeps its real part); a cast from or to an integer or bool
// type passes no gradient.
std::vector<Output> CastGrad(const GradContext& ctx) {
  const DType src = ctx.input(0).dtype(), dst = ctx.output(0).dtype();
  auto differentiable = [](DType t) { return IsFloating(t) || IsComplex(t); };
  if (!differentiable(src) || !differentiable(dst)) return {Output()};
  return {cast(ctx.grad_outputs[0], src)};
}

std::vector<Output> AddNGrad(const GradContext& ctx) {
  return std::vector<Output>(ctx.op.node()->num_inputs(), ctx.grad_outputs[0]);
}

}  // namespace
}  // namespace math_grad

void RegisterMathGradients(GradientRegistry& r) {
  namespace m = math_grad;
  r.Register("Add", m::AddGrad);
  r.Register("AddV2", m::AddGrad);
  r.Register("Sub", m::SubGrad);
  r.Register("Mul", m::MulGrad);
  r.Register("Div", m::DivGrad);
  r.Register("RealDiv", m::DivGrad);
  r.Register("FloorMod", m::FloorModGrad);
  r.Register("Maximum", m::MaxMinGrad("GreaterEqual"));
  r.Register("Minimum", m::MaxMinGrad("LessEqual"));
  r.Register("Pow", m::PowGrad);
  r.Register("SquaredDifference", m::SquaredDifferenceGrad);
  r.Register("Select", m::SelectGrad(/*row_select=*/true));
  r.Register("SelectV2", m::SelectGrad(/*row_select=*/false));
  r.Register("Cast", m::CastGrad);
  r.Register("AddN", m::AddNGrad);
  // FloorDiv is a step function: TensorFlow gives it no gradient either.
  for (const char* op : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
                         "LogicalOr", "LogicalNot", "Sign", "FloorDiv"}) {
    r.RegisterNoGradient(op);
  }
  m::RegisterUnaryGradients(r);
  m::RegisterFnGradients(r);
}

}  // namespace tw
