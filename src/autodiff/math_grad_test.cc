// Gradients of the elementwise math ops against finite differences (float64 unless
// noted), including broadcasting, second-order gradients and the ops with no gradient.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "autodiff/grad_util.h"
#include "autodiff/gradient_registry.h"
#include "graph/graph.h"
#include "tensorweave/gradients.h"
#include "testing/gradient_checker.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::Bool;
using testing::CheckGradients;
using testing::F32;
using testing::F64;
using testing::GradCheckOptions;
using testing::RandomTensor;
using Inputs = std::vector<Tensor>;

Output Unary(const std::string& op, const Output& x) { return grad::Op(op, {x}); }
Output Binary(const std::string& op, const Output& x, const Output& y) { return grad::Op(op, {x, y}); }

// Values with |v| in [lo, hi) and alternating signs: away from the kink at 0.
Tensor Signed(const TensorShape& shape, double lo, double hi, uint64_t seed) {
  Tensor t = RandomTensor(shape, lo, hi, seed);
  double* v = t.data<double>();
  for (int64_t i = 0; i < t.NumElements(); i += 2) v[i] = -v[i];
  return t;
}

Tensor ToF32(const Tensor& t) {
  Tensor out(DType::kFloat, t.shape());
  for (int64_t i = 0; i < t.NumElements(); ++i)
    out.data<float>()[i] = static_cast<float>(t.data<double>()[i]);
  return out;
}

// ---- unary ops

struct UnaryCase {
  const char* op;
  bool positive_only;  // Domain x > 0 (else inputs of both signs, away from 0).
};
const UnaryCase kUnaryOps[] = {{"Neg", false},     {"Abs", false},  {"Square", false},   {"Sqrt", true},
                               {"Rsqrt", true},    {"Exp", false},  {"Log", true},       {"Tanh", false},
                               {"Sigmoid", false}, {"Relu", false}, {"Reciprocal", true}};

Tensor UnaryInput(const UnaryCase& c, uint64_t seed) {
  return c.positive_only ? RandomTensor({2, 3}, 0.2, 2.0, seed) : Signed({2, 3}, 0.1, 1.5, seed);
}

TEST(MathGradTest, UnaryOpsMatchFiniteDifferences) {
  for (const UnaryCase& c : kUnaryOps) {
    SCOPED_TRACE(c.op);
    EXPECT_GRADIENTS_OK([&](Graph&, const std::vector<Output>& x) { return Unary(c.op, x[0]); },
                        Inputs{UnaryInput(c, 11)});
  }
}

// d/dx and d/dv of the vector-Jacobian product v * f'(x): exercises the gradients of the
// ops each gradient function builds (TanhGrad, SigmoidGrad, ReluGrad, Sign, ...).
TEST(MathGradTest, UnaryOpsSecondOrder) {
  for (const UnaryCase& c : kUnaryOps) {
    SCOPED_TRACE(c.op);
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& x) {
          return gradients({Unary(c.op, x[0])}, {x[0]}, {x[1]})[0];
        },
        (Inputs{UnaryInput(c, 12), RandomTensor({2, 3}, -1, 1, 13)}));
  }
}

TEST(MathGradTest, TanhAndSigmoidThirdOrder) {
  for (const char* op : {"Tanh", "Sigmoid"}) {
    SCOPED_TRACE(op);
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& x) {
          Output d1 = gradients({Unary(op, x[0])}, {x[0]}, {x[1]})[0];
          return gradients({d1}, {x[0]}, {x[1]})[0];
        },
        (Inputs{Signed({2, 3}, 0.1, 1.5, 14), RandomTensor({2, 3}, -1, 1, 15)}));
  }
}

TEST(MathGradTest, FusedGradOpsHaveGradientsForBothInputs) {
  // SigmoidGrad/TanhGrad(y, dy) and ReluGrad(gradients, features) as ops of their own.
  for (const char* op : {"SigmoidGrad", "TanhGrad", "ReluGrad"}) {
    SCOPED_TRACE(op);
    EXPECT_GRADIENTS_OK([&](Graph&, const std::vector<Output>& x) { return Binary(op, x[0], x[1]); },
                        (Inputs{Signed({2, 3}, 0.1, 0.9, 16), Signed({2, 3}, 0.1, 1.5, 17)}));
  }
}

TEST(MathGradTest, ReluGradGivesZerosForFeatures) {
  Graph g;
  auto dy = placeholder(g, DType::kDouble, PartialShape({3}), "dy");
  auto f = placeholder(g, DType::kDouble, PartialShape({3}), "f");
  auto grads = gradients({Binary("ReluGrad", dy, f)}, {dy, f});
  ASSERT_TRUE(HasGradient(grads[1]));
  Session sess(g);
  auto out = sess.run({grads[0], grads[1]}, {{dy, F64({3}, {5, 6, 7})}, {f, F64({3}, {-1, 2, 3})}});
  EXPECT_TENSOR_EQ(out[0], F64({3}, {0, 1, 1}));
  EXPECT_TENSOR_EQ(out[1], F64({3}, {0, 0, 0}));
}

// ---- binary ops

struct BinaryCase {
  const char* op;
  double x_lo, x_hi;  // |x| range; Signed alternates signs unless x_positive.
  bool x_positive;
  double y_lo, y_hi;
  bool y_positive;
};
const BinaryCase kBinaryOps[] = {
    {"Add", 0.1, 1, false, 0.1, 1, false},     {"AddV2", 0.1, 1, false, 0.1, 1, false},
    {"Sub", 0.1, 1, false, 0.1, 1, false},     {"Mul", 0.1, 1, false, 0.1, 1, false},
    {"Div", 0.1, 1, false, 0.5, 1.5, false},   {"RealDiv", 0.1, 1, false, 0.5, 1.5, false},
    {"Maximum", 0.1, 1, false, 0.1, 1, false}, {"Minimum", 0.1, 1, false, 0.1, 1, false},
    {"Pow", 0.5, 2, true, -1.5, 1.5, true},    {"SquaredDifference", 0.1, 1, false, 0.1, 1, false},
    // |x / y| < 1 keeps every point away from floor's jumps.
    {"FloorMod", 0.1, 0.4, false, 0.5, 1.5, false},
};

Tensor BinaryInput(double lo, double hi, bool positive, const TensorShape& shape, uint64_t seed) {
  return positive ? RandomTensor(shape, lo, hi, seed) : Signed(shape, lo, hi, seed);
}

Inputs BinaryInputs(const BinaryCase& c, const TensorShape& xs, const TensorShape& ys, uint64_t seed) {
  return {BinaryInput(c.x_lo, c.x_hi, c.x_positive, xs, seed),
          BinaryInput(c.y_lo, c.y_hi, c.y_positive, ys, seed + 100)};
}

TEST(MathGradTest, BinaryOpsMatchFiniteDifferences) {
  for (const BinaryCase& c : kBinaryOps) {
    SCOPED_TRACE(c.op);
    EXPECT_GRADIENTS_OK([&](Graph&, const std::vector<Output>& x) { return Binary(c.op, x[0], x[1]); },
                        BinaryInputs(c, {2, 3}, {2, 3}, 21));
  }
}

TEST(MathGradTest, BinaryOpsReduceBroadcastGradients) {
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {{2, 3}, {3}}, {{3}, {2, 3}}, {{2, 1}, {1, 3}}, {{}, {2, 2}}, {{2, 2}, {}}};
  for (const BinaryCase& c : kBinaryOps) {
    for (const auto& [xs, ys] : shapes) {
      SCOPED_TRACE(std::string(c.op) + " " + xs.DebugString() + " with " + ys.DebugString());
      EXPECT_GRADIENTS_OK([&](Graph&, const std::vector<Output>& x) { return Binary(c.op, x[0], x[1]); },
                          BinaryInputs(c, xs, ys, 22));
    }
  }
}

// Each input's gradient of v * op(x, y), differentiated again w.r.t. x, y and v.
TEST(MathGradTest, BinaryOpsSecondOrder) {
  for (const BinaryCase& c : kBinaryOps) {
    for (int which : {0, 1}) {
      SCOPED_TRACE(std::string(c.op) + (which == 0 ? " d/dx" : " d/dy"));
      Inputs in = BinaryInputs(c, {2, 3}, {2, 3}, 23);
      in.push_back(RandomTensor({2, 3}, -1, 1, 24));
      EXPECT_GRADIENTS_OK(
          [&](Graph&, const std::vector<Output>& x) {
            return gradients({Binary(c.op, x[0], x[1])}, {x[0], x[1]}, {x[2]})[which];
          },
          in);
    }
  }
}

TEST(MathGradTest, Float32WithLooserTolerance) {
  GradCheckOptions loose;
  loose.delta = 1e-3;
  loose.tolerance = 5e-3;
  for (const char* op : {"Tanh", "Sigmoid", "Sqrt", "Log"}) {
    SCOPED_TRACE(op);
    EXPECT_GRADIENTS_OK([&](Graph&, const std::vector<Output>& x) { return Unary(op, x[0]); },
                        Inputs{ToF32(RandomTensor({2, 3}, 0.2, 2, 31))}, loose);
  }
  for (const char* op : {"Mul", "Div", "Pow", "Maximum"}) {
    SCOPED_TRACE(op);
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& x) { return Binary(op, x[0], x[1]); },
        (Inputs{ToF32(RandomTensor({2, 3}, 0.5, 2, 32)), ToF32(RandomTensor({3}, 0.5, 2, 33))}), loose);
  }
}

TEST(MathGradTest, MaximumAndMinimumSendTiesToX) {
  Graph g;
  auto x = constant(g, F64({3}, {1, 2, 3}));
  auto y = constant(g, F64({3}, {1, 0, 5}));
  auto up = constant(g, F64({3}, {10, 20, 30}));
  auto max_grads = gradients({maximum(x, y)}, {x, y}, {up});
  auto min_grads = gradients({minimum(x, y)}, {x, y}, {up});
  Session sess(g);
  auto out = sess.run({max_grads[0], max_grads[1], min_grads[0], min_grads[1]});
  EXPECT_TENSOR_EQ(out[0], F64({3}, {10, 20, 0}));
  EXPECT_TENSOR_EQ(out[1], F64({3}, {0, 0, 30}));
  EXPECT_TENSOR_EQ(out[2], F64({3}, {10, 0, 30}));
  EXPECT_TENSOR_EQ(out[3], F64({3}, {0, 20, 0}));
}

TEST(MathGradTest, PowAtZeroBase) {
  // x = 0 with integer exponents > 1: both derivatives are 0 and finite differences agree.
  EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return pow(x[0], x[1]); },
                      (Inputs{F64({4}, {0, 0, 1.5, 0.5}), F64({4}, {2, 3, 2, 1.5})}));

  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({4}), "x");
  auto y = placeholder(g, DType::kDouble, PartialShape({4}), "y");
  auto v = constant(g, F64({4}, {1, 1, 1, 1}));
  auto first = gradients({pow(x, y)}, {x, y}, {v});
  // d/dx of dz/dy = d/dx (x^y log x): 0 at x = 0, not 0 * inf = NaN.
  auto second = gradients({first[1]}, {x}, {v})[0];
  Session sess(g);
  auto out =
      sess.run({first[0], first[1], second}, {{x, F64({4}, {0, 0, -2, 4})}, {y, F64({4}, {2, 0.5, 3, 0.5})}});
  // dz/dy = z log x, taken as 0 where x <= 0 (as TensorFlow).
  EXPECT_TENSOR_NEAR(out[1], F64({4}, {0, 0, 0, 2 * std::log(4.0)}), 1e-12);
  const double* dx = out[0].data<double>();
  EXPECT_EQ(dx[0], 0);
  EXPECT_TRUE(std::isinf(dx[1]));  // 0.5 * 0^-0.5, as in TensorFlow.
  EXPECT_EQ(dx[2], 12);
  EXPECT_NEAR(dx[3], 0.25, 1e-12);
  // Element 1 (x = 0, y = 0.5) is truly singular: (0.5 log x + 1) / sqrt(x).
  const double* d2 = out[2].data<double>();
  EXPECT_EQ(d2[0], 0);
  EXPECT_EQ(d2[2], 0);
  EXPECT_NEAR(d2[3], 2 * (0.5 * std::log(4.0) + 1) / 4, 1e-12);  // x^y (y log x + 1) / x
}

TEST(MathGradTest, IntegerDivHasNoGradient) {
  Graph g;
  auto a = constant(g, testing::I32({2}, {7, 8}));
  Operation div = divide(a, a).op();
  auto fn = GradientRegistry::Global().Find("Div");
  ASSERT_TRUE(fn.ok());
  auto grads = (**fn)(GradContext{div, {div.output(0)}});
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_FALSE(HasGradient(grads[0]));
  EXPECT_FALSE(HasGradient(grads[1]));
}

// ---- Select, Cast, AddN

Output SelectV2(const Output& c, const Output& t, const Output& e) { return grad::Op("SelectV2", {c, t, e}); }
Output Select(const Output& c, const Output& t, const Output& e) { return grad::Op("Select", {c, t, e}); }
Output Unknown(const Output& x) { return placeholder_with_default(x, PartialShape::UnknownRank()); }

TEST(MathGradTest, SelectV2BroadcastsAndUnbroadcasts) {
  EXPECT_GRADIENTS_OK(
      [](Graph& g, const std::vector<Output>& x) {
        return SelectV2(constant(g, Bool({2, 1}, {true, false})), x[0], x[1]);
      },
      (Inputs{RandomTensor({2, 3}, -1, 1, 41), RandomTensor({3}, -1, 1, 42)}));
  EXPECT_GRADIENTS_OK(
      [](Graph& g, const std::vector<Output>& x) {
        return SelectV2(constant(g, Bool({3}, {true, false, true})), x[0], x[1]);
      },
      (Inputs{RandomTensor({2, 1}, -1, 1, 43), RandomTensor({}, -1, 1, 44)}));
}

TEST(MathGradTest, SelectRowSelection) {
  Graph g;
  auto t = placeholder(g, DType::kDouble, PartialShape({2, 3}), "t");
  auto e = placeholder(g, DType::kDouble, PartialShape({2, 3}), "e");
  auto c = constant(g, Bool({2}, {true, false}));
  auto grads = gradients({Select(c, t, e)}, {c, t, e});
  EXPECT_FALSE(HasGradient(grads[0]));
  Session sess(g);
  FeedDict feeds = {{t, RandomTensor({2, 3}, -1, 1, 45)}, {e, RandomTensor({2, 3}, -1, 1, 46)}};
  auto out = sess.run({grads[1], grads[2]}, feeds);
  EXPECT_TENSOR_EQ(out[0], F64({2, 3}, {1, 1, 1, 0, 0, 0}));
  EXPECT_TENSOR_EQ(out[1], F64({2, 3}, {0, 0, 0, 1, 1, 1}));

  for (bool known : {true, false}) {
    SCOPED_TRACE(known ? "static shapes" : "shapes known at run time only");
    EXPECT_GRADIENTS_OK(
        [&](Graph& g, const std::vector<Output>& x) {
          auto c = constant(g, Bool({2}, {false, true}));
          return known ? Select(c, x[0], x[1]) : Select(c, Unknown(x[0]), Unknown(x[1]));
        },
        (Inputs{RandomTensor({2, 3}, -1, 1, 47), RandomTensor({2, 3}, -1, 1, 48)}));
  }
}

TEST(MathGradTest, SelectBroadcastsWhenRowsDoNotApply) {
  // t [2,2] and e [2] differ in shape, so condition [2] broadcasts over t's last dim.
  for (bool known : {true, false}) {
    SCOPED_TRACE(known ? "static shapes" : "shapes known at run time only");
    Graph g;
    auto t = placeholder(g, DType::kDouble, PartialShape({2, 2}), "t");
    auto e = placeholder(g, DType::kDouble, PartialShape({2}), "e");
    auto c = constant(g, Bool({2}, {true, false}));
    auto y = known ? Select(c, t, e) : Select(c, Unknown(t), Unknown(e));
    auto grads = gradients({y}, {t, e}, {constant(g, F64({2, 2}, {1, 2, 3, 4}))});
    Session sess(g);
    auto out = sess.run({grads[0], grads[1]}, {{t, F64({2, 2}, {0, 0, 0, 0})}, {e, F64({2}, {0, 0})}});
    EXPECT_TENSOR_EQ(out[0], F64({2, 2}, {1, 0, 3, 0}));
    EXPECT_TENSOR_EQ(out[1], F64({2}, {0, 6}));
  }
}

TEST(MathGradTest, SelectWithConditionComputedFromInput) {
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) {
        return where(greater(x[0], scalar_like(x[0], 0)), x[0] * x[0], -x[0]);
      },
      Inputs{Signed({2, 3}, 0.1, 1, 49)});
}

TEST(MathGradTest, CastBetweenFloatTypes) {
  GradCheckOptions options;
  options.delta = 1e-2;  // Cast is linear; a wide step keeps float32 rounding small.
  options.tolerance = 1e-4;
  EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return cast(x[0], DType::kDouble); },
                      Inputs{ToF32(RandomTensor({2, 3}, -1, 1, 51))}, options);
  EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return cast(x[0], DType::kFloat) * 3.0; },
                      Inputs{RandomTensor({2, 3}, -1, 1, 52)}, options);

  Graph g;
  auto x32 = placeholder(g, DType::kFloat, PartialShape({2}), "x32");
  auto x64 = placeholder(g, DType::kDouble, PartialShape({2}), "x64");
  auto g32 = gradients({cast(x32, DType::kDouble)}, {x32})[0];
  auto g64 = gradients({cast(x64, DType::kFloat)}, {x64})[0];
  EXPECT_EQ(g32.dtype(), DType::kFloat);
  EXPECT_EQ(g64.dtype(), DType::kDouble);
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(g64, {{x64, F64({2}, {1, 2})}}), F64({2}, {1, 1}));
}

TEST(MathGradTest, CastThroughIntegerOrBoolHasNoGradient) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({2}), "x");
  auto via_int = cast(cast(x, DType::kInt32), DType::kDouble);
  auto via_bool = cast(greater(x, scalar_like(x, 0)), DType::kDouble);
  EXPECT_FALSE(HasGradient(gradients({via_int}, {x})[0]));
  EXPECT_FALSE(HasGradient(gradients({via_bool}, {x})[0]));
  // Called directly, the Cast gradient of int32 -> float64 is none too.
  Operation to_double = cast(constant(g, testing::I32({2}, {1, 2})), DType::kDouble).op();
  auto grads = (**GradientRegistry::Global().Find("Cast"))(GradContext{to_double, {to_double.output(0)}});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_FALSE(HasGradient(grads[0]));
}

TEST(MathGradTest, AddNSendsTheGradientToEveryInput) {
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) {
        return add_n({x[0], x[1] * x[0], x[2]});
      },
      (Inputs{RandomTensor({2, 3}, -1, 1, 61), RandomTensor({2, 3}, -1, 1, 62),
              RandomTensor({2, 3}, -1, 1, 63)}));
  Graph g;
  auto a = placeholder(g, DType::kDouble, PartialShape({2}), "a");
  auto b = placeholder(g, DType::kDouble, PartialShape({2}), "b");
  auto grads = gradients({add_n({a, b, a})}, {a, b}, {constant(g, F64({2}, {1, 5}))});
  Session sess(g);
  auto out = sess.run({grads[0], grads[1]}, {{a, F64({2}, {0, 0})}, {b, F64({2}, {0, 0})}});
  EXPECT_TENSOR_EQ(out[0], F64({2}, {2, 10}));
  EXPECT_TENSOR_EQ(out[1], F64({2}, {1, 5}));
}

// ---- registration

TEST(MathGradTest, EveryDifferentiableOpHasAGradientFunction) {
  for (const char* op : {"Add",        "AddV2",       "Sub",      "Mul",     "Div",
                         "RealDiv",    "Maximum",     "Minimum",  "Pow",     "SquaredDifference",
                         "Neg",        "Abs",         "Square",   "Sqrt",    "Rsqrt",
                         "Exp",        "Log",         "Tanh",     "Sigmoid", "Relu",
                         "Reciprocal", "Select",      "SelectV2", "Cast",    "AddN",
                         "ReluGrad",   "SigmoidGrad", "TanhGrad", "FloorMod"}) {
    EXPECT_TRUE(GradientRegistry::Global().Find(op).ok()) << op;
  }
}

TEST(MathGradTest, ComparisonLogicalAndSignOpsHaveNoGradient) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({2}), "x");
  auto b = placeholder(g, DType::kBool, PartialShape({2}), "b");
  std::vector<Output> outs;
  for (const char* op : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"}) {
    outs.push_back(Binary(op, x, x));
  }
  outs.push_back(Binary("LogicalAnd", b, b));
  outs.push_back(Binary("LogicalOr", b, b));
  outs.push_back(Unary("LogicalNot", b));
  outs.push_back(Unary("Sign", x));
  outs.push_back(Binary("FloorDiv", x, x));
  for (const Output& out : outs) {
    const std::string& op = out.op().type();
    SCOPED_TRACE(op);
    auto fn = GradientRegistry::Global().Find(op);
    ASSERT_TRUE(fn.ok()) << fn.status();
    auto grads = (**fn)(GradContext{out.op(), {out}});
    ASSERT_EQ(static_cast<int>(grads.size()), out.op().node()->num_inputs());
    for (const Output& gi : grads) EXPECT_FALSE(HasGradient(gi));
  }
}

TEST(MathGradTest, NoGradientPathsDoNotThrow) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({3}), "x");
  auto y = placeholder(g, DType::kDouble, PartialShape({3}), "y");
  // Only x * sign(x)'s first factor carries a gradient; sign and the comparison none.
  auto loss = cast(less(x, y), DType::kDouble) + x * Unary("Sign", x);
  std::vector<Output> grads;
  ASSERT_NO_THROW(grads = gradients({loss}, {x, y}));
  EXPECT_FALSE(HasGradient(grads[1]));
  EXPECT_FALSE(HasGradient(gradients({Unary("Sign", x)}, {x})[0]));
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(grads[0], {{x, F64({3}, {-2, 0.5, 3})}, {y, F64({3}, {0, 0, 0})}}),
                   F64({3}, {-1, 1, 1}));
}

}  // namespace
}  // namespace tw
