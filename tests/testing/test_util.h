// Test helpers: build tensors tersely, compare them with tolerances, and run one op on
// given inputs through a real LocalSession (graph building, shape inference, placement,
// executor and kernel all exercised).
#ifndef TENSORWEAVE_TESTS_TESTING_TEST_UTIL_H_
#define TENSORWEAVE_TESTS_TESTING_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "graph/attr_value.h"
#include "tensorweave/status.h"
#include "tensorweave/tensor.h"

namespace tw::testing {

// T(shape, values): a tensor of DTypeOf<T>; aborts the test on a count mismatch.
template <typename T>
Tensor Make(std::initializer_list<int64_t> shape, std::vector<T> values) {
  auto t = Tensor::FromVector<T>(values, TensorShape(shape));
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}
inline Tensor F32(std::initializer_list<int64_t> shape, std::vector<float> v) { return Make<float>(shape, v); }
inline Tensor F64(std::initializer_list<int64_t> shape, std::vector<double> v) { return Make<double>(shape, v); }
inline Tensor I32(std::initializer_list<int64_t> shape, std::vector<int32_t> v) { return Make<int32_t>(shape, v); }
inline Tensor I64(std::initializer_list<int64_t> shape, std::vector<int64_t> v) { return Make<int64_t>(shape, v); }
inline Tensor Bool(std::initializer_list<int64_t> shape, std::vector<bool> v) {
  Tensor t(DType::kBool, TensorShape(shape));
  for (size_t i = 0; i < v.size() && i < static_cast<size_t>(t.NumElements()); ++i) t.data<bool>()[i] = v[i];
  return t;
}

inline Tensor Str(std::initializer_list<int64_t> shape, std::vector<std::string> v) {
  return Make<std::string>(shape, std::move(v));
}

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Same dtype and shape, values equal (floating point: within atol + rtol * |expected|).
::testing::AssertionResult TensorNear(const Tensor& actual, const Tensor& expected,
                                      double atol = 1e-5, double rtol = 1e-5);
#define EXPECT_TENSOR_NEAR(actual, expected, ...) \
  EXPECT_TRUE(::tw::testing::TensorNear((actual), (expected), ##__VA_ARGS__))
#define EXPECT_TENSOR_EQ(actual, expected) \
  EXPECT_TRUE(::tw::testing::TensorNear((actual), (expected), 0, 0))

// Runs `op` with `inputs` fed as constants and the given attrs (type attrs such as "T"
// and list lengths such as "N" may be omitted: InferAttrsFromInputs fills them in).
// Returns all outputs of the node, or the first error (graph building or run time).
// op_test_util.h has the variants with fed inputs and the shape-inference helpers.
absl::StatusOr<std::vector<Tensor>> RunOp(const std::string& op, const std::vector<Tensor>& inputs,
                                          AttrMap attrs = {});
// The single output of RunOp; fails the test if there is an error.
Tensor RunOpOk(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs = {});

// Asserts `status` has `code` and its message contains `substring`.
::testing::AssertionResult StatusIs(const absl::Status& status, absl::StatusCode code,
                                    const std::string& substring);
#define EXPECT_STATUS(expr, code, substring) \
  EXPECT_TRUE(::tw::testing::StatusIs((expr), (code), (substring)))

// The status of the StatusError `fn` throws (OK when it throws none).
template <typename Fn>
absl::Status ErrorOf(Fn fn) {
  try {
    fn();
  } catch (const StatusError& e) {
    return e.status();
  }
  return absl::OkStatus();
}

}  // namespace tw::testing

// Tests live in namespace tw and use these on nearly every line.
namespace tw {
using testing::Bool;
using testing::ErrorOf;
using testing::F32;
using testing::F64;
using testing::I32;
using testing::I64;
using testing::kInf;
using testing::kNaN;
using testing::RunOp;
using testing::RunOpOk;
}  // namespace tw

#endif  // TENSORWEAVE_TESTS_TESTING_TEST_UTIL_H_
