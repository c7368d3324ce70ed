// CheckHealth (tensorweave/health.h): WorkerService.GetStatus, retried until it answers or
// the wait is over.
#include "tensorweave/health.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "distributed/rpc/grpc_security.h"
#include "distributed/rpc/grpc_util.h"
#include "tensorweave/cluster_spec.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "core/proto_namespace.h"

namespace tw {

StatusOr<HealthReport> CheckHealth(const std::string& address, const HealthOptions& options) {
  TW_RETURN_IF_ERROR(ValidateAddress(address));
  if (options.timeout_ms < 1 || options.wait_seconds < 0) {
    return absl::InvalidArgumentError("health check: the timeout must be positive and the wait not negative");
  }
  TW_ASSIGN_OR_RETURN(SecurityMaterial material,
                      LoadSecurityMaterial(WithEnvironmentDefaults(options.security), SecurityRole::kClient));
  const ClientCredentials credentials = MakeClientCredentials(material);
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto give_up = start + std::chrono::milliseconds(static_cast<int64_t>(options.wait_seconds * 1000));
  HealthReport report;
  grpc::Status last;
  while (true) {
    ++report.tries;
    const auto try_start = Clock::now();
    // A fresh channel per try: one that first met a closed port was seen never to connect
    // once the server came up ("tcp handshaker shutdown" on every later try).
    auto stub = WorkerService::NewStub(MakeChannel(address, credentials));
    grpc::ClientContext ctx;
    // Fail fast (connection refused is the useful error) and try again every 200 ms; a try
    // never outlasts the wait by much.
    const auto left = std::max(give_up - try_start, std::chrono::duration_cast<Clock::duration>(std::chrono::milliseconds(100)));
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::min<Clock::duration>(std::chrono::milliseconds(options.timeout_ms),
                                               options.wait_seconds > 0 ? left : Clock::duration::max()));
    GetStatusResponse resp;
    last = stub->GetStatus(&ctx, GetStatusRequest(), &resp);
    if (last.ok()) {
      report.devices.assign(resp.device().begin(), resp.device().end());
      report.incarnation = resp.incarnation();
      report.active_steps = resp.active_steps();
      return report;
    }
    // Only "not (yet) there" is worth another try; a refusal (token, TLS) stays one.
    const bool retry = last.error_code() == grpc::StatusCode::UNAVAILABLE ||
                       last.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
    if (!retry || Clock::now() >= give_up) break;
    std::this_thread::sleep_until(std::min(give_up, try_start + std::chrono::milliseconds(200)));
  }
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  return absl::Status(static_cast<absl::StatusCode>(last.error_code()),
                      absl::StrCat(address, " is not serving after ", report.tries, " tries in ",
                                   absl::StrFormat("%.1f", waited), " s: ", last.error_message()));
}

}  // namespace tw
