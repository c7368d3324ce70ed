// Examples/s of synchronous data-parallel training of the 784 -> 256 -> 10 MLP (Adam,
// batch 128 per worker, each worker's batch held on the worker) on a local cluster of
// `tw server` processes, 1 ps + N workers on loopback, in one of two modes:
//   sync_replicas (default): between-graph replication (replica_device_setter,
//     SyncReplicasOptimizer under MonitoredTrainingSessions, one client thread per worker);
//   in_graph: seed 003's in-graph replication (one client, a tower per worker, the mean
//     gradient applied on the ps).
// The peer is bench/torch_dp_training.py; bench/dp_training.sh runs both.
//   dp_training [--mode M] [--workers N] [--steps S] [--repeats R] [--warmup W] [--profile 1]
// Prints the examples/s of each repeat (S global steps) and their median. --profile 1
// instead times the parts of a step on 1 ps + 1 worker, one session run each, driving
// the sync loop by hand (see Profile).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include "distributed/rpc/process_cluster.h"
#include "mlp_model.h"
#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"
#include "timing.h"

namespace {

constexpr int kBatch = 128;

struct Options {
  int workers = 2, steps = 100, repeats = 5, warmup = 30;
  bool in_graph = false;
};

// Examples/s of `o.repeats` runs of `o.steps` calls of `step` (after o.warmup).
template <typename Fn>
std::vector<double> TimeRepeats(const Options& o, Fn&& step) {
  for (int i = 0; i < o.warmup; ++i) step();
  std::vector<double> examples_per_s;
  for (double secs : tw::bench::TimeCalls(o.repeats, 0, [&] {
         for (int i = 0; i < o.steps; ++i) step();
       })) {
    examples_per_s.push_back(static_cast<double>(o.steps) * kBatch * o.workers / secs);
  }
  return examples_per_s;
}

// In-graph replication (seed 003): one client; the variables, the mean of the gradients
// and Adam on the ps; a tower per worker computing the gradients of its own batch, which
// stays on the worker (as each PyTorch process holds its own).
std::vector<double> RunInGraph(const tw::ClusterSpec& cluster, const Options& o) {
  tw::Graph g;
  g.set_seed(1);
  tw::AdamOptimizer adam(0.001);
  tw::bench::MlpParams params;
  tw::Variable step;
  {
    auto on = g.device("/job:ps/task:0");
    params = tw::bench::MakeMlpParams(g);
    step = tw::get_or_create_global_step(g);
  }
  std::vector<tw::GradsAndVars> tower_grads;
  for (int t = 0; t < o.workers; ++t) {
    auto on = g.device("/job:worker/task:" + std::to_string(t));
    tw::bench::MlpData data = tw::bench::MlpBatchData(kBatch, 5 + t);
    tower_grads.push_back(adam.compute_gradients(
        tw::bench::MlpLoss(params, tw::constant(g, data.x), tw::constant(g, data.labels))));
  }
  tw::Operation train;
  {
    auto on = g.device("/job:ps/task:0");
    train = adam.apply_gradients(tw::average_gradients(tower_grads), &step);
  }
  tw::Session sess(g, "grpc://" + *cluster.address("ps", 0));
  sess.run(tw::global_variables_initializer(g));
  return TimeRepeats(o, [&] { sess.run(train); });
}

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
  {
    auto on = g.device(tw::replica_device_setter(cluster, "/job:worker/task:" + std::to_string(task)));
    // The batch stays on the worker, as each PyTorch process holds its own.
    tw::bench::MlpData data = tw::bench::MlpBatchData(kBatch, 5 + task);
    tw::bench::MlpParams params = tw::bench::MakeMlpParams(g);
    step = tw::get_or_create_global_step(g);
    train = sync.minimize(tw::bench::MlpLoss(params, tw::constant(g, data.x), tw::constant(g, data.labels)), step);
  }
  const tw::Output step_value = step.value();
  tw::MonitoredTrainingSessionOptions options;
  options.master = "grpc://" + *cluster.address("worker", task);
  options.is_chief = task == 0;
  options.log_step_count_steps = 0;
  options.recovery_wait_secs = 0.05;
  options.hooks = {sync.make_session_run_hook(task == 0)};
  tw::MonitoredTrainingSession sess(g, options);
  if (task != 0) {
    try {
      while (true) sess.run(train);
    } catch (const tw::StatusError& e) {
      if (!absl::IsOutOfRange(e.status())) throw;
    }
    return;
  }
  auto global_step = [&] { return sess.run({step_value}, {}, {train})[0].scalar<int64_t>(); };
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

// Warm-up: connections, prepared partitions.
template <typename Fn>
double MedianMs(int n, Fn&& fn) {
  return 1e3 * tw::bench::MedianSeconds(n, /*warmup=*/20, fn);
}

// Where a step's time goes, one worker (replicas_to_aggregate 1), each part its own run
// through the worker's master: a trivial run on the ps; reading the variables onto the
// worker; computing the gradients there (reads included); the worker's train op (the
// gradients pushed to the accumulators on the ps, a token taken) alone, with the token
// put in ahead; and the chief's sync op (take the mean, Adam on the ps, enqueue the tokens)
// alone. A step of the sync loop is the last two.
void Profile(const tw::ClusterSpec& cluster, int n) {
  tw::Graph g;
  g.set_seed(1);
  tw::AdamOptimizer adam(0.001);
  tw::SyncReplicasOptimizer sync(adam, 1, 1);
  tw::bench::Mlp mlp;
  tw::Operation train, read_vars, grads, ps_nop;
  {
    auto on = g.device(tw::replica_device_setter(cluster, "/job:worker/task:0"));
    mlp = tw::bench::BuildMlp(g, kBatch);
    auto step = tw::get_or_create_global_step(g);
    auto grads_and_vars = sync.compute_gradients(mlp.loss);
    std::vector<tw::Operation> reads, grad_ops;
    for (const auto& [grad, var] : grads_and_vars) {
      reads.push_back(tw::identity(var.value()).op());
      grad_ops.push_back(tw::identity(grad).op());
    }
    read_vars = tw::group(g, reads, "read_vars");
    grads = tw::group(g, grad_ops, "grads");
    train = sync.apply_gradients(grads_and_vars, step);
  }
  {
    auto on = g.device("/job:ps/task:0");
    ps_nop = tw::no_op(g, "ps_nop");
  }
  tw::Operation one_token = sync.get_init_tokens_op(1);
  tw::Session sess(g, "grpc://" + *cluster.address("worker", 0));
  sess.run(tw::global_variables_initializer(g));
  sess.run(tw::local_variables_initializer(g));
  sess.run(sync.chief_init_op());
  const tw::FeedDict feeds = tw::bench::MlpBatch(mlp, kBatch, 5);
  std::printf("median ms of one run, 1 ps + 1 worker:\n");
  std::printf("  no-op on the ps                       %7.3f\n", MedianMs(n, [&] { sess.run(ps_nop); }));
  std::printf("  read the variables onto the worker    %7.3f\n", MedianMs(n, [&] { sess.run(read_vars); }));
  std::printf("  compute the gradients (reads incl.)   %7.3f\n", MedianMs(n, [&] { sess.run(grads, feeds); }));
  double push = 0, loop = 0;
  std::vector<double> pushes, loops;
  // One token ahead; each sync op then enqueues the next. The local step is set to the
  // global step before each train op (by hand, as no token arrives during it).
  sess.run(one_token);
  for (int i = 0; i < n + 20; ++i) {
    sess.run(sync.local_step_init_op());
    auto t0 = std::chrono::steady_clock::now();
    sess.run(train, feeds);
    auto t1 = std::chrono::steady_clock::now();
    sess.run(sync.chief_sync_op());
    auto t2 = std::chrono::steady_clock::now();
    if (i < 20) continue;
    pushes.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    loops.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  push = tw::bench::Median(pushes);
  loop = tw::bench::Median(loops);
  std::printf("  worker train op (grads, push, token)  %7.3f\n", push);
  std::printf("  chief sync op (take, Adam, tokens)    %7.3f\n", loop);
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  Options o;
  bool profile = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--workers")) o.workers = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--steps")) o.steps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) o.repeats = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--warmup")) o.warmup = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--profile")) profile = std::atoi(argv[i + 1]) != 0;
    if (!std::strcmp(argv[i], "--mode")) {
      o.in_graph = !std::strcmp(argv[i + 1], "in_graph");
      if (!o.in_graph && std::strcmp(argv[i + 1], "sync_replicas") != 0) {
        std::cerr << "dp_training: --mode must be in_graph or sync_replicas, not '" << argv[i + 1] << "'\n";
        return 2;
      }
    }
  }
  if (o.workers < 1 || o.steps < 1 || o.repeats < 1 || o.warmup < 0) {
    std::cerr << "dp_training: --workers, --steps and --repeats must be >= 1, --warmup >= 0\n";
    return 2;
  }
  try {
    auto tw_binary = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "tools" / "tw";
    if (profile) o.workers = 1;
    // One thread per task's kernels, as the PyTorch peer gets (torch.set_num_threads(1)).
    auto cluster = tw::ValueOrThrow(tw::ProcessCluster::Start({{"ps", 1}, {"worker", o.workers}}, tw_binary.string(),
                                                              {"--intra_op_threads=1", "--inter_op_threads=1"}));
    if (profile) {
      Profile(cluster->spec(), o.steps);
      return 0;
    }
    std::vector<double> examples_per_s;
    if (o.in_graph) {
      examples_per_s = RunInGraph(cluster->spec(), o);
    } else {
      std::vector<std::thread> workers;
      for (int t = 0; t < o.workers; ++t) {
        workers.emplace_back([&, t] { RunWorker(cluster->spec(), t, o, &examples_per_s); });
      }
      for (auto& w : workers) w.join();
    }
    for (size_t r = 0; r < examples_per_s.size(); ++r) std::printf("repeat %zu: %.0f examples/s\n", r, examples_per_s[r]);
    const double median = tw::bench::Median(examples_per_s);
    std::printf("tensorweave sync data-parallel (%s) MLP 784-256-10 Adam, 1 ps + %d worker(s), batch %d per worker: "
                "%.0f examples/s median (%.2f ms/step)\n",
                o.in_graph ? "in-graph" : "SyncReplicas", o.workers, kBatch, median, 1000.0 * kBatch * o.workers / median);
    std::printf("RESULT examples_per_s=%.1f\n", median);
  } catch (const tw::StatusError& e) {
    std::cerr << "dp_training: " << e.status() << "\n";
    return 1;
  }
  return 0;
}
