// Client functions for constants, base and elementwise math ops, and the operators.
#include "client/op_builder.h"
#include "tensorweave/gen_ops.h"  // one-op builders forward to the generated ones

namespace tw {
namespace client {

Operation AddOp(Graph& g, const std::string& op, const std::string& name,
                const std::vector<Output>& inputs, AttrMap attrs) {
  return g.AddOperation(op, name, inputs, attrs);
}

Output Op(const std::string& op, const std::string& name, const std::vector<Output>& inputs,
          AttrMap attrs) {
  if (inputs.empty() || inputs[0].graph() == nullptr) {
    throw StatusError(absl::InvalidArgumentError(op + ": first input is empty"));
  }
  return AddOp(*inputs[0].graph(), op, name, inputs, std::move(attrs)).output(0);
}

namespace {

int32_t CheckedInt32(int64_t x, const std::string& name) {
  if (x < INT32_MIN || x > INT32_MAX) {
    throw StatusError(absl::InvalidArgumentError(name + ": value " + std::to_string(x) + " out of int32 range"));
  }
  return static_cast<int32_t>(x);
}

}  // namespace

Output IntVector(Graph& g, const Axes& values, const std::string& name) {
  std::vector<int32_t> v;
  for (int64_t x : values) v.push_back(CheckedInt32(x, name));
  return constant(g, v, TensorShape({static_cast<int64_t>(v.size())}), name);
}

Output IntScalar(Graph& g, int64_t value, const std::string& name) {
  return constant(g, CheckedInt32(value, name), name);
}

Output Scalar(Graph& g, DType dtype, double value, const std::string& name) {
  Tensor t(dtype, TensorShape());
  if (!VisitAllPod(dtype, [&](auto tag) { *t.data<TypeOf<decltype(tag)>>() = static_cast<TypeOf<decltype(tag)>>(value); })) {
    throw StatusError(absl::InvalidArgumentError("no scalar of dtype " + DTypeName(dtype)));
  }
  return constant(g, t, name);
}

}  // namespace client

using client::Op;

Output constant(Graph& g, const Tensor& value, const std::string& name) {
  return client::AddOp(g, "Const", name, {}, {{"value", MakeAttr(value)}, {"dtype", MakeAttr(value.dtype())}})
      .output(0);
}
Output constant(Graph& g, int32_t value, const std::string& name) { return constant(g, Tensor::Scalar(value), name); }
Output constant(Graph& g, int64_t value, const std::string& name) { return constant(g, Tensor::Scalar(value), name); }
Output constant(Graph& g, float value, const std::string& name) { return constant(g, Tensor::Scalar(value), name); }
Output constant(Graph& g, double value, const std::string& name) { return constant(g, Tensor::Scalar(value), name); }
Output constant(Graph& g, bool value, const std::string& name) { return constant(g, Tensor::Scalar(value), name); }
Output constant(Graph& g, const std::string& value, const std::string& name) {
  return constant(g, Tensor::Scalar(value), name);
}
Output constant(Graph& g, const char* value, const std::string& name) { return constant(g, std::string(value), name); }
Output constant(Graph& g, const std::vector<std::string>& values, const std::string& name) {
  return constant(g, ValueOrThrow(Tensor::FromVector<std::string>(values, TensorShape({static_cast<int64_t>(values.size())}))),
                  name);
}
Output constant(Graph& g, const std::vector<float>& values, const TensorShape& shape, const std::string& name) {
  return constant(g, ValueOrThrow(Tensor::FromVector<float>(values, shape)), name);
}
Output constant(Graph& g, const std::vector<int32_t>& values, const TensorShape& shape, const std::string& name) {
  return constant(g, ValueOrThrow(Tensor::FromVector<int32_t>(values, shape)), name);
}

Output scalar_like(const Output& like, double value) {
  return client::Scalar(*like.graph(), like.dtype(), value, "y");
}

Output placeholder(Graph& g, DType dtype, const PartialShape& shape, const std::string& name) {
  return client::AddOp(g, "Placeholder", name, {}, {{"dtype", MakeAttr(dtype)}, {"shape", MakeAttr(shape)}})
      .output(0);
}
Output placeholder_with_default(const Output& input, const PartialShape& shape, const std::string& name) {
  return Op("PlaceholderWithDefault", name, {input}, {{"dtype", MakeAttr(input.dtype())}, {"shape", MakeAttr(shape)}});
}
Output identity(const Output& x, const std::string& name) { return ops::gen::Identity(x, name); }
Operation no_op(Graph& g, const std::string& name) { return client::AddOp(g, "NoOp", name, {}); }
Operation group(Graph& g, const std::vector<Operation>& deps, const std::string& name) {
  auto scope = g.control_dependencies(deps);
  return no_op(g, name);
}

Output add(const Output& x, const Output& y, const std::string& name) { return ops::gen::Add(x, y, name); }
Output subtract(const Output& x, const Output& y, const std::string& name) { return ops::gen::Sub(x, y, name); }
Output multiply(const Output& x, const Output& y, const std::string& name) { return ops::gen::Mul(x, y, name); }
Output divide(const Output& x, const Output& y, const std::string& name) { return ops::gen::Div(x, y, name); }
Output floordiv(const Output& x, const Output& y, const std::string& name) { return ops::gen::FloorDiv(x, y, name); }
Output floormod(const Output& x, const Output& y, const std::string& name) { return ops::gen::FloorMod(x, y, name); }
Output maximum(const Output& x, const Output& y, const std::string& name) { return ops::gen::Maximum(x, y, name); }
Output minimum(const Output& x, const Output& y, const std::string& name) { return ops::gen::Minimum(x, y, name); }
Output pow(const Output& x, const Output& y, const std::string& name) { return ops::gen::Pow(x, y, name); }
Output squared_difference(const Output& x, const Output& y, const std::string& name) { return ops::gen::SquaredDifference(x, y, name); }
Output equal(const Output& x, const Output& y, const std::string& name) { return ops::gen::Equal(x, y, {}, name); }
Output not_equal(const Output& x, const Output& y, const std::string& name) { return ops::gen::NotEqual(x, y, {}, name); }
Output less(const Output& x, const Output& y, const std::string& name) { return ops::gen::Less(x, y, name); }
Output less_equal(const Output& x, const Output& y, const std::string& name) { return ops::gen::LessEqual(x, y, name); }
Output greater(const Output& x, const Output& y, const std::string& name) { return ops::gen::Greater(x, y, name); }
Output greater_equal(const Output& x, const Output& y, const std::string& name) { return ops::gen::GreaterEqual(x, y, name); }
Output logical_and(const Output& x, const Output& y, const std::string& name) { return ops::gen::LogicalAnd(x, y, name); }
Output logical_or(const Output& x, const Output& y, const std::string& name) { return ops::gen::LogicalOr(x, y, name); }

Output logical_not(const Output& x, const std::string& name) { return ops::gen::LogicalNot(x, name); }
Output negative(const Output& x, const std::string& name) { return ops::gen::Neg(x, name); }
Output abs(const Output& x, const std::string& name) { return ops::gen::Abs(x, name); }
Output square(const Output& x, const std::string& name) { return ops::gen::Square(x, name); }
Output sqrt(const Output& x, const std::string& name) { return ops::gen::Sqrt(x, name); }
Output rsqrt(const Output& x, const std::string& name) { return ops::gen::Rsqrt(x, name); }
Output exp(const Output& x, const std::string& name) { return ops::gen::Exp(x, name); }
Output log(const Output& x, const std::string& name) { return ops::gen::Log(x, name); }
Output tanh(const Output& x, const std::string& name) { return ops::gen::Tanh(x, name); }
Output sigmoid(const Output& x, const std::string& name) { return ops::gen::Sigmoid(x, name); }
Output relu(const Output& x, const std::string& name) { return ops::gen::Relu(x, name); }

Output where(const Output& condition, const Output& x, const Output& y, const std::string& name) {
  return ops::gen::Select(condition, x, y, name);
}
Output cast(const Output& x, DType dtype, const std::string& name) {
  return Op("Cast", name, {x}, {{"DstT", MakeAttr(dtype)}});
}
Output add_n(const std::vector<Output>& inputs, const std::string& name) { return Op("AddN", name, inputs); }

Output operator+(const Output& x, const Output& y) { return add(x, y); }
Output operator-(const Output& x, const Output& y) { return subtract(x, y); }
Output operator*(const Output& x, const Output& y) { return multiply(x, y); }
Output operator/(const Output& x, const Output& y) { return divide(x, y); }
Output operator-(const Output& x) { return negative(x); }
Output operator+(const Output& x, double y) { return add(x, scalar_like(x, y)); }
Output operator-(const Output& x, double y) { return subtract(x, scalar_like(x, y)); }
Output operator*(const Output& x, double y) { return multiply(x, scalar_like(x, y)); }
Output operator/(const Output& x, double y) { return divide(x, scalar_like(x, y)); }
Output operator+(double x, const Output& y) { return add(scalar_like(y, x), y); }
Output operator-(double x, const Output& y) { return subtract(scalar_like(y, x), y); }
Output operator*(double x, const Output& y) { return multiply(scalar_like(y, x), y); }
Output operator/(double x, const Output& y) { return divide(scalar_like(y, x), y); }

}  // namespace tw
