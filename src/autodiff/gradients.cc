// The reverse-mode pass: walk back from ys over the ops that lie on a path from some x,
// in an order where every op's consumers are done first, summing the gradients that
// reach each tensor and calling each op's gradient function.
#include "tensorweave/gradients.h"

#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "autodiff/gradient_registry.h"
#include "graph/graph.h"
#include "tensorweave/ops.h"

namespace tw {
namespace {

// Gradients flow along floating-point and complex tensors and variable handles only.
bool IsDifferentiable(DType t) { return IsFloating(t) || IsComplex(t) || t == DType::kResource; }

using TensorKey = std::pair<const Node*, int>;

}  // namespace

std::vector<Output> gradients(const std::vector<Output>& ys, const std::vector<Output>& xs,
                              const std::vector<Output>& grad_ys, const std::vector<Output>& stop_gradients) {
  return ComputeGradients(GradientRegistry::Global(), ys, xs, grad_ys, stop_gradients);
}

std::vector<Output> ComputeGradients(const GradientRegistry& registry, const std::vector<Output>& ys,
                                     const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
                                     const std::vector<Output>& stop_gradients) {
  if (ys.empty()) throw StatusError(absl::InvalidArgumentError("gradients: ys is empty"));
  if (!grad_ys.empty() && grad_ys.size() != ys.size()) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        "gradients: ", grad_ys.size(), " grad_ys given for ", ys.size(), " ys")));
  }
  Graph& g = *ys[0].graph();
  for (const auto* list : {&ys, &xs, &grad_ys, &stop_gradients}) {
    for (const Output& o : *list) {
      if (o.graph() != &g) throw StatusError(absl::InvalidArgumentError("gradients: tensors from different graphs"));
    }
  }
  auto scope = g.name_scope("gradients");
  absl::flat_hash_set<const Node*> stopped;
  for (const Output& t : stop_gradients) stopped.insert(t.op().node());

  // Ops from which some y can be reached (backwards from ys)...
  absl::flat_hash_set<const Node*> to_ys;
  std::vector<const Node*> stack;
  for (const Output& y : ys) stack.push_back(y.op().node());
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!to_ys.insert(n).second) continue;
    for (int i = 0; i < n->num_inputs(); ++i) stack.push_back(n->input_edge(i)->src);
  }
  // ...intersected with ops reachable from some x: the ops gradients pass through.
  absl::flat_hash_set<const Node*> on_path;
  for (const Output& x : xs) stack.push_back(x.op().node());
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!to_ys.contains(n) || !on_path.insert(n).second) continue;
    for (const Edge* e : n->out_edges())
      if (!e->IsControl()) stack.push_back(e->dst);
  }

  // An op is ready once every consumer on the path has sent back its gradients.
  absl::flat_hash_map<const Node*, int> pending;
  for (const Node* n : on_path) {
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Node* src = n->input_edge(i)->src;
      if (on_path.contains(src)) ++pending[src];
    }
  }
  absl::flat_hash_map<TensorKey, std::vector<Output>> partials;
  for (size_t i = 0; i < ys.size(); ++i) {
    Output seed = grad_ys.empty() ? ones_like(ys[i]) : grad_ys[i];
    partials[{ys[i].op().node(), ys[i].index()}].push_back(seed);
  }
  auto sum = [&](const TensorKey& key) -> Output {
    auto it = partials.find(key);
    if (it == partials.end() || it->second.empty()) return Output();
    if (it->second.size() == 1) return it->second[0];
    Output total = add_n(it->second);
    it->second = {total};
    return total;
  };
  std::deque<const Node*> ready;
  for (const Node* n : on_path)
    if (pending[n] == 0) ready.push_back(n);
  while (!ready.empty()) {
    const Node* n = ready.front();
    ready.pop_front();
    Operation op(&g, const_cast<Node*>(n));
    GradContext ctx{op, {}};
    bool any = false;
    for (int k = 0; k < n->num_outputs(); ++k) {
      Output gk = sum({n, k});
      any = any || HasGradient(gk);
      ctx.grad_outputs.push_back(gk);
    }
    // Source ops of the pass (the xs themselves, or ops with no path back to an x) stop here.
    bool has_path_input = false;
    for (int i = 0; i < n->num_inputs(); ++i)
      has_path_input = has_path_input || on_path.contains(n->input_edge(i)->src);
    if (any && has_path_input && !stopped.contains(n)) {
      for (int k = 0; k < n->num_outputs(); ++k) {
        if (!HasGradient(ctx.grad_outputs[k]) && (IsFloating(n->output_type(k)) || IsComplex(n->output_type(k)))) {
          ctx.grad_outputs[k] = zeros_like(op.output(k));
        }
      }
      // TensorFlow's gradient_override_map names another gradient function in this attr.
      auto override_name = GetStringAttr(n->attrs(), "_gradient_op_type");
      const std::string grad_name = override_name.ok() ? *override_name : n->op();
      auto fn = registry.Find(grad_name);
      if (!fn.ok()) {
        throw StatusError(absl::InvalidArgumentError(absl::StrCat(
            "gradients: op ", n->op(), " (node '", n->name(), "') has no gradient function",
            override_name.ok() ? absl::StrCat(" (it asks for '", grad_name, "')") : "")));
      }
      std::vector<Output> in_grads = (**fn)(ctx);
      if (static_cast<int>(in_grads.size()) != n->num_inputs()) {
        throw StatusError(absl::InternalError(absl::StrCat("gradient of ", n->op(), " returned ",
                                                           in_grads.size(), " gradients for ",
                                                           n->num_inputs(), " inputs")));
      }
      for (int i = 0; i < n->num_inputs(); ++i) {
        const Edge* e = n->input_edge(i);
        if (HasGradient(in_grads[i]) && on_path.contains(e->src) && IsDifferentiable(n->input_type(i))) {
          partials[{e->src, e->src_output}].push_back(in_grads[i]);
        }
      }
    }
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Node* src = n->input_edge(i)->src;
      if (on_path.contains(src) && --pending[src] == 0) ready.push_back(src);
    }
  }

  std::vector<Output> result;
  for (const Output& x : xs) result.push_back(sum({x.op().node(), x.index()}));
  return result;
}

}  // namespace tw
