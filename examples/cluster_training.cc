// The main demo: synchronous data-parallel training on a local cluster of processes, as
// the seeds describe it. One `ps` task holds the parameters (replica_device_setter), two
// `worker` tasks each compute gradients on their half of every batch (between-graph
// replication: one graph and session per worker), SyncReplicasOptimizer averages the two
// halves' gradients and applies them once per step. The same model is then trained in
// this process on the whole batches, and both results are shown side by side.
//
// The model: a 784 -> 256 -> 10 ReLU MLP (softmax cross-entropy, Adam) learning a
// synthetic 10-class problem (labels from a fixed random linear "teacher").
//   cluster_training [--cluster_spec=SPEC] [--steps N] [--batch B] [--print_every N]
// Without SPEC (jobs ps and worker, 2 workers) it starts `tw server` processes itself.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>
#include <thread>

#include "absl/synchronization/notification.h"
#include "distributed/rpc/process_cluster.h"
#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

namespace {

constexpr int kFeatures = 784, kHidden = 256, kClasses = 10, kWorkers = 2;
constexpr double kLearningRate = 1e-3;

int IntFlag(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], name)) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

// Batch `step` of the synthetic data set (or the held-out set for step -1): inputs in
// [-1, 1] and one-hot labels of argmax(x * teacher). Every process computes the same.
struct Batch {
  tw::Tensor x, y;
};
Batch MakeBatch(int64_t step, int rows) {
  static const std::vector<float> teacher = [] {
    std::mt19937 gen(7);
    std::normal_distribution<float> normal;
    std::vector<float> w(kFeatures * kClasses);
    for (float& v : w) v = normal(gen);
    return w;
  }();
  std::mt19937 gen(static_cast<uint32_t>(1000 + step));
  std::uniform_real_distribution<float> uniform(-1, 1);
  Batch b{tw::Tensor(tw::DType::kFloat, tw::TensorShape({rows, kFeatures})),
          tw::Tensor(tw::DType::kFloat, tw::TensorShape({rows, kClasses}))};
  auto x = b.x.flat<float>();
  auto y = b.y.flat<float>();
  std::fill(y.begin(), y.end(), 0.0f);
  for (int r = 0; r < rows; ++r) {
    for (int f = 0; f < kFeatures; ++f) x[r * kFeatures + f] = uniform(gen);
    int best = 0;
    float best_score = -1e30f;
    for (int c = 0; c < kClasses; ++c) {
      float score = 0;
      for (int f = 0; f < kFeatures; ++f) score += x[r * kFeatures + f] * teacher[f * kClasses + c];
      if (score > best_score) best_score = score, best = c;
    }
    y[r * kClasses + best] = 1.0f;
  }
  return b;
}

// Rows [begin, begin + count) of a batch.
Batch Slice(const Batch& b, int begin, int count) {
  auto rows = [&](const tw::Tensor& t) {
    const int64_t width = t.shape().dim(1);
    tw::Tensor out(tw::DType::kFloat, tw::TensorShape({count, width}));
    std::copy_n(t.flat<float>().begin() + begin * width, count * width, out.flat<float>().begin());
    return out;
  };
  return {rows(b.x), rows(b.y)};
}

// The model in `g`: placeholders, loss, accuracy. Initializers are seeded, so every graph
// starts from the same parameters.
struct Model {
  tw::Output x, y, loss, accuracy;
  Model(tw::Graph& g) {
    x = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({-1, kFeatures}), "x");
    y = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({-1, kClasses}), "y");
    auto w1 = tw::get_variable(g, "w1", tw::TensorShape({kFeatures, kHidden}), tw::DType::kFloat,
                               tw::glorot_uniform_initializer(1));
    auto b1 = tw::get_variable(g, "b1", tw::TensorShape({kHidden}), tw::DType::kFloat, tw::zeros_initializer());
    auto w2 = tw::get_variable(g, "w2", tw::TensorShape({kHidden, kClasses}), tw::DType::kFloat,
                               tw::glorot_uniform_initializer(2));
    auto b2 = tw::get_variable(g, "b2", tw::TensorShape({kClasses}), tw::DType::kFloat, tw::zeros_initializer());
    auto logits = tw::matmul(tw::relu(tw::matmul(x, w1) + b1), w2) + b2;
    loss = tw::reduce_mean(tw::softmax_cross_entropy_with_logits(y, logits));
    accuracy = tw::reduce_mean(tw::cast(tw::equal(tw::argmax(logits, 1), tw::argmax(y, 1)), tw::DType::kFloat));
  }
};

struct Result {
  float loss = 0, accuracy = 0;  // On the held-out set.
  double seconds = 0;
};

// One worker's graph, session and training loop. Worker 0 is the chief: it initializes
// the shared state and runs the sync loop (SyncReplicasChiefRunner).
void TrainWorker(const tw::ClusterSpec& cluster, int task, int steps, int batch, int print_every,
                 absl::Notification* chief_ready, Result* result) {
  tw::Graph g;
  std::optional<Model> model;
  tw::Variable step;
  tw::Operation train;
  tw::AdamOptimizer adam(kLearningRate);
  tw::SyncReplicasOptimizer sync(adam, kWorkers, kWorkers);
  {
    auto on = g.device(tw::replica_device_setter(cluster, "/job:worker/task:" + std::to_string(task)));
    model.emplace(g);
    step = tw::get_or_create_global_step(g);
    train = sync.minimize(model->loss, step);
  }
  const tw::Output step_value = step.value();  // Made before the chief's sync loop starts.
  const std::string target = "grpc://" + *cluster.address("worker", task);
  tw::Session sess(g, target);
  std::optional<tw::SyncReplicasChiefRunner> runner;
  if (task == 0) {
    sess.run(tw::global_variables_initializer(g));
    sess.run(tw::local_variables_initializer(g));
    sess.run(sync.chief_init_op());
    runner.emplace(g, target, sync);
    runner->Start();
    chief_ready->Notify();
  } else {
    chief_ready->WaitForNotification();
    sess.run(tw::local_variables_initializer(g));
    sess.run(sync.local_step_init_op());
  }
  // The chief ends training after its `steps` steps and stops the sync loop,
  // which closes the token queue: the other worker's pending step then ends with
  // OutOfRange. (Counting each worker's own steps instead could leave one waiting
  // forever for a partner: a fast worker may take a slow one's token.)
  const int half = batch / kWorkers;
  auto start = std::chrono::steady_clock::now();
  auto last = start;
  int runs = 0, runs_at_last_print = 0;
  while (task != 0 || runs < steps) {
    // Run r of each worker uses batch r: in lockstep both halves of a step are one batch.
    Batch mine = Slice(MakeBatch(runs + 1, batch), task * half, half);
    std::vector<tw::Tensor> out;
    try {
      out = sess.run({model->loss, step_value}, {{model->x, mine.x}, {model->y, mine.y}}, {train});
    } catch (const tw::StatusError& e) {
      if (task != 0 && absl::IsOutOfRange(e.status())) break;  // The chief finished.
      throw;
    }
    const int64_t global_step = out[1].scalar<int64_t>();  // As read during the step.
    if (++runs % print_every == 0) {
      auto now = std::chrono::steady_clock::now();
      double secs = std::chrono::duration<double>(now - last).count();
      std::printf("worker %d  step %4d  global step %4lld  loss %.4f  %6.0f examples/s\n", task, runs,
                  static_cast<long long>(global_step), out[0].scalar<float>(), half * (runs - runs_at_last_print) / secs);
      std::fflush(stdout);
      last = now;
      runs_at_last_print = runs;
    }
  }
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (runner) {
    tw::Status stopped = runner->Stop();
    if (!stopped.ok()) std::cerr << "sync loop: " << stopped << "\n";
    Batch held_out = MakeBatch(-1, 2000);
    auto eval = sess.run({model->loss, model->accuracy}, {{model->x, held_out.x}, {model->y, held_out.y}});
    result->loss = eval[0].scalar<float>();
    result->accuracy = eval[1].scalar<float>();
  }
}

// The same model trained in this process on the whole batches.
Result TrainSingleProcess(int steps, int batch) {
  tw::Graph g;
  Model model(g);
  tw::AdamOptimizer adam(kLearningRate);
  tw::Operation train = adam.minimize(model.loss);
  tw::Session sess(g);
  sess.run(tw::global_variables_initializer(g));
  auto start = std::chrono::steady_clock::now();
  for (int s = 1; s <= steps; ++s) {
    Batch b = MakeBatch(s, batch);
    sess.run({}, {{model.x, b.x}, {model.y, b.y}}, {train});
  }
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Batch held_out = MakeBatch(-1, 2000);
  auto eval = sess.run({model.loss, model.accuracy}, {{model.x, held_out.x}, {model.y, held_out.y}});
  r.loss = eval[0].scalar<float>();
  r.accuracy = eval[1].scalar<float>();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  const int steps = IntFlag(argc, argv, "--steps", 600);
  const int batch = IntFlag(argc, argv, "--batch", 128);
  const int print_every = std::max(1, IntFlag(argc, argv, "--print_every", 100));
  if (steps < 1 || batch < kWorkers || batch % kWorkers != 0) {
    std::cerr << "cluster_training: --steps must be >= 1 and --batch a positive multiple of " << kWorkers << "\n";
    return 2;
  }
  try {
    std::string spec;
    for (int i = 1; i < argc; ++i) {
      if (!std::strncmp(argv[i], "--cluster_spec=", 15)) spec = argv[i] + 15;
    }
    std::unique_ptr<tw::ProcessCluster> processes;
    tw::ClusterSpec cluster;
    if (spec.empty()) {
      // The tw command is built next to this example: build/tools/tw.
      auto tw_binary = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "tools" / "tw";
      processes = tw::ValueOrThrow(tw::ProcessCluster::Start({{"ps", 1}, {"worker", kWorkers}}, tw_binary.string()));
      cluster = processes->spec();
      std::cout << "started a local cluster of " << kWorkers + 1 << " tw server processes: " << cluster.ToString() << "\n";
    } else {
      cluster = tw::ValueOrThrow(tw::ClusterSpec::Parse(spec));
    }
    std::cout << "training a 784-256-10 MLP for " << steps << " steps, batch " << batch << " ("
              << batch / kWorkers << " per worker), parameters on /job:ps/task:0\n";
    absl::Notification chief_ready;
    Result results[kWorkers];
    std::vector<std::thread> workers;
    for (int t = 0; t < kWorkers; ++t) {
      workers.emplace_back([&, t] { TrainWorker(cluster, t, steps, batch, print_every, &chief_ready, &results[t]); });
    }
    for (auto& w : workers) w.join();
    std::cout << "training the same model in one process on the whole batches...\n";
    Result single = TrainSingleProcess(steps, batch);
    std::printf("\n%-28s %12s %12s %12s\n", "", "held-out loss", "accuracy", "examples/s");
    std::printf("%-28s %12.4f %11.1f%% %12.0f\n", "cluster (1 ps + 2 workers)", results[0].loss,
                100 * results[0].accuracy, steps * batch / std::max(results[0].seconds, results[1].seconds));
    std::printf("%-28s %12.4f %11.1f%% %12.0f\n", "single process", single.loss, 100 * single.accuracy,
                steps * batch / single.seconds);
  } catch (const tw::StatusError& e) {
    std::cerr << "cluster_training: " << e.status() << "\n";
    return 1;
  }
  return 0;
}
