// Functions that add operations to a Graph, named as in TensorFlow 1.x (tf.add,
// tf.reduce_mean, tf.nn.softmax, ...), plus arithmetic operators on Outputs.
// Each takes an optional `name`; errors throw tw::StatusError naming the node.
#ifndef TENSORWEAVE_OPS_H_
#define TENSORWEAVE_OPS_H_

#include <string>
#include <vector>

#include "tensorweave/graph.h"

namespace tw {

using Axes = std::vector<int64_t>;

// ---- constants and inputs
Output constant(Graph& g, const Tensor& value, const std::string& name = "Const");
Output constant(Graph& g, int32_t value, const std::string& name = "Const");
Output constant(Graph& g, int64_t value, const std::string& name = "Const");
Output constant(Graph& g, float value, const std::string& name = "Const");
Output constant(Graph& g, double value, const std::string& name = "Const");
Output constant(Graph& g, bool value, const std::string& name = "Const");
// A scalar string (the const char* overload keeps "abc" from converting to bool).
Output constant(Graph& g, const std::string& value, const std::string& name = "Const");
Output constant(Graph& g, const char* value, const std::string& name = "Const");
// A vector of strings, shape [values.size()].
Output constant(Graph& g, const std::vector<std::string>& values, const std::string& name = "Const");
Output constant(Graph& g, const std::vector<float>& values, const TensorShape& shape,
                const std::string& name = "Const");
Output constant(Graph& g, const std::vector<int32_t>& values, const TensorShape& shape,
                const std::string& name = "Const");
// A scalar of `like`'s dtype (how `x + 300` turns 300 into a tensor).
Output scalar_like(const Output& like, double value);
// Shape [-1] dims unknown; PartialShape::UnknownRank() for any shape.
Output placeholder(Graph& g, DType dtype, const PartialShape& shape = PartialShape::UnknownRank(),
                   const std::string& name = "Placeholder");
Output placeholder_with_default(const Output& input, const PartialShape& shape,
                                const std::string& name = "PlaceholderWithDefault");
Output identity(const Output& x, const std::string& name = "Identity");
Operation no_op(Graph& g, const std::string& name = "NoOp");
// A NoOp that runs after all `deps`.
Operation group(Graph& g, const std::vector<Operation>& deps, const std::string& name = "group_deps");

// ---- elementwise math (binary ops broadcast like NumPy; both sides share a dtype)
Output add(const Output& x, const Output& y, const std::string& name = "Add");
Output subtract(const Output& x, const Output& y, const std::string& name = "Sub");
Output multiply(const Output& x, const Output& y, const std::string& name = "Mul");
Output divide(const Output& x, const Output& y, const std::string& name = "Div");
Output floordiv(const Output& x, const Output& y, const std::string& name = "FloorDiv");  // Python's //
Output floormod(const Output& x, const Output& y, const std::string& name = "FloorMod");  // Python's %
Output maximum(const Output& x, const Output& y, const std::string& name = "Maximum");
Output minimum(const Output& x, const Output& y, const std::string& name = "Minimum");
Output pow(const Output& x, const Output& y, const std::string& name = "Pow");
Output squared_difference(const Output& x, const Output& y, const std::string& name = "SquaredDifference");
Output equal(const Output& x, const Output& y, const std::string& name = "Equal");
Output not_equal(const Output& x, const Output& y, const std::string& name = "NotEqual");
Output less(const Output& x, const Output& y, const std::string& name = "Less");
Output less_equal(const Output& x, const Output& y, const std::string& name = "LessEqual");
Output greater(const Output& x, const Output& y, const std::string& name = "Greater");
Output greater_equal(const Output& x, const Output& y, const std::string& name = "GreaterEqual");
Output logical_and(const Output& x, const Output& y, const std::string& name = "LogicalAnd");
Output logical_or(const Output& x, const Output& y, const std::string& name = "LogicalOr");
Output logical_not(const Output& x, const std::string& name = "LogicalNot");
Output negative(const Output& x, const std::string& name = "Neg");
Output abs(const Output& x, const std::string& name = "Abs");
Output square(const Output& x, const std::string& name = "Square");
Output sqrt(const Output& x, const std::string& name = "Sqrt");
Output rsqrt(const Output& x, const std::string& name = "Rsqrt");
Output exp(const Output& x, const std::string& name = "Exp");
Output log(const Output& x, const std::string& name = "Log");
Output tanh(const Output& x, const std::string& name = "Tanh");
Output sigmoid(const Output& x, const std::string& name = "Sigmoid");
Output relu(const Output& x, const std::string& name = "Relu");
Output where(const Output& condition, const Output& x, const Output& y, const std::string& name = "Select");
Output cast(const Output& x, DType dtype, const std::string& name = "Cast");
Output add_n(const std::vector<Output>& inputs, const std::string& name = "AddN");

Output operator+(const Output& x, const Output& y);
Output operator-(const Output& x, const Output& y);
Output operator*(const Output& x, const Output& y);
Output operator/(const Output& x, const Output& y);
Output operator-(const Output& x);
Output operator+(const Output& x, double y);
Output operator-(const Output& x, double y);
Output operator*(const Output& x, double y);
Output operator/(const Output& x, double y);
Output operator+(double x, const Output& y);
Output operator-(double x, const Output& y);
Output operator*(double x, const Output& y);
Output operator/(double x, const Output& y);

// ---- reductions and linear algebra (empty axes = all axes)
Output reduce_sum(const Output& x, const Axes& axes = {}, bool keep_dims = false, const std::string& name = "Sum");
Output reduce_mean(const Output& x, const Axes& axes = {}, bool keep_dims = false, const std::string& name = "Mean");
Output reduce_max(const Output& x, const Axes& axes = {}, bool keep_dims = false, const std::string& name = "Max");
Output reduce_min(const Output& x, const Axes& axes = {}, bool keep_dims = false, const std::string& name = "Min");
Output reduce_prod(const Output& x, const Axes& axes = {}, bool keep_dims = false, const std::string& name = "Prod");
Output argmax(const Output& x, int64_t axis, DType output_type = DType::kInt64, const std::string& name = "ArgMax");
Output matmul(const Output& a, const Output& b, bool transpose_a = false, bool transpose_b = false,
              const std::string& name = "MatMul");
Output batch_matmul(const Output& x, const Output& y, bool adj_x = false, bool adj_y = false,
                    const std::string& name = "BatchMatMulV2");

// ---- array ops
Output shape(const Output& x, DType out_type = DType::kInt32, const std::string& name = "Shape");
Output size(const Output& x, DType out_type = DType::kInt32, const std::string& name = "Size");
Output rank(const Output& x, const std::string& name = "Rank");
Output reshape(const Output& x, const Axes& shape, const std::string& name = "Reshape");
Output reshape(const Output& x, const Output& shape, const std::string& name = "Reshape");
Output squeeze(const Output& x, const Axes& axes = {}, const std::string& name = "Squeeze");
Output expand_dims(const Output& x, int64_t axis, const std::string& name = "ExpandDims");
Output slice(const Output& x, const Axes& begin, const Axes& size, const std::string& name = "Slice");
Output strided_slice(const Output& x, const Axes& begin, const Axes& end, const Axes& strides,
                     int64_t begin_mask = 0, int64_t end_mask = 0, int64_t shrink_axis_mask = 0,
                     const std::string& name = "StridedSlice");
Output concat(const std::vector<Output>& values, int64_t axis, const std::string& name = "concat");
Output stack(const std::vector<Output>& values, int64_t axis = 0, const std::string& name = "stack");
std::vector<Output> split(const Output& x, int64_t num_split, int64_t axis, const std::string& name = "split");
Output transpose(const Output& x, const Axes& perm, const std::string& name = "transpose");
Output tile(const Output& x, const Axes& multiples, const std::string& name = "Tile");
Output fill(Graph& g, const Axes& dims, const Output& value, const std::string& name = "Fill");
Output zeros(Graph& g, const TensorShape& shape, DType dtype = DType::kFloat, const std::string& name = "zeros");
Output ones(Graph& g, const TensorShape& shape, DType dtype = DType::kFloat, const std::string& name = "ones");
Output zeros_like(const Output& x, const std::string& name = "ZerosLike");
Output ones_like(const Output& x, const std::string& name = "OnesLike");
Output range(Graph& g, int64_t start, int64_t limit, int64_t delta = 1, const std::string& name = "range");
// Slices of params along `axis` at `indices` (int32 or int64, any shape).
Output gather(const Output& params, const Output& indices, int64_t axis = 0, const std::string& name = "GatherV2");
// tf.where(condition) with one argument (op Where): the int64 [n, rank] coordinates of
// the true elements of a bool tensor, in row-major order.
Output where(const Output& condition, const std::string& name = "Where");
// tf.boolean_mask for a 1-D mask: the rows of `tensor` where `mask` is true, built as
// TensorFlow 1.x does (Where, Squeeze, GatherV2) under the scope `name`.
Output boolean_mask(const Output& tensor, const Output& mask, const std::string& name = "boolean_mask");
Output one_hot(const Output& indices, int64_t depth, double on_value = 1, double off_value = 0,
               int64_t axis = -1, DType dtype = DType::kFloat, const std::string& name = "one_hot");

// ---- strings
// Element-wise concatenation of string tensors (scalars broadcast), joined by `separator`.
Output string_join(const std::vector<Output>& inputs, const std::string& separator = "",
                   const std::string& name = "StringJoin");

// ---- nn
// 2-D convolution: input [n, h, w, c] (NHWC), filter [kh, kw, c, out]; strides and dilations
// as {h, w}; padding "SAME" or "VALID".
Output conv2d(const Output& input, const Output& filter, const Axes& strides, const std::string& padding,
              const Axes& dilations = {1, 1}, const std::string& name = "Conv2D");
Output softmax(const Output& logits, const std::string& name = "Softmax");
Output log_softmax(const Output& logits, const std::string& name = "LogSoftmax");
// Per-example loss, shape [batch].
Output softmax_cross_entropy_with_logits(const Output& labels, const Output& logits,
                                         const std::string& name = "SoftmaxCrossEntropyWithLogits");
// Batch normalization of a 4-D float32 x per channel (FusedBatchNormV3), as
// tf.nn.fused_batch_norm: {y, mean, variance}, the batch's statistics (variance with Bessel's
// correction, blended with the given ones when exponential_avg_factor != 1) when training,
// the given ones at inference. mean / variance may be left empty when training without
// averaging.
struct BatchNormOutputs {
  Output y, mean, variance;
};
BatchNormOutputs fused_batch_norm(const Output& x, const Output& scale, const Output& offset,
                                  const Output& mean = Output(), const Output& variance = Output(),
                                  float epsilon = 0.001f, bool is_training = true,
                                  const std::string& data_format = "NHWC", float exponential_avg_factor = 1.0f,
                                  const std::string& name = "FusedBatchNormV3");

// ---- random (seed 0: derived from the graph seed, or non-deterministic when none is set)
Output random_uniform(Graph& g, const TensorShape& shape, double minval = 0, double maxval = 1,
                      DType dtype = DType::kFloat, int64_t seed = 0, const std::string& name = "random_uniform");
Output random_normal(Graph& g, const TensorShape& shape, double mean = 0, double stddev = 1,
                     DType dtype = DType::kFloat, int64_t seed = 0, const std::string& name = "random_normal");
Output truncated_normal(Graph& g, const TensorShape& shape, double mean = 0, double stddev = 1,
                        DType dtype = DType::kFloat, int64_t seed = 0,
                        const std::string& name = "truncated_normal");

}  // namespace tw

#endif  // TENSORWEAVE_OPS_H_
