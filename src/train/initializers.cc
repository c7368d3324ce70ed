// Variable initializers, as TensorFlow's tf.*_initializer: each returns a function that
// adds the ops making an initial value of a given shape and dtype.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "tensorweave/variable_scope.h"

namespace tw {
namespace {

void RequireFloating(DType dtype, const char* initializer) {
  if (!IsFloating(dtype)) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        initializer, " only makes float32 or float64 values, not ", DTypeName(dtype))));
  }
}

}  // namespace

Initializer zeros_initializer() {
  return [](Graph& g, const TensorShape& shape, DType dtype) { return zeros(g, shape, dtype); };
}

Initializer ones_initializer() {
  return [](Graph& g, const TensorShape& shape, DType dtype) { return ones(g, shape, dtype); };
}

Initializer constant_initializer(double value) {
  return [value](Graph& g, const TensorShape& shape, DType dtype) {
    Axes dims(shape.dims().begin(), shape.dims().end());
    Tensor scalar(dtype, TensorShape());
    if (!VisitNumeric(dtype, [&](auto tag) {
          using T = TypeOf<decltype(tag)>;
          scalar.scalar<T>() = static_cast<T>(value);
        })) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("constant_initializer cannot make ", DTypeName(dtype), " values")));
    }
    return fill(g, dims, constant(g, scalar, "value"), "Const");
  };
}

Initializer constant_initializer(std::vector<double> values) {
  return [values = std::move(values)](Graph& g, const TensorShape& shape, DType dtype) {
    if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("constant_initializer has ", values.size(), " values but shape ",
                       shape.DebugString(), " needs ", shape.num_elements())));
    }
    Tensor t(dtype, shape);
    if (!VisitNumeric(dtype, [&](auto tag) {
          using T = TypeOf<decltype(tag)>;
          T* out = t.data<T>();
          for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
        })) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("constant_initializer cannot make ", DTypeName(dtype), " values")));
    }
    return constant(g, t, "Const");
  };
}

Initializer random_uniform_initializer(double minval, double maxval, int64_t seed) {
  return [=](Graph& g, const TensorShape& shape, DType dtype) {
    RequireFloating(dtype, "random_uniform_initializer");
    return random_uniform(g, shape, minval, maxval, dtype, seed);
  };
}

Initializer random_normal_initializer(double mean, double stddev, int64_t seed) {
  return [=](Graph& g, const TensorShape& shape, DType dtype) {
    RequireFloating(dtype, "random_normal_initializer");
    return random_normal(g, shape, mean, stddev, dtype, seed);
  };
}

Initializer truncated_normal_initializer(double mean, double stddev, int64_t seed) {
  return [=](Graph& g, const TensorShape& shape, DType dtype) {
    RequireFloating(dtype, "truncated_normal_initializer");
    return truncated_normal(g, shape, mean, stddev, dtype, seed);
  };
}

std::pair<double, double> compute_fans(const TensorShape& shape) {
  const int rank = shape.rank();
  if (rank == 0) return {1, 1};
  if (rank == 1) return {static_cast<double>(shape.dim(0)), static_cast<double>(shape.dim(0))};
  // The dims before the last two are a convolution's receptive field.
  double receptive_field = 1;
  for (int i = 0; i < rank - 2; ++i) receptive_field *= static_cast<double>(shape.dim(i));
  return {static_cast<double>(shape.dim(rank - 2)) * receptive_field,
          static_cast<double>(shape.dim(rank - 1)) * receptive_field};
}

Initializer glorot_uniform_initializer(int64_t seed) {
  return [seed](Graph& g, const TensorShape& shape, DType dtype) {
    RequireFloating(dtype, "glorot_uniform_initializer");
    // TensorFlow's VarianceScaling(scale=1, mode="fan_avg", distribution="uniform").
    auto [fan_in, fan_out] = compute_fans(shape);
    const double scale = 1.0 / std::max(1.0, (fan_in + fan_out) / 2.0);
    const double limit = std::sqrt(3.0 * scale);
    return random_uniform(g, shape, -limit, limit, dtype, seed);
  };
}

}  // namespace tw
