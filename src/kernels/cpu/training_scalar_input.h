// The hyperparameter inputs of the training kernels (dense and sparse): input i as a
// scalar of T, with TensorFlow's "lr is not a scalar: [2]" error otherwise.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_TRAINING_SCALAR_INPUT_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_TRAINING_SCALAR_INPUT_H_

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/op_kernel.h"

namespace tw::training {

template <typename T>
absl::StatusOr<T> ScalarInput(const OpKernelContext& ctx, int i, const char* name) {
  const Tensor& t = ctx.input(i);
  if (t.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, " is not a scalar: ", t.shape().DebugString()));
  }
  return t.scalar<T>();
}

}  // namespace tw::training

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_TRAINING_SCALAR_INPUT_H_
