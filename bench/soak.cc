// The soak benchmark's client (bench/soak.sh runs it against 1 ps + 2 worker `tw server`
// processes): THREADS threads, each with its own session on worker (index % 2), run a
// small training step — a 16 -> 32 -> 1 regression MLP whose variables live on the ps
// (replica_device_setter: every step crosses tasks both ways) with plain SGD — STEPS
// times after WARMUP untimed ones. All threads of all processes share the variables.
//   soak --cluster_spec SPEC --init                  initialize the variables (waits up to 20 s
//                                                    for the cluster to serve)
//   soak --cluster_spec SPEC --threads T --steps S [--warmup W] [--process P] [--out FILE]
// Writes each timed step's latency (microseconds, one a line) to FILE; prints the number
// of steps and failed steps (each failure's first message too) and exits 1 if any failed.
// TLS and the token come from TW_TLS_* / TW_CLUSTER_TOKEN[_FILE] (tensorweave/security.h).
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

namespace {

constexpr int kBatch = 32, kIn = 16, kHidden = 32;

struct Flags {
  std::string cluster_spec, out;
  int threads = 4, steps = 1000, warmup = 100, process = 0;
  bool init = false;
};

// One thread's graph: the model on `worker`, its variables on the ps.
struct Model {
  tw::Graph g;
  tw::Operation train, init;
  tw::Output loss;
  tw::FeedDict feeds;
  Model(const tw::ClusterSpec& cluster, int worker, int seed) {
    g.set_seed(seed);
    auto on = g.device(tw::replica_device_setter(cluster, "/job:worker/task:" + std::to_string(worker)));
    auto x = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({kBatch, kIn}), "x");
    auto y = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({kBatch, 1}), "y");
    tw::Variable w1(g, tw::random_normal(g, tw::TensorShape({kIn, kHidden}), 0, 0.1), "w1");
    tw::Variable b1(g, tw::zeros(g, tw::TensorShape({kHidden})), "b1");
    tw::Variable w2(g, tw::random_normal(g, tw::TensorShape({kHidden, 1}), 0, 0.1), "w2");
    auto hidden = tw::relu(tw::matmul(x, w1) + b1);
    loss = tw::reduce_mean(tw::square(tw::matmul(hidden, w2) - y));
    tw::GradientDescentOptimizer sgd(0.01);
    train = sgd.minimize(loss);
    init = tw::global_variables_initializer(g);
    // y = sum of the inputs: a target the model can learn, so the loss stays finite.
    tw::Tensor xs(tw::DType::kFloat, tw::TensorShape({kBatch, kIn}));
    tw::Tensor ys(tw::DType::kFloat, tw::TensorShape({kBatch, 1}));
    for (int i = 0; i < kBatch; ++i) {
      float sum = 0;
      for (int j = 0; j < kIn; ++j) {
        const float v = static_cast<float>(((i * 7 + j * 3 + seed) % 11) - 5) / 5.0f;
        xs.flat<float>()[i * kIn + j] = v;
        sum += v;
      }
      ys.flat<float>()[i] = sum;
    }
    feeds = {{x, xs}, {y, ys}};
  }
};

std::string Target(const tw::ClusterSpec& cluster, int worker) {
  return "grpc://" + *cluster.address("worker", worker);
}

int Init(const tw::ClusterSpec& cluster) {
  Model model(cluster, 0, 1);
  tw::Status status;
  for (int attempt = 0; attempt < 200; ++attempt) {  // The servers may still be starting.
    tw::Session session(model.g, Target(cluster, 0));
    status = session.Run({}, {}, {model.init.name()}, nullptr);
    if (status.ok()) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::cerr << "soak: cannot initialize the variables: " << status << "\n";
  return 1;
}

int Soak(const tw::ClusterSpec& cluster, const Flags& flags) {
  std::vector<std::vector<int64_t>> latencies_us(flags.threads);
  std::atomic<int64_t> failed{0};
  std::mutex print_mu;
  std::vector<std::thread> threads;
  for (int t = 0; t < flags.threads; ++t) {
    threads.emplace_back([&, t] {
      const int index = flags.process * flags.threads + t;
      Model model(cluster, index % 2, 1 + index);
      tw::Session session(model.g, Target(cluster, index % 2));
      std::vector<tw::Tensor> out;
      for (int step = 0; step < flags.warmup + flags.steps; ++step) {
        const auto start = std::chrono::steady_clock::now();
        tw::Status status;
        try {
          status = session.Run({{"x", model.feeds[0].second}, {"y", model.feeds[1].second}}, {model.loss.name()},
                               {model.train.name()}, &out);
        } catch (const tw::StatusError& e) {
          status = e.status();
        }
        const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
        if (status.ok() && !std::isfinite(out[0].scalar<float>())) {
          status = absl::InternalError("the loss is not finite");
        }
        if (!status.ok()) {
          if (failed.fetch_add(1) < 5) {
            std::lock_guard<std::mutex> lock(print_mu);
            std::cerr << "soak: thread " << index << " step " << step << " failed: " << status << "\n";
          }
          continue;
        }
        if (step >= flags.warmup) latencies_us[t].push_back(us.count());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  int64_t steps = 0;
  std::ofstream out(flags.out.empty() ? "/dev/null" : flags.out);
  for (const auto& thread_latencies : latencies_us) {
    steps += static_cast<int64_t>(thread_latencies.size());
    for (int64_t us : thread_latencies) out << us << "\n";
  }
  std::cout << "soak process " << flags.process << ": " << flags.threads << " threads, " << steps
            << " timed steps, failed steps: " << failed.load() << std::endl;
  return failed.load() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto number = [&](int* value) {
      if (i + 1 >= argc || !absl::SimpleAtoi(argv[++i], value) || *value < 0) {
        std::cerr << "soak: " << arg << " needs a non-negative integer\n";
        std::exit(2);
      }
    };
    if (arg == "--init") {
      flags.init = true;
    } else if (arg == "--cluster_spec" && i + 1 < argc) {
      flags.cluster_spec = argv[++i];
    } else if (arg == "--out" && i + 1 < argc) {
      flags.out = argv[++i];
    } else if (arg == "--threads") {
      number(&flags.threads);
    } else if (arg == "--steps") {
      number(&flags.steps);
    } else if (arg == "--warmup") {
      number(&flags.warmup);
    } else if (arg == "--process") {
      number(&flags.process);
    } else {
      std::cerr << "soak: unknown flag '" << arg << "' (see bench/soak.cc)\n";
      return 2;
    }
  }
  auto cluster = tw::ClusterSpec::Parse(flags.cluster_spec);
  if (!cluster.ok()) {
    std::cerr << "soak: --cluster_spec: " << cluster.status() << "\n";
    return 2;
  }
  return flags.init ? Init(*cluster) : Soak(*cluster, flags);
}
