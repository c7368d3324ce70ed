// Keras-style layers and losses over the graph API, as TensorFlow 1.x's tf.layers and
// tf.losses: a layer object makes its variables (through get_variable, in a variable scope
// of its name) on its first call and reuses them on later calls; each layer can be pinned
// to a device, and enclosing device scopes (a replica_device_setter too) apply as usual.
//
//   namespace L = tw::layers;
//   L::LayerOptions on_cpu0;
//   on_cpu0.activation = L::relu;
//   on_cpu0.device = "/cpu:0";
//   L::Conv2D conv1(32, {5, 5}, on_cpu0, /*strides=*/{1, 1}, "SAME");
//   L::MaxPool2D pool1({2, 2}, {2, 2});
//   L::Dense logits_layer(10);
//   auto logits = logits_layer(L::Flatten()(pool1(conv1(images))));
//   auto loss = tw::losses::sparse_softmax_cross_entropy(labels, logits);
//
// Batch normalization updates its moving statistics through ops collected in the graph's
// "update_ops" collection (tw::layers::update_ops): run them with the training op, as TF1.
// Errors throw tw::StatusError (InvalidArgument naming the layer and the shapes).
#ifndef TENSORWEAVE_LAYERS_H_
#define TENSORWEAVE_LAYERS_H_

#include <functional>
#include <string>
#include <vector>

#include "tensorweave/variable_scope.h"

namespace tw {
namespace layers {

// TensorFlow's tf.GraphKeys.UPDATE_OPS.
inline constexpr char kUpdateOps[] = "update_ops";
// The ops of the "update_ops" collection (batch norm's moving-statistics updates).
std::vector<Operation> update_ops(Graph& g);

using Activation = std::function<Output(const Output&)>;
// Activations usable as Activation (tw::relu has a name argument, so it does not convert).
Output relu(const Output& x);
Output tanh(const Output& x);
Output sigmoid(const Output& x);

// What the layers with variables share.
struct LayerOptions {
  Activation activation;  // None when empty.
  std::string name;       // Variable scope; "<kind>", "<kind>_1", ... when empty.
  std::string device;     // Device scope for the layer's variables and ops; "" inherits.
  Initializer kernel_initializer;  // glorot_uniform when empty.
  Initializer bias_initializer;    // zeros when empty.
  bool use_bias = true;
  bool trainable = true;
  DType dtype = DType::kFloat;  // Of the variables (kDouble for gradient checks).
};

// A layer: operator() builds its ops on `x` (and its variables on the first call).
class Layer {
 public:
  virtual ~Layer() = default;
  Output operator()(const Output& x);
  // The variable scope chosen by the first call ("" before it).
  const std::string& name() const { return name_; }
  const std::vector<Variable>& variables() const { return variables_; }
  std::vector<Variable> trainable_variables() const;

 protected:
  Layer(std::string kind, LayerOptions options) : kind_(std::move(kind)), options_(std::move(options)) {}
  // Makes the variables for an input of this shape (first call only), inside the scope.
  virtual void Build(Graph& g, const PartialShape& input_shape) {}
  // The layer's ops on x, inside the scope.
  virtual Output Call(const Output& x) = 0;
  Variable AddVariable(Graph& g, const std::string& name, const TensorShape& shape,
                       const Initializer& initializer, bool trainable);
  // InvalidArgument "<kind> '<name>': <what>".
  [[noreturn]] void Fail(const std::string& what) const;
  const LayerOptions& options() const { return options_; }

 private:
  std::string kind_;
  LayerOptions options_;
  std::string name_;
  bool built_ = false;
  std::vector<Variable> variables_;
};

// y = activation(x kernel + bias); x of rank 2 with a known last dim.
class Dense : public Layer {
 public:
  explicit Dense(int64_t units, LayerOptions options = {});
  Variable kernel() const { return kernel_; }
  Variable bias() const { return bias_; }

 private:
  void Build(Graph& g, const PartialShape& input_shape) override;
  Output Call(const Output& x) override;
  int64_t units_;
  Variable kernel_, bias_;
};

// 2-D convolution over NHWC input, kernel [kh, kw, in_channels, filters], then bias and
// activation. padding "VALID" or "SAME".
class Conv2D : public Layer {
 public:
  Conv2D(int64_t filters, Axes kernel_size, LayerOptions options = {}, Axes strides = {1, 1},
         std::string padding = "VALID");
  Variable kernel() const { return kernel_; }
  Variable bias() const { return bias_; }

 private:
  void Build(Graph& g, const PartialShape& input_shape) override;
  Output Call(const Output& x) override;
  int64_t filters_;
  Axes kernel_size_, strides_;
  std::string padding_;
  Variable kernel_, bias_;
};

// Max pooling over NHWC input.
class MaxPool2D : public Layer {
 public:
  MaxPool2D(Axes pool_size, Axes strides, std::string padding = "VALID", std::string name = "",
            std::string device = "");

 private:
  Output Call(const Output& x) override;
  Axes pool_size_, strides_;
  std::string padding_;
};

// [batch, d1, d2, ...] -> [batch, d1 * d2 * ...].
class Flatten : public Layer {
 public:
  explicit Flatten(std::string name = "", std::string device = "");

 private:
  Output Call(const Output& x) override;
};

// Zeroes each element with probability `rate` and scales the rest by 1 / (1 - rate) when
// `training` (a bool scalar tensor, fed per step) is true; the identity when false.
class Dropout : public Layer {
 public:
  Dropout(double rate, Output training, int64_t seed = 0, std::string name = "", std::string device = "");

 private:
  Output Call(const Output& x) override;
  double rate_;
  Output training_;
  int64_t seed_;
};

// Batch normalization over the last (channel) axis of a 4-D NHWC float input
// (FusedBatchNormV3), with variables gamma, beta, moving_mean, moving_variance. A call with
// training true normalizes by the batch's statistics and adds to "update_ops" the ops
// moving each moving statistic toward the batch's by (1 - momentum); with training false
// it normalizes by the moving statistics. Call it once per mode to get both graphs; the
// variables are shared.
struct BatchNormOptions {
  double momentum = 0.99;
  double epsilon = 0.001;
  bool training = true;
  std::string name;
  std::string device;
};
class BatchNorm : public Layer {
 public:
  explicit BatchNorm(BatchNormOptions options = {});
  // Whether later calls build the training (batch statistics) or the inference graph.
  void set_training(bool training) { bn_.training = training; }
  Variable gamma() const { return gamma_; }
  Variable beta() const { return beta_; }
  Variable moving_mean() const { return moving_mean_; }
  Variable moving_variance() const { return moving_variance_; }
  // The update ops made by the training calls so far.
  const std::vector<Operation>& updates() const { return updates_; }

 private:
  void Build(Graph& g, const PartialShape& input_shape) override;
  Output Call(const Output& x) override;
  BatchNormOptions bn_;
  Variable gamma_, beta_, moving_mean_, moving_variance_;
  std::vector<Operation> updates_;
};

}  // namespace layers

// Losses, as tf.losses with weights 1: the mean over the batch, a float scalar.
namespace losses {

// onehot_labels [batch, classes] (their gradient is stopped, as TF), logits alike.
Output softmax_cross_entropy(const Output& onehot_labels, const Output& logits,
                             const std::string& name = "softmax_cross_entropy_loss");
// labels [batch] int32/int64 class ids, logits [batch, classes].
Output sparse_softmax_cross_entropy(const Output& labels, const Output& logits,
                                    const std::string& name = "sparse_softmax_cross_entropy_loss");
// mean((predictions - labels)^2) over every element.
Output mean_squared_error(const Output& labels, const Output& predictions,
                          const std::string& name = "mean_squared_error");

}  // namespace losses
}  // namespace tw

#endif  // TENSORWEAVE_LAYERS_H_
