#include "testing/test_util.h"

#include <cmath>
#include <type_traits>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "testing/op_test_util.h"

namespace tw::testing {

::testing::AssertionResult TensorNear(const Tensor& actual, const Tensor& expected, double atol,
                                      double rtol) {
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << DTypeName(actual.dtype()) << " != expected "
                                         << DTypeName(expected.dtype());
  }
  if (actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure() << "shape " << actual.shape().DebugString()
                                         << " != expected " << expected.shape().DebugString();
  }
  std::string failure;
  if (actual.dtype() == DType::kString) {  // Exact, byte for byte.
    auto a = actual.flat<std::string>(), e = expected.flat<std::string>();
    for (size_t i = 0; i < a.size() && failure.empty(); ++i) {
      if (a[i] != e[i]) failure = absl::StrCat("element ", i, ": \"", absl::CEscape(a[i]), "\" != expected \"", absl::CEscape(e[i]), "\"");
    }
  }
  auto near = [&](size_t i, double x, double y) {
    if ((std::isnan(x) && std::isnan(y)) || x == y || std::abs(x - y) <= atol + rtol * std::abs(y)) return true;
    failure = absl::StrCat("element ", i, ": ", x, " != expected ", y);
    return false;
  };
  VisitAllPod(actual.dtype(), [&](auto tag) {
    using T = TypeOf<decltype(tag)>;
    auto a = actual.flat<T>(), e = expected.flat<T>();
    for (size_t i = 0; i < a.size(); ++i) {
      if constexpr (kIsComplex<T>) {  // Each part on its own.
        if (!near(i, a[i].real(), e[i].real()) || !near(i, a[i].imag(), e[i].imag())) return;
      } else {
        using Value = std::conditional_t<std::is_same_v<T, half>, float, T>;  // Half converts explicitly.
        if (!near(i, static_cast<Value>(a[i]), static_cast<Value>(e[i]))) return;
      }
    }
  });
  if (!failure.empty()) {
    return ::testing::AssertionFailure() << failure << "\n  actual:   " << actual.DebugString(64)
                                         << "\n  expected: " << expected.DebugString(64);
  }
  return ::testing::AssertionSuccess();
}

absl::StatusOr<std::vector<Tensor>> RunOp(const std::string& op, const std::vector<Tensor>& inputs,
                                          AttrMap attrs) {
  return RunOpWith(op, std::vector<OpInput>(inputs.begin(), inputs.end()), std::move(attrs),
                   /*feed=*/false);
}

Tensor RunOpOk(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs) {
  auto out = RunOp(op, inputs, std::move(attrs));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->empty()) return Tensor();
  return (*out)[0];
}

::testing::AssertionResult StatusIs(const absl::Status& status, absl::StatusCode code,
                                    const std::string& substring) {
  if (status.code() != code) {
    return ::testing::AssertionFailure() << "status " << status << " does not have code "
                                         << absl::StatusCodeToString(code);
  }
  if (status.message().find(substring) == std::string::npos) {
    return ::testing::AssertionFailure() << "status message '" << status.message()
                                         << "' does not contain '" << substring << "'";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tw::testing
