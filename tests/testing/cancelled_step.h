// Runs a graph (placed on one CPU device) with an executor whose step the test cancels:
// for kernel tests of blocking ops, which must end when their step is cancelled.
#ifndef TENSORWEAVE_TESTS_TESTING_CANCELLED_STEP_H_
#define TENSORWEAVE_TESTS_TESTING_CANCELLED_STEP_H_

#include <memory>

#include "absl/status/status.h"
#include "tensorweave/graph.h"

namespace tw::testing {

class CancelledStep {
 public:
  explicit CancelledStep(Graph& g);
  ~CancelledStep();
  // Starts the step, cancels it after 20 ms, and returns how it ended.
  absl::Status RunAndCancel();

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace tw::testing

#endif  // TENSORWEAVE_TESTS_TESTING_CANCELLED_STEP_H_
