// Errors are absl::Status inside tensorweave. The C++ client API's convenience calls
// throw tw::StatusError carrying the Status, so user programs can stay short.
#ifndef TENSORWEAVE_STATUS_H_
#define TENSORWEAVE_STATUS_H_

#include <stdexcept>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tw {

using Status = absl::Status;
template <typename T>
using StatusOr = absl::StatusOr<T>;

// The exception thrown by the client API; code() tells the kind of error.
class StatusError : public std::runtime_error {
 public:
  explicit StatusError(Status status)
      : std::runtime_error(status.ToString()), status_(std::move(status)) {}
  const Status& status() const { return status_; }
  absl::StatusCode code() const { return status_.code(); }

 private:
  Status status_;
};

// Throws StatusError when `status` is not OK.
inline void ThrowIfError(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}
template <typename T>
T ValueOrThrow(StatusOr<T> value) {
  ThrowIfError(value.status());
  return *std::move(value);
}

}  // namespace tw

#define TW_STATUS_CONCAT_INNER(a, b) a##b
#define TW_STATUS_CONCAT(a, b) TW_STATUS_CONCAT_INNER(a, b)

// Returns from the enclosing function when `expr` yields a non-OK status.
#define TW_RETURN_IF_ERROR(expr)                      \
  do {                                                \
    ::absl::Status tw_status_ = (expr);               \
    if (!tw_status_.ok()) return tw_status_;          \
  } while (0)

// `TW_ASSIGN_OR_RETURN(auto x, MakeX());` unwraps a StatusOr or returns its error.
#define TW_ASSIGN_OR_RETURN(lhs, expr) \
  TW_ASSIGN_OR_RETURN_IMPL(TW_STATUS_CONCAT(tw_statusor_, __LINE__), lhs, expr)
#define TW_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = *std::move(tmp)

#endif  // TENSORWEAVE_STATUS_H_
