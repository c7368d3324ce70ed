// average_gradients: the gradients of several towers (data-parallel replicas of one
// model) combined into one per variable, for one apply_gradients.
#include "absl/strings/str_cat.h"
#include "tensorweave/optimizers.h"

namespace tw {
namespace {

[[noreturn]] void Throw(const std::string& message) {
  throw StatusError(absl::InvalidArgumentError(absl::StrCat("average_gradients: ", message)));
}

// Checks that every tower lists tower 0's variables in its order.
void CheckTowersAgree(const std::vector<GradsAndVars>& towers) {
  const GradsAndVars& first = towers[0];
  for (size_t t = 1; t < towers.size(); ++t) {
    if (towers[t].size() != first.size()) {
      Throw(absl::StrCat("tower ", t, " has ", towers[t].size(), " gradients but tower 0 has ",
                         first.size()));
    }
    for (size_t i = 0; i < first.size(); ++i) {
      if (towers[t][i].second.handle().op().node() != first[i].second.handle().op().node()) {
        Throw(absl::StrCat("tower ", t, " lists variable '", towers[t][i].second.name(),
                           "' where tower 0 lists '", first[i].second.name(), "'"));
      }
    }
  }
}

}  // namespace

GradsAndVars average_gradients(const std::vector<GradsAndVars>& tower_grads,
                               const std::vector<Output>& weights) {
  if (tower_grads.empty()) Throw("no towers");
  if (!weights.empty() && weights.size() != tower_grads.size()) {
    Throw(absl::StrCat(weights.size(), " weights for ", tower_grads.size(), " towers"));
  }
  for (size_t t = 0; t < weights.size(); ++t) {
    if (weights[t].shape().known_rank() && weights[t].shape().rank() != 0) {
      Throw(absl::StrCat("weight ", t, " has shape ", weights[t].shape().DebugString(), ", not a scalar"));
    }
  }
  CheckTowersAgree(tower_grads);
  GradsAndVars averaged;
  if (tower_grads[0].empty()) return averaged;
  Graph& g = *tower_grads[0][0].second.handle().graph();
  auto scope = g.name_scope("average_gradients");
  for (size_t i = 0; i < tower_grads[0].size(); ++i) {
    const Variable& var = tower_grads[0][i].second;
    std::vector<Output> grads;
    for (const GradsAndVars& tower : tower_grads) {
      if (tower[i].first.op().valid()) grads.push_back(tower[i].first);
    }
    if (grads.empty()) {
      averaged.emplace_back(Output(), var);
      continue;
    }
    if (grads.size() != tower_grads.size()) {
      Throw(absl::StrCat("variable '", var.name(), "' has a gradient in ", grads.size(), " of ",
                         tower_grads.size(), " towers"));
    }
    const DType dtype = grads[0].dtype();
    Output mean;
    if (weights.empty()) {
      mean = add_n(grads) / cast(constant(g, static_cast<double>(grads.size())), dtype);
    } else {
      std::vector<Output> weighted, total;
      for (size_t t = 0; t < grads.size(); ++t) {
        const Output w = cast(weights[t], dtype);
        weighted.push_back(w * grads[t]);
        total.push_back(w);
      }
      mean = add_n(weighted) / add_n(total);
    }
    averaged.emplace_back(mean, var);
  }
  return averaged;
}

}  // namespace tw
