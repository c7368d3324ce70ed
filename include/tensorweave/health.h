// Whether a task serves: the probe of `tw health`, Kubernetes liveness/readiness and scripts
// waiting on a cluster. It calls the task's WorkerService.GetStatus, so a task that answers
// has its services up (what a session needs), not just an open port.
//
//   tw::HealthOptions options{.wait_seconds = 30};
//   auto health = tw::CheckHealth("localhost:2222", options);   // retries until it answers
#ifndef TENSORWEAVE_HEALTH_H_
#define TENSORWEAVE_HEALTH_H_

#include <string>
#include <vector>

#include "tensorweave/security.h"
#include "tensorweave/status.h"

namespace tw {

struct HealthOptions {
  // What to present to a secured cluster (TLS, token); empty fields default to the
  // environment (TW_TLS_CA, ..., as clients do).
  TransportSecurity security;
  // Keep trying for this long (0: one try); each try waits at most timeout_ms.
  double wait_seconds = 0;
  int timeout_ms = 2000;
};

struct HealthReport {
  std::vector<std::string> devices;
  int64_t incarnation = 0;
  int64_t active_steps = 0;
  int tries = 0;
};

// The task's status; otherwise the last error, saying the address and how long it was tried
// (Unavailable: nothing answers; DeadlineExceeded; Unauthenticated: give the token; ...).
StatusOr<HealthReport> CheckHealth(const std::string& address, const HealthOptions& options = {});

}  // namespace tw

#endif  // TENSORWEAVE_HEALTH_H_
