// Client functions for reductions, linear algebra, array, nn and random ops.
#include "client/op_builder.h"
#include "graph/graph.h"
#include "tensorweave/gen_ops.h"  // one-op builders forward to the generated ones

namespace tw {

using client::IntVector;
using client::Op;

namespace {

// Empty axes mean "all axes" (as tf.reduce_sum(x) does).
Output AllOr(const Output& x, const Axes& axes) {
  Graph& g = *x.graph();
  if (!axes.empty()) return IntVector(g, axes, "reduction_indices");
  PartialShape s = x.shape();
  if (s.known_rank()) {
    Axes all(s.rank());
    for (int i = 0; i < s.rank(); ++i) all[i] = i;
    return IntVector(g, all, "reduction_indices");
  }
  return Op("Range", "reduction_indices",
            {constant(g, int32_t{0}), rank(x), constant(g, int32_t{1})});
}

Output Reduce(const char* op, const Output& x, const Axes& axes, bool keep_dims, const std::string& name) {
  return Op(op, name, {x, AllOr(x, axes)}, {{"keep_dims", MakeAttr(keep_dims)}});
}

}  // namespace

Output reduce_sum(const Output& x, const Axes& axes, bool keep_dims, const std::string& name) {
  return Reduce("Sum", x, axes, keep_dims, name);
}
Output reduce_mean(const Output& x, const Axes& axes, bool keep_dims, const std::string& name) {
  return Reduce("Mean", x, axes, keep_dims, name);
}
Output reduce_max(const Output& x, const Axes& axes, bool keep_dims, const std::string& name) {
  return Reduce("Max", x, axes, keep_dims, name);
}
Output reduce_min(const Output& x, const Axes& axes, bool keep_dims, const std::string& name) {
  return Reduce("Min", x, axes, keep_dims, name);
}
Output reduce_prod(const Output& x, const Axes& axes, bool keep_dims, const std::string& name) {
  return Reduce("Prod", x, axes, keep_dims, name);
}
Output argmax(const Output& x, int64_t axis, DType output_type, const std::string& name) {
  return Op("ArgMax", name, {x, constant(*x.graph(), static_cast<int32_t>(axis), "dimension")},
            {{"output_type", MakeAttr(output_type)}});
}
Output matmul(const Output& a, const Output& b, bool transpose_a, bool transpose_b, const std::string& name) {
  return Op("MatMul", name, {a, b},
            {{"transpose_a", MakeAttr(transpose_a)}, {"transpose_b", MakeAttr(transpose_b)}});
}
Output batch_matmul(const Output& x, const Output& y, bool adj_x, bool adj_y, const std::string& name) {
  return Op("BatchMatMulV2", name, {x, y}, {{"adj_x", MakeAttr(adj_x)}, {"adj_y", MakeAttr(adj_y)}});
}

Output shape(const Output& x, DType out_type, const std::string& name) {
  return Op("Shape", name, {x}, {{"out_type", MakeAttr(out_type)}});
}
Output size(const Output& x, DType out_type, const std::string& name) {
  return Op("Size", name, {x}, {{"out_type", MakeAttr(out_type)}});
}
Output rank(const Output& x, const std::string& name) { return ops::gen::Rank(x, name); }
Output reshape(const Output& x, const Axes& shape, const std::string& name) {
  return reshape(x, IntVector(*x.graph(), shape, "shape"), name);
}
Output reshape(const Output& x, const Output& shape, const std::string& name) {
  return ops::gen::Reshape(x, shape, name);
}
Output squeeze(const Output& x, const Axes& axes, const std::string& name) {
  return Op("Squeeze", name, {x}, {{"squeeze_dims", MakeAttr(absl::Span<const int64_t>(axes))}});
}
Output expand_dims(const Output& x, int64_t axis, const std::string& name) {
  return Op("ExpandDims", name, {x, constant(*x.graph(), static_cast<int32_t>(axis), "dim")});
}
Output slice(const Output& x, const Axes& begin, const Axes& size, const std::string& name) {
  Graph& g = *x.graph();
  Output begin_node = IntVector(g, begin, "begin");  // in this order: a call's arguments have none
  return ops::gen::Slice(x, begin_node, IntVector(g, size, "size"), name);
}
Output strided_slice(const Output& x, const Axes& begin, const Axes& end, const Axes& strides,
                     int64_t begin_mask, int64_t end_mask, int64_t shrink_axis_mask, const std::string& name) {
  Graph& g = *x.graph();
  return Op("StridedSlice", name,
            {x, IntVector(g, begin, "begin"), IntVector(g, end, "end"), IntVector(g, strides, "strides")},
            {{"begin_mask", MakeAttr(begin_mask)},
             {"end_mask", MakeAttr(end_mask)},
             {"shrink_axis_mask", MakeAttr(shrink_axis_mask)}});
}
Output concat(const std::vector<Output>& values, int64_t axis, const std::string& name) {
  if (values.empty()) throw StatusError(absl::InvalidArgumentError("concat of no values"));
  if (values.size() == 1) return identity(values[0], name);
  std::vector<Output> inputs = values;
  inputs.push_back(constant(*values[0].graph(), static_cast<int32_t>(axis), "axis"));
  return Op("ConcatV2", name, inputs);
}
Output stack(const std::vector<Output>& values, int64_t axis, const std::string& name) {
  return Op("Pack", name, values, {{"axis", MakeAttr(axis)}});
}
std::vector<Output> split(const Output& x, int64_t num_split, int64_t axis, const std::string& name) {
  Graph& g = *x.graph();
  Operation op = client::AddOp(g, "Split", name, {constant(g, static_cast<int32_t>(axis), "split_dim"), x},
                               {{"num_split", MakeAttr(num_split)}, {"T", MakeAttr(x.dtype())}});
  std::vector<Output> outs;
  for (int i = 0; i < op.num_outputs(); ++i) outs.push_back(op.output(i));
  return outs;
}
Output transpose(const Output& x, const Axes& perm, const std::string& name) {
  return ops::gen::Transpose(x, IntVector(*x.graph(), perm, "perm"), name);
}
Output tile(const Output& x, const Axes& multiples, const std::string& name) {
  return ops::gen::Tile(x, IntVector(*x.graph(), multiples, "multiples"), name);
}
Output fill(Graph& g, const Axes& dims, const Output& value, const std::string& name) {
  return client::AddOp(g, "Fill", name, {IntVector(g, dims, "dims"), value}).output(0);
}
Output zeros(Graph& g, const TensorShape& shape, DType dtype, const std::string& name) {
  Axes dims(shape.dims().begin(), shape.dims().end());
  return fill(g, dims, client::Scalar(g, dtype, 0, "zero"), name);
}
Output ones(Graph& g, const TensorShape& shape, DType dtype, const std::string& name) {
  Axes dims(shape.dims().begin(), shape.dims().end());
  return fill(g, dims, client::Scalar(g, dtype, 1, "one"), name);
}
Output zeros_like(const Output& x, const std::string& name) { return ops::gen::ZerosLike(x, name); }
Output ones_like(const Output& x, const std::string& name) { return ops::gen::OnesLike(x, name); }
Output range(Graph& g, int64_t start, int64_t limit, int64_t delta, const std::string& name) {
  return client::AddOp(g, "Range", name,
                       {constant(g, static_cast<int32_t>(start), "start"),
                        constant(g, static_cast<int32_t>(limit), "limit"),
                        constant(g, static_cast<int32_t>(delta), "delta")})
      .output(0);
}
Output gather(const Output& params, const Output& indices, int64_t axis, const std::string& name) {
  return ops::gen::GatherV2(params, indices, constant(*params.graph(), axis, "axis"), {}, name);
}
Output where(const Output& condition, const std::string& name) { return ops::gen::Where(condition, name); }
Output boolean_mask(const Output& tensor, const Output& mask, const std::string& name) {
  Graph& g = *tensor.graph();
  auto scope = g.name_scope(name);
  // TensorFlow 1.x's _apply_mask_1d: the true rows' indices, then a gather of them.
  Output indices = squeeze(where(mask), {1});
  return gather(tensor, indices, 0);
}
Output string_join(const std::vector<Output>& inputs, const std::string& separator, const std::string& name) {
  if (inputs.empty()) throw StatusError(absl::InvalidArgumentError("string_join of no inputs"));
  return Op("StringJoin", name, inputs, {{"separator", MakeAttr(separator)}});
}
Output one_hot(const Output& indices, int64_t depth, double on_value, double off_value, int64_t axis,
               DType dtype, const std::string& name) {
  Graph& g = *indices.graph();
  return Op("OneHot", name,
            {indices, constant(g, static_cast<int32_t>(depth), "depth"),
             client::Scalar(g, dtype, on_value, "on_value"), client::Scalar(g, dtype, off_value, "off_value")},
            {{"axis", MakeAttr(axis)}});
}

Output conv2d(const Output& input, const Output& filter, const Axes& strides, const std::string& padding,
              const Axes& dilations, const std::string& name) {
  if (strides.size() != 2 || dilations.size() != 2) {
    throw StatusError(absl::InvalidArgumentError("conv2d: strides and dilations take 2 values {h, w}"));
  }
  return Op("Conv2D", name, {input, filter},
            {{"strides", MakeAttr(absl::Span<const int64_t>(std::vector<int64_t>{1, strides[0], strides[1], 1}))},
             {"dilations", MakeAttr(absl::Span<const int64_t>(std::vector<int64_t>{1, dilations[0], dilations[1], 1}))},
             {"padding", MakeAttr(padding)}});
}
Output softmax(const Output& logits, const std::string& name) { return ops::gen::Softmax(logits, name); }
Output log_softmax(const Output& logits, const std::string& name) { return ops::gen::LogSoftmax(logits, name); }
Output softmax_cross_entropy_with_logits(const Output& labels, const Output& logits, const std::string& name) {
  return Op("SoftmaxCrossEntropyWithLogits", name, {logits, labels});
}
BatchNormOutputs fused_batch_norm(const Output& x, const Output& scale, const Output& offset, const Output& mean,
                                  const Output& variance, float epsilon, bool is_training, const std::string& data_format,
                                  float exponential_avg_factor, const std::string& name) {
  Graph& g = *x.graph();
  const Tensor empty(DType::kFloat, TensorShape({0}));
  const Output m = mean.op().valid() ? mean : constant(g, empty);
  const Output v = variance.op().valid() ? variance : constant(g, empty);
  const Operation op = client::AddOp(g, "FusedBatchNormV3", name, {x, scale, offset, m, v},
                                     {{"epsilon", MakeAttr(epsilon)},
                                      {"exponential_avg_factor", MakeAttr(exponential_avg_factor)},
                                      {"data_format", MakeAttr(data_format)},
                                      {"is_training", MakeAttr(is_training)}});
  return {op.output(0), op.output(1), op.output(2)};
}

namespace {

Output Random(Graph& g, const char* op, const TensorShape& shape, DType dtype, int64_t seed,
              const std::string& name) {
  auto [seed1, seed2] = g.NextSeeds(seed);
  Axes dims(shape.dims().begin(), shape.dims().end());
  return client::AddOp(g, op, name, {IntVector(g, dims, "shape")},
                       {{"dtype", MakeAttr(dtype)}, {"seed", MakeAttr(seed1)}, {"seed2", MakeAttr(seed2)}})
      .output(0);
}

}  // namespace

Output random_uniform(Graph& g, const TensorShape& shape, double minval, double maxval, DType dtype,
                      int64_t seed, const std::string& name) {
  auto scope = g.name_scope(g.unique_unscoped_name(name));
  Output u = Random(g, "RandomUniform", shape, dtype, seed, "RandomUniform");
  if (minval == 0 && maxval == 1) return u;
  return u * (maxval - minval) + minval;
}
Output random_normal(Graph& g, const TensorShape& shape, double mean, double stddev, DType dtype,
                     int64_t seed, const std::string& name) {
  auto scope = g.name_scope(g.unique_unscoped_name(name));
  Output n = Random(g, "RandomStandardNormal", shape, dtype, seed, "RandomStandardNormal");
  if (mean == 0 && stddev == 1) return n;
  return n * stddev + mean;
}
Output truncated_normal(Graph& g, const TensorShape& shape, double mean, double stddev, DType dtype,
                        int64_t seed, const std::string& name) {
  auto scope = g.name_scope(g.unique_unscoped_name(name));
  Output n = Random(g, "TruncatedNormal", shape, dtype, seed, "TruncatedNormal");
  if (mean == 0 && stddev == 1) return n;
  return n * stddev + mean;
}

}  // namespace tw
