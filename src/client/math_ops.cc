// Client functions for constants, base and elementwise math ops, and the operators.
#include "client/op_builder.h"

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
Output identity(const Output& x, const std::string& name) { return Op("Identity", name, {x}); }
Operation no_op(Graph& g, const std::string& name) { return client::AddOp(g, "NoOp", name, {}); }
Operation group(Graph& g, const std::vector<Operation>& deps, const std::string& name) {
  auto scope = g.control_dependencies(deps);
  return no_op(g, name);
}

Output add(const Output& x, const Output& y, const std::string& name) { return Op("Add", name, {x, y}); }
Output subtract(const Output& x, const Output& y, const std::string& name) { return Op("Sub", name, {x, y}); }
Output multiply(const Output& x, const Output& y, const std::string& name) { return Op("Mul", name, {x, y}); }
Output divide(const Output& x, const Output& y, const std::string& name) { return Op("Div", name, {x, y}); }
Output floordiv(const Output& x, const Output& y, const std::string& name) { return Op("FloorDiv", name, {x, y}); }
Output floormod(const Output& x, const Output& y, const std::string& name) { return Op("FloorMod", name, {x, y}); }
Output maximum(const Output& x, const Output& y, const std::string& name) { return Op("Maximum", name, {x, y}); }
Output minimum(const Output& x, const Output& y, const std::string& name) { return Op("Minimum", name, {x, y}); }
Output pow(const Output& x, const Output& y, const std::string& name) { return Op("Pow", name, {x, y}); }
Output squared_difference(const Output& x, const Output& y, const std::string& name) { return Op("SquaredDifference", name, {x, y}); }
Output equal(const Output& x, const Output& y, const std::string& name) { return Op("Equal", name, {x, y}); }
Output not_equal(const Output& x, const Output& y, const std::string& name) { return Op("NotEqual", name, {x, y}); }
Output less(const Output& x, const Output& y, const std::string& name) { return Op("Less", name, {x, y}); }
Output less_equal(const Output& x, const Output& y, const std::string& name) { return Op("LessEqual", name, {x, y}); }
Output greater(const Output& x, const Output& y, const std::string& name) { return Op("Greater", name, {x, y}); }
Output greater_equal(const Output& x, const Output& y, const std::string& name) { return Op("GreaterEqual", name, {x, y}); }
Output logical_and(const Output& x, const Output& y, const std::string& name) { return Op("LogicalAnd", name, {x, y}); }
Output logical_or(const Output& x, const Output& y, const std::string& name) { return Op("LogicalOr", name, {x, y}); }

Output logical_not(const Output& x, const std::string& name) { return Op("LogicalNot", name, {x}); }
Output negative(const Output& x, const std::string& name) { return Op("Neg", name, {x}); }
Output abs(const Output& x, const std::string& name) { return Op("Abs", name, {x}); }
Output square(const Output& x, const std::string& name) { return Op("Square", name, {x}); }
Output sqrt(const Output& x, const std::string& name) { return Op("Sqrt", name, {x}); }
Output rsqrt(const Output& x, const std::string& name) { return Op("Rsqrt", name, {x}); }
Output exp(const Output& x, const std::string& name) { return Op("Exp", name, {x}); }
Output log(const Output& x, const std::string& name) { return Op("Log", name, {x}); }
Output tanh(const Output& x, const std::string& name) { return Op("Tanh", name, {x}); }
Output sigmoid(const Output& x, const std::string& name) { return Op("Sigmoid", name, {x}); }
Output relu(const Output& x, const std::string& name) { return Op("Relu", name, {x}); }

Output where(const Output& condition, const Output& x, const Output& y, const std::string& name) {
  return Op("Select", name, {condition, x, y});
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
