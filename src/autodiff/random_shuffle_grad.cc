// RandomShuffle and Multinomial are not differentiable, as in TensorFlow.
#include "autodiff/grad_util.h"

namespace tw {

void RegisterRandomShuffleGradients(GradientRegistry& r) {
  r.RegisterNoGradient("RandomShuffle");
  r.RegisterNoGradient("Multinomial");
}

}  // namespace tw
