// Step latency of a trivial 2-task graph (x on task 1, x + 1 on task 0, fetched by a
// client through task 0) against a raw gRPC unary round trip to the same server in the
// same run (WorkerService.GetStatus: a tiny request and reply). Servers run in this
// process on loopback; medians over repeated runs.
//   distributed_step [--steps N]
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/net_util.h"
#include "distributed/rpc/grpc_util.h"
#include "tensorweave/process.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/tensorweave.h"
#include "timing.h"

namespace {

template <typename Fn>
double MedianMicros(int n, Fn&& fn) {
  return 1e6 * tw::bench::MedianSeconds(n, /*warmup=*/50, fn);  // Warm-up: connections, prepared partitions.
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  int steps = 2000;
  std::string spec;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--cluster_spec")) spec = argv[i + 1];
  }
  tw::InProcessCluster cluster;
  if (spec.empty()) {
    cluster = tw::ValueOrThrow(tw::StartInProcessCluster("local", 2));
  } else {
    cluster.spec = tw::ValueOrThrow(tw::ClusterSpec::Parse(spec));
  }
  auto target = [&](int task) { return "grpc://" + *cluster.spec.address("local", task); };
  tw::Graph g;
  tw::Output x, y;
  {
    auto on = g.device("/job:local/task:1");
    x = tw::constant(g, 1.0f);
  }
  {
    auto on = g.device("/job:local/task:0");
    y = x + 1.0;
  }
  tw::Session sess(g, target(0));
  double step_us = MedianMicros(steps, [&] { sess.run(y); });
  double remote_fetch_us = MedianMicros(steps, [&] { sess.run(x); });
  std::printf("fetch of x (on task 1) through task 0:       %.1f us median of %d\n", remote_fetch_us, steps);
  tw::Graph g1;
  auto z = tw::constant(g1, 1.0f) + 1.0;
  tw::Session sess1(g1, target(0));
  double one_task_us = MedianMicros(steps, [&] { sess1.run(z); });
  std::printf("1-task step through the master:             %.1f us median of %d\n", one_task_us, steps);

  auto stub = tw::WorkerService::NewStub(tw::MakeChannel(*cluster.spec.address("local", 0)));
  double rtt_us = MedianMicros(steps, [&] {
    grpc::ClientContext ctx;
    tw::GetStatusResponse resp;
    stub->GetStatus(&ctx, tw::GetStatusRequest(), &resp);
  });
  std::printf("2-task step (x on task 1, x + 1 on task 0): %.1f us median of %d\n", step_us, steps);
  std::printf("raw gRPC unary round trip to task 0:        %.1f us median of %d\n", rtt_us, steps);
  std::printf("ratio step / round trip: %.2fx (target: at most 3x)\n", step_us / rtt_us);
  std::printf("RESULT step_us=%.2f rtt_us=%.2f\n", step_us, rtt_us);
  return 0;
}
