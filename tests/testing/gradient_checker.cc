#include "testing/gradient_checker.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "tensorweave/gradients.h"

namespace tw::testing {

Tensor RandomTensor(const TensorShape& shape, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor t(DType::kDouble, shape);
  for (double& v : t.flat<double>()) v = lo + (hi - lo) * (static_cast<double>(rng() >> 11) / 9007199254740992.0);
  return t;
}

namespace {

double ElementAsDouble(const Tensor& t, int64_t i) {
  double v = 0;
  VisitFloating(t.dtype(), [&](auto tag) { v = static_cast<double>(t.data<TypeOf<decltype(tag)>>()[i]); });
  return v;
}

void AddToElement(Tensor& t, int64_t i, double delta) {
  VisitFloating(t.dtype(), [&](auto tag) {
    using T = TypeOf<decltype(tag)>;
    t.data<T>()[i] = static_cast<T>(t.data<T>()[i] + delta);
  });
}

}  // namespace

::testing::AssertionResult CheckGradients(const GradBuilder& build, const std::vector<Tensor>& inputs,
                                          const GradCheckOptions& options) {
  try {
    Graph g;
    std::vector<Output> xs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      xs.push_back(placeholder(g, inputs[i].dtype(), inputs[i].shape(), absl::StrCat("x", i)));
    }
    Output y = build(g, xs);
    Session sess(g);
    FeedDict feeds;
    for (size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(xs[i], inputs[i]);
    Tensor y_value = sess.run(y, feeds);
    if (!IsFloating(y.dtype())) return ::testing::AssertionFailure() << "y is not floating point";

    // L = sum(W * y) with fixed weights, so every element of y matters with its own weight.
    Tensor w = RandomTensor(y_value.shape(), 0.5, 1.5, 7);
    Output w_const = cast(constant(g, w), y.dtype());
    Output loss = reduce_sum(multiply(cast(y, DType::kDouble), cast(w_const, DType::kDouble)));
    std::vector<Output> checked;
    std::vector<int> checked_index;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (std::find(options.skip_inputs.begin(), options.skip_inputs.end(), static_cast<int>(i)) ==
          options.skip_inputs.end()) {
        checked.push_back(xs[i]);
        checked_index.push_back(static_cast<int>(i));
      }
    }
    std::vector<Output> grads = gradients({y}, checked, {w_const});
    for (size_t c = 0; c < checked.size(); ++c) {
      const int i = checked_index[c];
      Tensor symbolic;
      if (HasGradient(grads[c])) {
        symbolic = sess.run(grads[c], feeds);
        if (symbolic.shape() != inputs[i].shape()) {
          return ::testing::AssertionFailure() << "gradient of input " << i << " has shape "
                                               << symbolic.shape().DebugString() << ", input has "
                                               << inputs[i].shape().DebugString();
        }
      }
      for (int64_t k = 0; k < inputs[i].NumElements(); ++k) {
        FeedDict plus = feeds, minus = feeds;
        plus[i].second = inputs[i].Copy();
        minus[i].second = inputs[i].Copy();
        AddToElement(plus[i].second, k, options.delta);
        AddToElement(minus[i].second, k, -options.delta);
        double numeric = (sess.run(loss, plus).scalar<double>() - sess.run(loss, minus).scalar<double>()) /
                         (2 * options.delta);
        double sym = symbolic.IsInitialized() ? ElementAsDouble(symbolic, k) : 0.0;
        double err = std::abs(sym - numeric) / std::max(1.0, std::abs(numeric));
        if (!(err <= options.tolerance)) {
          return ::testing::AssertionFailure()
                 << "input " << i << " element " << k << ": symbolic " << sym << " vs numeric " << numeric
                 << " (relative error " << err << ", tolerance " << options.tolerance << ")"
                 << (symbolic.IsInitialized() ? "" : " [no symbolic gradient: treated as 0]");
        }
      }
    }
    return ::testing::AssertionSuccess();
  } catch (const StatusError& e) {
    return ::testing::AssertionFailure() << e.what();
  }
}

}  // namespace tw::testing
