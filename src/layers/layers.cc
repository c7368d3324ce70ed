// The C++ layers (include/tensorweave/layers.h): variables through get_variable in the
// layer's variable scope, ops through the public builders and client::AddOp.
#include "tensorweave/layers.h"

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/op_builder.h"
#include "graph/attr_value.h"

namespace tw {
namespace layers {

namespace {

std::vector<int64_t> Nhwc(const Axes& hw) { return {1, hw[0], hw[1], 1}; }

// A name not used by any op as a scope yet: kind, kind_1, ... (TF's layer naming).
std::string UniqueLayerName(Graph& g, const std::string& kind) {
  const std::string prefix = g.current_name_scope().empty() ? "" : g.current_name_scope() + "/";
  std::vector<std::string> names;
  for (const Operation& op : g.operations()) names.push_back(op.name());
  for (int i = 0;; ++i) {
    const std::string candidate = i == 0 ? kind : absl::StrCat(kind, "_", i);
    const std::string scoped = prefix + candidate;
    bool used = false;
    for (const std::string& n : names) {
      if (n == scoped || n.rfind(scoped + "/", 0) == 0) {
        used = true;
        break;
      }
    }
    if (!used) return candidate;
  }
}

void CheckPair(const Axes& v, const char* what, const std::string& layer) {
  if (v.size() != 2 || v[0] <= 0 || v[1] <= 0) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat(layer, ": ", what, " must be 2 positive values {h, w}, got {", absl::StrJoin(v, ", "), "}")));
  }
}

}  // namespace

std::vector<Operation> update_ops(Graph& g) {
  std::vector<Operation> ops;
  for (const Output& o : g.get_collection(kUpdateOps)) ops.push_back(o.op());
  return ops;
}

Output relu(const Output& x) { return tw::relu(x); }
Output tanh(const Output& x) { return tw::tanh(x); }
Output sigmoid(const Output& x) { return tw::sigmoid(x); }

Output Layer::operator()(const Output& x) {
  Graph& g = *x.graph();
  std::optional<ScopeGuard> on_device;
  if (!options_.device.empty()) on_device.emplace(g.device(options_.device));
  if (name_.empty()) name_ = options_.name.empty() ? UniqueLayerName(g, kind_) : options_.name;
  // The first call makes the variables; later calls re-enter the scope with reuse so that
  // get_variable returns them (AUTO_REUSE would also silently share with another layer).
  auto scope = variable_scope(g, name_, built_ ? Reuse::kTrue : Reuse::kFalse);
  if (!built_) {
    Build(g, x.shape());
    built_ = true;
  }
  Output y = Call(x);
  if (options_.activation) y = options_.activation(y);
  return y;
}

std::vector<Variable> Layer::trainable_variables() const {
  std::vector<Variable> out;
  std::vector<Variable> all = tw::trainable_variables(*variables_.front().handle().graph());
  for (const Variable& v : variables_) {
    for (const Variable& t : all) {
      if (t.name() == v.name()) out.push_back(v);
    }
  }
  return out;
}

Variable Layer::AddVariable(Graph& g, const std::string& name, const TensorShape& shape,
                            const Initializer& initializer, bool trainable) {
  Variable v = get_variable(g, name, shape, options_.dtype, initializer, trainable && options_.trainable);
  variables_.push_back(v);
  return v;
}

void Layer::Fail(const std::string& what) const {
  throw StatusError(absl::InvalidArgumentError(absl::StrCat(kind_, " '", name_, "': ", what)));
}

// ---- Dense

Dense::Dense(int64_t units, LayerOptions options) : Layer("dense", std::move(options)), units_(units) {
  if (units <= 0) throw StatusError(absl::InvalidArgumentError(absl::StrCat("dense: units must be positive, got ", units)));
}

void Dense::Build(Graph& g, const PartialShape& input_shape) {
  if (!input_shape.known_rank() || input_shape.rank() != 2 || input_shape.dim(1) < 0) {
    Fail(absl::StrCat("input must be rank 2 with a known last dimension, got shape ", input_shape.DebugString()));
  }
  kernel_ = AddVariable(g, "kernel", TensorShape({input_shape.dim(1), units_}), options().kernel_initializer, true);
  if (options().use_bias) {
    bias_ = AddVariable(g, "bias", TensorShape({units_}),
                        options().bias_initializer ? options().bias_initializer : zeros_initializer(), true);
  }
}

Output Dense::Call(const Output& x) {
  if (!x.shape().known_rank() || x.shape().rank() != 2) Fail("input must be rank 2, got shape " + x.shape().DebugString());
  Output y = matmul(x, kernel_, false, false, "MatMul");
  if (options().use_bias) y = client::Op("BiasAdd", "BiasAdd", {y, bias_});
  return y;
}

// ---- Conv2D

Conv2D::Conv2D(int64_t filters, Axes kernel_size, LayerOptions options, Axes strides, std::string padding)
    : Layer("conv2d", std::move(options)),
      filters_(filters),
      kernel_size_(std::move(kernel_size)),
      strides_(std::move(strides)),
      padding_(std::move(padding)) {
  if (filters <= 0) throw StatusError(absl::InvalidArgumentError(absl::StrCat("conv2d: filters must be positive, got ", filters)));
  CheckPair(kernel_size_, "kernel_size", "conv2d");
  CheckPair(strides_, "strides", "conv2d");
  if (padding_ != "VALID" && padding_ != "SAME") {
    throw StatusError(absl::InvalidArgumentError("conv2d: padding must be VALID or SAME, got " + padding_));
  }
}

void Conv2D::Build(Graph& g, const PartialShape& input_shape) {
  if (!input_shape.known_rank() || input_shape.rank() != 4 || input_shape.dim(3) < 0) {
    Fail(absl::StrCat("input must be NHWC (rank 4) with known channels, got shape ", input_shape.DebugString()));
  }
  kernel_ = AddVariable(g, "kernel", TensorShape({kernel_size_[0], kernel_size_[1], input_shape.dim(3), filters_}),
                        options().kernel_initializer, true);
  if (options().use_bias) {
    bias_ = AddVariable(g, "bias", TensorShape({filters_}),
                        options().bias_initializer ? options().bias_initializer : zeros_initializer(), true);
  }
}

Output Conv2D::Call(const Output& x) {
  Output y = conv2d(x, kernel_, strides_, padding_, {1, 1}, "Conv2D");
  if (options().use_bias) y = client::Op("BiasAdd", "BiasAdd", {y, bias_});
  return y;
}

// ---- MaxPool2D

namespace {
LayerOptions Placed(std::string name, std::string device) {
  LayerOptions o;
  o.name = std::move(name);
  o.device = std::move(device);
  return o;
}
}  // namespace

MaxPool2D::MaxPool2D(Axes pool_size, Axes strides, std::string padding, std::string name, std::string device)
    : Layer("max_pooling2d", Placed(std::move(name), std::move(device))),
      pool_size_(std::move(pool_size)),
      strides_(std::move(strides)),
      padding_(std::move(padding)) {
  CheckPair(pool_size_, "pool_size", "max_pooling2d");
  CheckPair(strides_, "strides", "max_pooling2d");
  if (padding_ != "VALID" && padding_ != "SAME") {
    throw StatusError(absl::InvalidArgumentError("max_pooling2d: padding must be VALID or SAME, got " + padding_));
  }
}

Output MaxPool2D::Call(const Output& x) {
  const std::vector<int64_t> ksize = Nhwc(pool_size_), strides = Nhwc(strides_);
  return client::Op("MaxPool", "MaxPool", {x},
                    {{"ksize", MakeAttr(absl::Span<const int64_t>(ksize))},
                     {"strides", MakeAttr(absl::Span<const int64_t>(strides))},
                     {"padding", MakeAttr(padding_)},
                     {"data_format", MakeAttr("NHWC")}});
}

// ---- Flatten

Flatten::Flatten(std::string name, std::string device) : Layer("flatten", Placed(std::move(name), std::move(device))) {}

Output Flatten::Call(const Output& x) {
  const PartialShape s = x.shape();
  if (!s.known_rank() || s.rank() < 1) Fail("input must have a known rank of at least 1, got shape " + s.DebugString());
  int64_t inner = 1;
  for (int i = 1; i < s.rank(); ++i) {
    if (s.dim(i) < 0) {
      inner = -1;
      break;
    }
    inner *= s.dim(i);
  }
  if (inner >= 0) return reshape(x, Axes{-1, inner}, "Reshape");
  // Unknown inner dims: [batch, -1] with the batch size read at run time.
  Graph& g = *x.graph();
  Output batch = slice(shape(x), {0}, {1}, "batch");
  return reshape(x, concat({batch, client::IntVector(g, {-1}, "minus_one")}, 0, "flat_shape"), "Reshape");
}

// ---- Dropout

Dropout::Dropout(double rate, Output training, int64_t seed, std::string name, std::string device)
    : Layer("dropout", Placed(std::move(name), std::move(device))), rate_(rate), training_(training), seed_(seed) {
  if (!(rate >= 0 && rate < 1)) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat("dropout: rate must be in [0, 1), got ", rate)));
  }
  if (!training.op().valid() || training.dtype() != DType::kBool) {
    throw StatusError(absl::InvalidArgumentError("dropout: training must be a bool tensor"));
  }
}

Output Dropout::Call(const Output& x) {
  Graph& g = *x.graph();
  // As tf.nn.dropout: floor(keep + U[0,1)) is 1 with probability keep. When not training
  // keep is 1, so the mask is all ones and the scale 1: the identity, without a cond.
  Output keep = where(training_, client::Scalar(g, x.dtype(), 1.0 - rate_, "keep_prob"),
                      client::Scalar(g, x.dtype(), 1.0, "one"), "keep");
  auto [seed1, seed2] = g.NextSeeds(seed_);
  Output uniform = client::AddOp(g, "RandomUniform", "random_uniform", {shape(x)},
                                 {{"dtype", MakeAttr(x.dtype())}, {"seed", MakeAttr(seed1)}, {"seed2", MakeAttr(seed2)}})
                       .output(0);
  Output mask = client::Op("Floor", "Floor", {keep + uniform});
  return x / keep * mask;
}

// ---- BatchNorm

namespace {
LayerOptions BatchNormLayerOptions(const BatchNormOptions& bn) { return Placed(bn.name, bn.device); }
}  // namespace

BatchNorm::BatchNorm(BatchNormOptions options) : Layer("batch_normalization", BatchNormLayerOptions(options)), bn_(options) {
  if (!(bn_.momentum >= 0 && bn_.momentum <= 1) || !(bn_.epsilon > 0)) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat("batch_normalization: momentum must be in [0, 1] and epsilon positive, got ", bn_.momentum, " and ", bn_.epsilon)));
  }
}

void BatchNorm::Build(Graph& g, const PartialShape& input_shape) {
  if (!input_shape.known_rank() || input_shape.rank() != 4 || input_shape.dim(3) < 0) {
    Fail(absl::StrCat("input must be NHWC (rank 4) with known channels, got shape ", input_shape.DebugString()));
  }
  const TensorShape c({input_shape.dim(3)});
  gamma_ = AddVariable(g, "gamma", c, ones_initializer(), true);
  beta_ = AddVariable(g, "beta", c, zeros_initializer(), true);
  moving_mean_ = AddVariable(g, "moving_mean", c, zeros_initializer(), false);
  moving_variance_ = AddVariable(g, "moving_variance", c, ones_initializer(), false);
}

Output BatchNorm::Call(const Output& x) {
  if (x.dtype() != DType::kFloat) Fail("input must be float32, got " + std::string(DTypeName(x.dtype())));
  const float eps = static_cast<float>(bn_.epsilon);
  if (!bn_.training) {
    return fused_batch_norm(x, gamma_, beta_, moving_mean_, moving_variance_, eps, false, "NHWC", 1.0f,
                            "FusedBatchNormV3")
        .y;
  }
  BatchNormOutputs out = fused_batch_norm(x, gamma_, beta_, Output(), Output(), eps, true, "NHWC", 1.0f,
                                          "FusedBatchNormV3");
  // As TF1: moving -= (moving - batch) * (1 - momentum), each colocated with its variable.
  Graph& g = *x.graph();
  const double decay = 1.0 - bn_.momentum;
  for (auto [var, batch] : {std::pair{moving_mean_, out.mean}, std::pair{moving_variance_, out.variance}}) {
    Output delta = (var.value() - batch) * decay;
    Operation update = var.assign_sub(delta, "AssignMovingAvg").op();
    updates_.push_back(update);
    g.add_to_collection(kUpdateOps, update.output(0));
  }
  return out.y;
}

}  // namespace layers
}  // namespace tw
