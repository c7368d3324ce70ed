// Einsum's gradient, TensorFlow's construction (math_grad.py, _EinsumGrad), on the equation's
// text: an input's gradient is itself an einsum, of the output's gradient with the other
// input, onto the input's labels; labels only the input has (summed in the forward op) are
// broadcast back; broadcast dims under "..." are summed back to the input's own.
// Needs the inputs' ranks while building when "..." or summed labels are involved.
#include <algorithm>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "autodiff/grad_util.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

constexpr char kEllipsis[] = "...";

Output Einsum(const std::vector<Output>& inputs, const std::string& equation) {
  return grad::Op("Einsum", inputs, {{"equation", MakeAttr(equation)}});
}

int StaticRank(const Output& x) {
  const PartialShape s = x.shape();
  if (!s.known_rank()) {
    throw StatusError(absl::UnimplementedError(
        "Einsum's gradient needs the input's rank known while building the graph"));
  }
  return s.rank();
}

// The axis of `label` in `subs` for an input of rank `rank` ("..." may stand for several).
int64_t AxisOf(const std::string& subs, char label, int rank) {
  const size_t e = subs.find(kEllipsis);
  const size_t at = subs.find(label);
  if (e == std::string::npos || at < e) return static_cast<int64_t>(at);
  return rank - static_cast<int64_t>(subs.size() - at);
}

std::string Without(const std::string& subs, const std::set<char>& drop) {
  std::string out;
  for (char ch : subs) {
    if (!drop.count(ch)) out.push_back(ch);
  }
  return out;
}

// Labels of `subs` that are in none of `keep` (dots excepted).
std::set<char> ReducedLabels(const std::string& subs, const std::string& keep) {
  std::set<char> out;
  for (char ch : subs) {
    if (ch != '.' && keep.find(ch) == std::string::npos) out.insert(ch);
  }
  return out;
}

// The gradient of the unary einsum input_subs -> output_subs that sums `reduced`.
Output GradReduced(const Output& output_grad, const std::string& output_subs, const std::string& input_subs,
                   const Output& input, const std::set<char>& reduced) {
  Graph& g = *input.graph();
  const int rank = StaticRank(input);
  const std::string reduced_subs(reduced.begin(), reduced.end());
  std::vector<int64_t> axes;
  for (char ch : reduced_subs) axes.push_back(AxisOf(input_subs, ch, rank));
  const Output input_shape = grad::ShapeOf(input);
  const std::set<char> distinct(input_subs.begin(), input_subs.end());
  const bool repeated = distinct.size() != input_subs.size();  // "..." counts as repeated, as TensorFlow's
  if (!repeated && Without(input_subs, reduced) == output_subs) {
    const Output kept = grad::ReducedShape(input, grad::IntVector(g, axes));
    return grad::Op("BroadcastTo", {grad::Op("Reshape", {output_grad, kept}), input_shape});
  }
  const Output reduced_dims = grad::Op("GatherV2", {input_shape, grad::IntVector(g, axes), grad::IntScalar(g, 0)});
  const Output grad_shape = grad::ShapeOf(output_grad);
  const Output zero = grad::IntScalar(g, 0);
  const Output full_shape = grad::Op("ConcatV2", {reduced_dims, grad_shape, zero});
  const Output ones = grad::IntVector(g, std::vector<int64_t>(axes.size(), 1));
  const Output with_ones = grad::Op("ConcatV2", {ones, grad_shape, zero});
  const Output broadcast = grad::Op("BroadcastTo", {grad::Op("Reshape", {output_grad, with_ones}), full_shape});
  return Einsum({broadcast}, absl::StrCat(reduced_subs, output_subs, "->", input_subs));
}

Output GradWrt(const Output& output_grad, const Output& other, const Output& input, const std::string& input_subs,
               const std::string& other_subs, const std::string& output_subs) {
  const std::set<char> reduced = ReducedLabels(input_subs, output_subs + other_subs);
  const std::string left_subs = Without(input_subs, reduced);
  const Output grad_reduced = Einsum({output_grad, other}, absl::StrCat(output_subs, ",", other_subs, "->", left_subs));
  if (reduced.empty()) return grad_reduced;
  return GradReduced(grad_reduced, left_subs, input_subs, input, reduced);
}

// The dims "..." stands for in an input of rank `rank`: [start, start + count).
std::pair<int64_t, int64_t> BroadcastDims(const std::string& subs, int rank) {
  const size_t e = subs.find(kEllipsis);
  if (e == std::string::npos) return {0, 0};
  const int64_t after = static_cast<int64_t>(subs.size() - e - 3);
  return {static_cast<int64_t>(e), rank - static_cast<int64_t>(e) - after};
}

// grad (with the broadcast "..." dims) summed back to x's own "..." dims, then x's shape.
std::pair<Output, Output> SumBroadcastDims(const Output& gx, const Output& gy, const Output& x, const Output& y,
                                           const std::string& x_subs, const std::string& y_subs) {
  Graph& g = *x.graph();
  const auto [bx, nx] = BroadcastDims(x_subs, StaticRank(x));
  const auto [by, ny] = BroadcastDims(y_subs, StaticRank(y));
  const PartialShape xs = x.shape(), ys = y.shape();
  if (xs.IsFullyDefined() && ys.IsFullyDefined() && nx == ny &&
      std::equal(xs.dims().begin() + bx, xs.dims().begin() + bx + nx, ys.dims().begin() + by)) {
    return {gx, gy};
  }
  const Output x_shape = grad::ShapeOf(x), y_shape = grad::ShapeOf(y);
  const Output sx = grad::Op("Slice", {x_shape, grad::IntVector(g, {bx}), grad::IntVector(g, {nx})});
  const Output sy = grad::Op("Slice", {y_shape, grad::IntVector(g, {by}), grad::IntVector(g, {ny})});
  const std::vector<Output> r = grad::OpOutputs("BroadcastGradientArgs", {sx, sy});
  const Output ax = grad::Op("AddV2", {r[0], grad::IntScalar(g, bx)});
  const Output ay = grad::Op("AddV2", {r[1], grad::IntScalar(g, by)});
  return {grad::Op("Reshape", {grad::SumOver(gx, ax), x_shape}), grad::Op("Reshape", {grad::SumOver(gy, ay), y_shape})};
}

std::vector<Output> EinsumGrad(const GradContext& ctx) {
  auto equation = GetStringAttr(ctx.attrs(), "equation");
  if (!equation.ok()) throw StatusError(equation.status());
  const size_t arrow = equation->find("->");
  const std::string input_subs = equation->substr(0, arrow), output_subs = equation->substr(arrow + 2);
  const Output& grad = ctx.grad_outputs[0];
  auto n = GetIntAttr(ctx.attrs(), "N");
  if (n.ok() && *n == 1) {
    const std::set<char> reduced = ReducedLabels(input_subs, output_subs);
    if (reduced.empty()) return {Einsum({grad}, absl::StrCat(output_subs, "->", input_subs))};
    return {GradReduced(grad, output_subs, input_subs, ctx.input(0), reduced)};
  }
  const size_t comma = input_subs.find(',');
  std::string x_subs = input_subs.substr(0, comma), y_subs = input_subs.substr(comma + 1);
  const bool broadcast = output_subs.find(kEllipsis) != std::string::npos;
  if (broadcast) {  // an input without "..." takes it for the broadcast dims it does not have
    if (x_subs.find(kEllipsis) == std::string::npos) x_subs += kEllipsis;
    if (y_subs.find(kEllipsis) == std::string::npos) y_subs += kEllipsis;
  }
  const Output x = ctx.input(0), y = ctx.input(1);
  const Output gx = GradWrt(grad, y, x, x_subs, y_subs, output_subs);
  const Output gy = GradWrt(grad, x, y, y_subs, x_subs, output_subs);
  if (!broadcast) return {gx, gy};
  auto [sx, sy] = SumBroadcastDims(gx, gy, x, y, x_subs, y_subs);
  return {sx, sy};
}

}  // namespace

void RegisterEinsumGradients(GradientRegistry& r) { r.Register("Einsum", EinsumGrad); }

}  // namespace tw
