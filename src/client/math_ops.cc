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

Output IntVector(Graph& g, const Axes& values, const std::string& name) {
  std::vector<int32_t> v;
  for (int64_t x : values) {
    if (x < INT32_MIN || x > INT32_MAX) {
      throw StatusError(absl::InvalidArgumentError(name + ": value out of int32 range"));
    }
    v.push_back(static_cast<int32_t>(x));
  }
  return constant(g, v, TensorShape({static_cast<int64_t>(v.size())}), name);
}

Output Scalar(Graph& g, DType dtype, double value, const std::string& name) {
  Tensor t(dtype, TensorShape());
  if (!VisitPod(dtype, [&](auto tag) { *t.data<TypeOf<decltype(tag)>>() = static_cast<TypeOf<decltype(tag)>>(value); })) {
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

#define TW_BINARY(fn, op) \
  Output fn(const Output& x, const Output& y, const std::string& name) { return Op(op, name, {x, y}); }
TW_BINARY(add, "Add")
TW_BINARY(subtract, "Sub")
TW_BINARY(multiply, "Mul")
TW_BINARY(divide, "Div")
TW_BINARY(maximum, "Maximum")
TW_BINARY(minimum, "Minimum")
TW_BINARY(pow, "Pow")
TW_BINARY(squared_difference, "SquaredDifference")
TW_BINARY(equal, "Equal")
TW_BINARY(not_equal, "NotEqual")
TW_BINARY(less, "Less")
TW_BINARY(less_equal, "LessEqual")
TW_BINARY(greater, "Greater")
TW_BINARY(greater_equal, "GreaterEqual")
TW_BINARY(logical_and, "LogicalAnd")
TW_BINARY(logical_or, "LogicalOr")
#undef TW_BINARY

#define TW_UNARY(fn, op) \
  Output fn(const Output& x, const std::string& name) { return Op(op, name, {x}); }
TW_UNARY(logical_not, "LogicalNot")
TW_UNARY(negative, "Neg")
TW_UNARY(abs, "Abs")
TW_UNARY(square, "Square")
TW_UNARY(sqrt, "Sqrt")
TW_UNARY(rsqrt, "Rsqrt")
TW_UNARY(exp, "Exp")
TW_UNARY(log, "Log")
TW_UNARY(tanh, "Tanh")
TW_UNARY(sigmoid, "Sigmoid")
TW_UNARY(relu, "Relu")
#undef TW_UNARY

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
