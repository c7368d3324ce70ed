// Session hooks shared by the monitored-session tests.
#ifndef TENSORWEAVE_TESTS_TESTING_STEP_HOOKS_H_
#define TENSORWEAVE_TESTS_TESTING_STEP_HOOKS_H_

#include <cstdint>
#include <vector>

#include "tensorweave/session_run_hook.h"

namespace tw::testing {

// Records the global step of every session created (one entry per (re)creation).
class StepAtCreationHook : public SessionRunHook {
 public:
  explicit StepAtCreationHook(Output step) : step_(step) {}
  void after_create_session(Session& session) override { steps.push_back(session.run(step_).scalar<int64_t>()); }
  std::vector<int64_t> steps;

 private:
  Output step_;
};

}  // namespace tw::testing

#endif  // TENSORWEAVE_TESTS_TESTING_STEP_HOOKS_H_
