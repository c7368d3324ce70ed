// Symbolic differentiation: adds the nodes that compute d(sum of ys)/d(xs) to the graph.
//
//   auto grads = tw::gradients({loss}, {w, b});   // grads[i] has xs[i]'s dtype and shape
//
// Reverse mode over the graph: gradients of a tensor used several times are summed with
// AddN, broadcasting ops reduce their gradients back to each input's shape, and an x that
// no y depends on gets an empty Output (`!grads[i].op().valid()`), as TensorFlow's None.
// An op on the path with no gradient function throws StatusError naming the op.
#ifndef TENSORWEAVE_GRADIENTS_H_
#define TENSORWEAVE_GRADIENTS_H_

#include <vector>

#include "tensorweave/graph.h"

namespace tw {

// grad_ys (optional) weights each y; by default ones of y's shape. stop_gradients: tensors
// whose ops the pass does not differentiate through (TensorFlow's stop_gradients). The new
// nodes go in the name scope "gradients" and follow the current device scope.
std::vector<Output> gradients(const std::vector<Output>& ys, const std::vector<Output>& xs,
                              const std::vector<Output>& grad_ys = {},
                              const std::vector<Output>& stop_gradients = {});

// True when `g` is a real gradient (not "none").
inline bool HasGradient(const Output& g) { return g.op().valid(); }

}  // namespace tw

#endif  // TENSORWEAVE_GRADIENTS_H_
