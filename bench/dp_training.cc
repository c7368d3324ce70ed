// Examples/s of synchronous data-parallel training of the 784 -> 256 -> 10 MLP (Adam,
// batch 128 per worker) on a local cluster of `tw server` processes: 1 ps + N workers on
// loopback, between-graph replication (replica_device_setter, SyncReplicasOptimizer under
// MonitoredTrainingSessions, one client thread per worker). The peer is
// bench/torch_dp_training.py; bench/dp_training.sh runs both.
//   dp_training [--workers N] [--steps S] [--repeats R] [--warmup W]
// Prints the examples/s of each repeat (S global steps) and their median.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include "distributed/process_cluster.h"
#include "mlp_model.h"
#include "tensorweave/tensorweave.h"

namespace {

constexpr int kBatch = 128;

struct Options {
  int workers = 2, steps = 100, repeats = 5, warmup = 30;
};

// Worker `task`'s client: trains until the chief (task 0) has made warmup + repeats *
// steps global steps, timing each repeat; the others end when the chief stops the sync
// loop (OutOfRange on the token queue).
void RunWorker(const tw::ClusterSpec& cluster, int task, const Options& o, std::vector<double>* examples_per_s) {
  tw::Graph g;
  g.set_seed(1);
  tw::AdamOptimizer adam(0.001);
  tw::SyncReplicasOptimizer sync(adam, o.workers, o.workers);
  tw::Variable step;
  tw::Operation train;
  tw::bench::Mlp mlp;
  {
    auto on = g.device(tw::replica_device_setter(cluster, "/job:worker/task:" + std::to_string(task)));
    mlp = tw::bench::BuildMlp(g, kBatch);
    step = tw::get_or_create_global_step(g);
    train = sync.minimize(mlp.loss, step);
  }
  const tw::Output step_value = step.value();
  const tw::FeedDict feeds = tw::bench::MlpBatch(mlp, kBatch, 5 + task);
  tw::MonitoredTrainingSessionOptions options;
  options.master = "grpc://" + *cluster.address("worker", task);
  options.is_chief = task == 0;
  options.log_step_count_steps = 0;
  options.recovery_wait_secs = 0.05;
  options.hooks = {sync.make_session_run_hook(task == 0)};
  tw::MonitoredTrainingSession sess(g, options);
  if (task != 0) {
    try {
      while (true) sess.run(train, feeds);
    } catch (const tw::StatusError& e) {
      if (!absl::IsOutOfRange(e.status())) throw;
    }
    return;
  }
  auto global_step = [&] { return sess.run({step_value}, feeds, {train})[0].scalar<int64_t>(); };
  int64_t at = global_step();
  while (at < o.warmup) at = global_step();
  for (int r = 0; r < o.repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const int64_t first = at;
    while (at < first + o.steps) at = global_step();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    examples_per_s->push_back(static_cast<double>(at - first) * kBatch * o.workers / secs);
  }
  sess.close();  // Stops the sync loop; the other workers end.
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--workers")) o.workers = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--steps")) o.steps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) o.repeats = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--warmup")) o.warmup = std::atoi(argv[i + 1]);
  }
  if (o.workers < 1 || o.steps < 1 || o.repeats < 1 || o.warmup < 0) {
    std::cerr << "dp_training: --workers, --steps and --repeats must be >= 1, --warmup >= 0\n";
    return 2;
  }
  try {
    auto tw_binary = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "tools" / "tw";
    auto cluster = tw::ValueOrThrow(tw::ProcessCluster::Start({{"ps", 1}, {"worker", o.workers}}, tw_binary.string()));
    std::vector<double> examples_per_s;
    std::vector<std::thread> workers;
    for (int t = 0; t < o.workers; ++t) {
      workers.emplace_back([&, t] { RunWorker(cluster->spec(), t, o, &examples_per_s); });
    }
    for (auto& w : workers) w.join();
    for (size_t r = 0; r < examples_per_s.size(); ++r) std::printf("repeat %zu: %.0f examples/s\n", r, examples_per_s[r]);
    std::sort(examples_per_s.begin(), examples_per_s.end());
    const double median = examples_per_s[examples_per_s.size() / 2];
    std::printf("tensorweave sync data-parallel MLP 784-256-10 Adam, 1 ps + %d worker(s), batch %d per worker: "
                "%.0f examples/s median (%.2f ms/step)\n",
                o.workers, kBatch, median, 1000.0 * kBatch * o.workers / median);
    std::printf("RESULT examples_per_s=%.1f\n", median);
  } catch (const tw::StatusError& e) {
    std::cerr << "dp_training: " << e.status() << "\n";
    return 1;
  }
  return 0;
}
