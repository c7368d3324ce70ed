#include "autodiff/grad_util.h"

#include "client/op_builder.h"
#include "graph/graph.h"

namespace tw::grad {

Output Op(const std::string& op, const std::vector<Output>& inputs, AttrMap attrs) {
  return inputs[0].graph()->AddOperation(op, op, inputs, attrs).output(0);
}

Output SumOver(const Output& x, const Output& axes, bool keep_dims) {
  return Op("Sum", {x, axes}, {{"keep_dims", MakeAttr(keep_dims)}});
}

Output ScalarLike(const Output& x, double value) { return scalar_like(x, value); }

Output ConjIfComplex(const Output& x) { return IsComplex(x.dtype()) ? Op("Conj", {x}) : x; }

Output Unbroadcast(const Output& grad, const Output& x) {
  const PartialShape xs = x.shape(), gs = grad.shape();
  if (xs.IsFullyDefined() && gs.IsFullyDefined() && xs == gs) return grad;
  Output x_shape = shape(x), g_shape = shape(grad);
  Operation args = x.graph()->AddOperation("BroadcastGradientArgs", "BroadcastGradientArgs",
                                           {x_shape, g_shape}, {});
  return reshape(SumOver(grad, args.output(0)), x_shape);
}

std::vector<Output> UnbroadcastBoth(const GradContext& ctx, const Output& gx, const Output& gy) {
  return {Unbroadcast(gx, ctx.input(0)), Unbroadcast(gy, ctx.input(1))};
}

std::vector<Output> OpOutputs(const std::string& op, const std::vector<Output>& inputs,
                              AttrMap attrs) {
  Operation o = inputs[0].graph()->AddOperation(op, op, inputs, attrs);
  std::vector<Output> outs;
  for (int i = 0; i < o.num_outputs(); ++i) outs.push_back(o.output(i));
  return outs;
}

// Through the client's checked narrowing: a dim past int32 fails naming the constant
// instead of wrapping around.
Output IntVector(Graph& g, const std::vector<int64_t>& values) { return client::IntVector(g, values, "Const"); }

Output IntScalar(Graph& g, int64_t value) { return client::IntScalar(g, value, "Const"); }

std::optional<std::vector<int64_t>> ConstInts(const Output& t) {
  const Tensor* value = t.op().node()->const_value();
  if (t.op().type() != "Const" || value == nullptr || value->rank() > 1) return std::nullopt;
  std::vector<int64_t> out;
  if (value->dtype() == DType::kInt32) {
    for (int32_t v : value->flat<int32_t>()) out.push_back(v);
  } else if (value->dtype() == DType::kInt64) {
    for (int64_t v : value->flat<int64_t>()) out.push_back(v);
  } else {
    return std::nullopt;
  }
  return out;
}

Output ToInt32(const Output& t) {
  return t.dtype() == DType::kInt32 ? t : cast(t, DType::kInt32);
}

Output ShapeOf(const Output& x) {
  const PartialShape s = x.shape();
  if (s.IsFullyDefined()) return IntVector(*x.graph(), {s.dims().begin(), s.dims().end()});
  return shape(x);
}

Output RankOf(const Output& x) {
  const PartialShape s = x.shape();
  if (s.known_rank()) return IntScalar(*x.graph(), s.rank());
  return rank(x);
}

namespace {

// i + n where i < 0: the canonical form of a possibly negative index into n things.
Output Canonical(const Output& i, const Output& n) {
  return i + n * cast(less(i, IntScalar(*i.graph(), 0)), DType::kInt32);
}

}  // namespace

Output ReducedShape(const Output& x, const Output& axes) {
  Graph& g = *x.graph();
  const PartialShape xs = x.shape();
  const auto known_axes = ConstInts(axes);
  if (known_axes && xs.known_rank()) {
    const int r = xs.rank();
    std::vector<int64_t> reduced(r, 0);
    for (int64_t a : *known_axes) {
      if (a >= -r && a < r) reduced[a < 0 ? a + r : a] = 1;
    }
    if (xs.IsFullyDefined()) {
      std::vector<int64_t> dims(xs.dims().begin(), xs.dims().end());
      for (int d = 0; d < r; ++d)
        if (reduced[d]) dims[d] = 1;
      return IntVector(g, dims);
    }
    std::vector<int64_t> kept(r);
    for (int d = 0; d < r; ++d) kept[d] = 1 - reduced[d];
    return ShapeOf(x) * IntVector(g, kept) + IntVector(g, reduced);
  }
  // In the graph: reduced[d] = 1 when some canonical axis equals d.
  Output r = RankOf(x);
  Output ax = Canonical(reshape(ToInt32(axes), {-1}), r);
  Output dims = Op("Range", {IntScalar(g, 0), r, IntScalar(g, 1)});
  Output hits = equal(reshape(dims, {-1, 1}), reshape(ax, {1, -1}));
  Output reduced = minimum(SumOver(cast(hits, DType::kInt32), IntVector(g, {1})), IntScalar(g, 1));
  return ShapeOf(x) * (IntScalar(g, 1) - reduced) + reduced;
}

Output ElementAt(const Output& v, const Output& i) {
  Graph& g = *v.graph();
  const auto values = ConstInts(v), index = ConstInts(i);
  if (values && index && index->size() == 1) {
    const int64_t n = static_cast<int64_t>(values->size());
    int64_t k = (*index)[0];
    if (k < 0) k += n;
    if (k >= 0 && k < n) return IntVector(g, {(*values)[k]});
  }
  const PartialShape vs = v.shape();
  Output n = vs.known_rank() && vs.rank() == 1 && vs.dim(0) >= 0 ? IntScalar(g, vs.dim(0)) : size(v);
  Output k = Canonical(reshape(ToInt32(i), {1}), n);
  return Op("Slice", {v, k, IntVector(g, {1})});
}

}  // namespace tw::grad
