// The training client of scripts/netns_fault_test.sh: one per worker task, run in that
// worker's network namespace against its own `tw server`. Between-graph replication under
// a MonitoredTrainingSession: the same 8 -> 16 -> 1 MLP on every worker, its variables
// (and Adam's slots, and the global step) put on the ps by replica_device_setter; task 0
// is the chief (initializes or restores the latest checkpoint, saves checkpoints).
//
// Reproducible across faults: global step k is trained by worker k % 2 on the batch
// Batch(k % 2, k), so a run's result depends only on where it starts. A worker reads the
// global step and trains only on its turn (else it polls); a run that failed is never
// retried blindly: MonitoredTrainingSession retries a run after re-creating the session,
// and TurnGuardHook refuses that retry, so the worker reads the step again (the failed
// run may or may not have been applied; the ps may have gone back to a checkpoint).
//
//   fault_driver --cluster_spec=SPEC --task_index=0|1 --checkpoint_dir=DIR --last_step=N
//       [--save_checkpoint_steps=10] [--rpc_poll_ms=2] [--recovery_wait_secs=0.2]
//       [--recovery_deadline_secs=60] [--max_wait_secs=60]
//       [--snapshot_dir=DIR]   chief: copies each checkpoint it restores to DIR/restored-<step>/
//       [--dump_file=FILE]     chief: writes every global variable at the end (hex floats)
//       [--gate_gradients=1]   0: no gate on the ps (GatedOnPs), to reproduce partly applied steps
// Prints one line per event on stdout ("worker I: ..."); exits 1 with "error: ..." on a
// bad flag or an error it cannot recover from.
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

namespace {

constexpr int kFeatures = 8, kHidden = 16, kBatch = 16;

struct Flags {
  std::string cluster_spec, checkpoint_dir, snapshot_dir, dump_file;
  int task_index = -1;
  int64_t last_step = -1, save_checkpoint_steps = 10, rpc_poll_ms = 2;
  bool gate_gradients = true;
  double recovery_wait_secs = 0.2, recovery_deadline_secs = 60, max_wait_secs = 60;
};

[[noreturn]] void BadFlag(const std::string& message) {
  throw tw::StatusError(absl::InvalidArgumentError(message));
}

template <typename T>
T Number(const std::string& name, const std::string& text, T min) {
  T value;
  bool ok;
  if constexpr (std::is_floating_point_v<T>) {
    ok = absl::SimpleAtod(text, &value) && std::isfinite(value);
  } else {
    ok = absl::SimpleAtoi(text, &value);
  }
  if (!ok || value < min) BadFlag(absl::StrCat("--", name, " must be a number >= ", min, ", not '", text, "'"));
  return value;
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  std::set<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) BadFlag("flags are --name=value, not '" + arg + "'");
    const std::string name = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
    if (!seen.insert(name).second) BadFlag("--" + name + " given twice");
    if (name == "cluster_spec") f.cluster_spec = value;
    else if (name == "checkpoint_dir") f.checkpoint_dir = value;
    else if (name == "snapshot_dir") f.snapshot_dir = value;
    else if (name == "dump_file") f.dump_file = value;
    else if (name == "task_index") f.task_index = Number<int>(name, value, 0);
    else if (name == "last_step") f.last_step = Number<int64_t>(name, value, 1);
    else if (name == "save_checkpoint_steps") f.save_checkpoint_steps = Number<int64_t>(name, value, 1);
    else if (name == "rpc_poll_ms") f.rpc_poll_ms = Number<int64_t>(name, value, 0);
    else if (name == "recovery_wait_secs") f.recovery_wait_secs = Number<double>(name, value, 0.0);
    else if (name == "recovery_deadline_secs") f.recovery_deadline_secs = Number<double>(name, value, 0.0);
    else if (name == "max_wait_secs") f.max_wait_secs = Number<double>(name, value, 0.0);
    else if (name == "gate_gradients") f.gate_gradients = Number<int>(name, value, 0) != 0;
    else BadFlag("unknown flag --" + name);
  }
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"cluster_spec", f.cluster_spec}, {"checkpoint_dir", f.checkpoint_dir}}) {
    if (value.empty()) BadFlag("--" + name + " is required");
  }
  if (f.task_index < 0 || f.task_index > 1) BadFlag("--task_index is required: 0 (the chief) or 1");
  if (f.last_step < 0) BadFlag("--last_step is required");
  if (!std::filesystem::is_directory(f.checkpoint_dir)) BadFlag("--checkpoint_dir " + f.checkpoint_dir + " is not a directory");
  if (f.task_index != 0 && !(f.snapshot_dir.empty() && f.dump_file.empty())) {
    BadFlag("--snapshot_dir and --dump_file are for the chief (--task_index=0)");
  }
  if (!f.snapshot_dir.empty() && !std::filesystem::is_directory(f.snapshot_dir)) {
    BadFlag("--snapshot_dir " + f.snapshot_dir + " is not a directory");
  }
  return f;
}

// A few deterministic values in [-1, 1] from their position: the initial weights and the data.
float Wave(double position, double phase) { return static_cast<float>(std::sin(0.731 * position + phase)); }

// Worker `worker`'s batch for global step `step`: x, and y = sum_j x_j * (j - 3.5) / 4 + 0.5.
std::pair<tw::Tensor, tw::Tensor> Batch(int worker, int64_t step) {
  std::vector<float> x(kBatch * kFeatures), y(kBatch);
  for (int r = 0; r < kBatch; ++r) {
    double target = 0.5;
    for (int j = 0; j < kFeatures; ++j) {
      x[r * kFeatures + j] = Wave(1000.0 * worker + kBatch * static_cast<double>(step) + r, 1.3 * j);
      target += x[r * kFeatures + j] * (j - 3.5) / 4;
    }
    y[r] = static_cast<float>(target);
  }
  return {tw::ValueOrThrow(tw::Tensor::FromVector<float>(x, tw::TensorShape({kBatch, kFeatures}))),
          tw::ValueOrThrow(tw::Tensor::FromVector<float>(y, tw::TensorShape({kBatch, 1})))};
}

tw::Output InitialValues(tw::Graph& g, int rows, int cols, double phase) {
  std::vector<float> v(rows * cols);
  for (int i = 0; i < rows * cols; ++i) v[i] = 0.5f * Wave(i, phase);
  return tw::constant(g, v, tw::TensorShape({rows, cols}));
}

// The gradients, each passed on only once all of them have arrived on the ps (call under
// the ps's device scope). Without this gate, the ps applies each variable's update as soon
// as its gradient arrives (they come one by one on the stream from the worker): a link cut
// or a worker killed after some gradients arrived left the step partly applied (those
// variables updated, the others and the global step not), and the step, trained again,
// updated those variables twice. Updates are local to the ps once the gate opens.
tw::GradsAndVars GatedOnPs(tw::Graph& g, const tw::GradsAndVars& grads) {
  std::vector<tw::Output> arrived;
  for (const auto& [grad, var] : grads) arrived.push_back(tw::identity(grad, "grad_on_ps"));
  tw::Operation all_arrived;
  {
    auto deps = g.control_dependencies(arrived);
    all_arrived = tw::no_op(g, "all_gradients_on_ps");
  }
  auto deps = g.control_dependencies(std::vector<tw::Operation>{all_arrived});
  tw::GradsAndVars gated;
  for (size_t i = 0; i < grads.size(); ++i) gated.emplace_back(tw::identity(arrived[i], "gated_grad"), grads[i].second);
  return gated;
}

struct Model {
  tw::Variable step;
  tw::Output x, y, loss;
  tw::Operation train;
};

Model BuildModel(tw::Graph& g, const tw::ClusterSpec& cluster, int task, bool gate_gradients) {
  Model m;
  auto on = g.device(tw::replica_device_setter(cluster, absl::StrCat("/job:worker/task:", task)));
  m.step = tw::get_or_create_global_step(g);
  tw::Variable w1(g, InitialValues(g, kFeatures, kHidden, 0.1), "w1");
  tw::Variable b1(g, InitialValues(g, 1, kHidden, 0.2), "b1");
  tw::Variable w2(g, InitialValues(g, kHidden, 1, 0.3), "w2");
  tw::Variable b2(g, InitialValues(g, 1, 1, 0.4), "b2");
  m.x = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({kBatch, kFeatures}), "x");
  m.y = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({kBatch, 1}), "y");
  auto hidden = tw::tanh(tw::matmul(m.x, w1.value()) + b1.value());
  m.loss = tw::reduce_mean(tw::square(tw::matmul(hidden, w2.value()) + b2.value() - m.y), {}, false, "loss");
  tw::AdamOptimizer adam(0.01);
  const tw::GradsAndVars grads = adam.compute_gradients(m.loss);
  // The updates' group, Adam's beta powers and the global step increment on the ps too
  // (in TF's minimize the group is on the worker): once the ps has a step's gradients it
  // finishes the step without another hop to the worker, so a worker killed mid-step
  // leaves the step applied whole or not at all, never the updates without the increment.
  auto on_ps = g.device("/job:ps/task:0");
  m.train = adam.apply_gradients(gate_gradients ? GatedOnPs(g, grads) : grads, &m.step);
  return m;
}

// "worker I @EPOCH_MS: what": wall-clock milliseconds, comparable across the namespaces
// (one kernel clock), so the test script can order events of both workers and its faults.
void Event(int task, const std::string& what) {
  const int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch()).count();
  std::cout << "worker " << task << " @" << ms << ": " << what << std::endl;
}

// Counts sessions created; while armed, refuses a run in a session created after arming
// (MonitoredTrainingSession's retry of a failed run), with FailedPrecondition, which
// MonitoredTrainingSession passes on instead of retrying.
class TurnGuardHook : public tw::SessionRunHook {
 public:
  void after_create_session(tw::Session&) override { ++sessions_; }
  tw::SessionRunArgs before_run(tw::SessionRunContext&) override {
    if (armed_ && sessions_ != armed_at_) {
      throw tw::StatusError(absl::FailedPreconditionError("the session was re-created during the step: not retried"));
    }
    return {};
  }
  void Arm() { armed_ = true, armed_at_ = sessions_; }
  void Disarm() { armed_ = false; }

 private:
  int sessions_ = 0, armed_at_ = 0;
  bool armed_ = false;
};

// Reports each session's global step; the chief also copies the checkpoint it just
// restored (the latest one) to <snapshot_dir>/restored-<step>/, for a later replay.
class ReadyHook : public tw::SessionRunHook {
 public:
  ReadyHook(int task, tw::Output step, std::string checkpoint_dir, std::string snapshot_dir)
      : task_(task), step_(step), checkpoint_dir_(std::move(checkpoint_dir)), snapshot_dir_(std::move(snapshot_dir)) {}
  void after_create_session(tw::Session& session) override {
    const int64_t step = session.run(step_).scalar<int64_t>();
    Event(task_, absl::StrCat("session ready at global_step ", step));
    const std::string restored = tw::latest_checkpoint(checkpoint_dir_);
    if (snapshot_dir_.empty() || restored.empty()) return;
    namespace fs = std::filesystem;
    const fs::path to = fs::path(snapshot_dir_) / absl::StrCat("restored-", step);
    fs::create_directories(to);
    // A V2 checkpoint: its index and its one data file.
    for (const char* suffix : {".index", ".data-00000-of-00001"}) {
      const fs::path file = restored + suffix;
      fs::copy_file(file, to / file.filename(), fs::copy_options::overwrite_existing);
    }
    fs::copy_file(fs::path(checkpoint_dir_) / tw::kCheckpointStateFile, to / tw::kCheckpointStateFile,
                  fs::copy_options::overwrite_existing);
    Event(task_, absl::StrCat("restored ", restored, ", copied to ", to.string()));
  }

 private:
  int task_;
  tw::Output step_;
  std::string checkpoint_dir_, snapshot_dir_;
};

// Every global variable as "name dtype shape: values" (floats as C99 hex, exact).
void DumpVariables(tw::MonitoredTrainingSession& sess, tw::Graph& g, const std::string& path) {
  std::vector<tw::Variable> vars = tw::global_variables(g);
  std::vector<tw::Output> reads;
  for (const auto& v : vars) reads.push_back(v.value());
  std::vector<tw::Tensor> values = sess.run(reads);
  std::ofstream out(path);
  for (size_t i = 0; i < vars.size(); ++i) {
    const tw::Tensor& t = values[i];
    out << vars[i].name() << " " << t.shape().DebugString() << ":";
    if (t.dtype() == tw::DType::kFloat) {
      for (float v : t.flat<float>()) out << absl::StrFormat(" %a", v);
    } else if (t.dtype() == tw::DType::kInt64) {
      for (int64_t v : t.flat<int64_t>()) out << " " << v;
    } else {
      throw tw::StatusError(absl::InternalError("variable " + vars[i].name() + " is neither float32 nor int64"));
    }
    out << "\n";
  }
  out.close();
  if (!out) throw tw::StatusError(absl::UnavailableError("could not write --dump_file " + path));
}

// The values of every global variable, in global_variables order.
std::vector<tw::Tensor> ReadVariables(tw::MonitoredTrainingSession& sess, const std::vector<tw::Variable>& vars) {
  std::vector<tw::Output> reads;
  for (const auto& v : vars) reads.push_back(v.value());
  return sess.run(reads);
}

// The names of the variables whose bytes differ between two reads.
std::vector<std::string> ChangedVariables(const std::vector<tw::Variable>& vars, const std::vector<tw::Tensor>& a,
                                          const std::vector<tw::Tensor>& b) {
  std::vector<std::string> changed;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (a[i].TotalBytes() != b[i].TotalBytes() ||
        std::memcmp(a[i].raw_data(), b[i].raw_data(), a[i].TotalBytes()) != 0) {
      changed.push_back(vars[i].name());
    }
  }
  return changed;
}

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  try {
    const Flags f = ParseFlags(argc, argv);
    const tw::ClusterSpec cluster = tw::ValueOrThrow(tw::ClusterSpec::Parse(f.cluster_spec));
    if (cluster.num_tasks("ps") != 1 || cluster.num_tasks("worker") != 2) {
      BadFlag("--cluster_spec must have 1 ps task and 2 worker tasks, not " + cluster.ToString());
    }
    const int task = f.task_index;
    tw::Graph g;
    Model m = BuildModel(g, cluster, task, f.gate_gradients);

    auto guard = std::make_shared<TurnGuardHook>();
    tw::MonitoredTrainingSessionOptions o;
    o.master = "grpc://" + tw::ValueOrThrow(cluster.address("worker", task));
    o.is_chief = task == 0;
    o.checkpoint_dir = f.checkpoint_dir;
    o.save_checkpoint_steps = f.save_checkpoint_steps;
    o.log_step_count_steps = 0;
    o.recovery_wait_secs = f.recovery_wait_secs;
    o.recovery_deadline_secs = f.recovery_deadline_secs;
    o.max_wait_secs = f.max_wait_secs;
    o.hooks = {guard,
               std::make_shared<ReadyHook>(task, m.step.value(), f.checkpoint_dir, f.snapshot_dir),
               std::make_shared<tw::StopAtStepHook>(tw::StopAtStepHook::LastStep(f.last_step))};
    tw::MonitoredTrainingSession sess(g, o);
    const tw::Output step_value = m.step.value();
    const std::vector<tw::Variable> vars = tw::global_variables(g);
    int trained = 0, failed = 0;
    // A training run that failed: its step and the variables read just before it. If the
    // global step is still that step, the run must have left no variable changed.
    std::optional<std::pair<int64_t, std::vector<tw::Tensor>>> unsettled;
    std::optional<std::chrono::steady_clock::time_point> failing_since;  // Of the current run of failures.
    while (!sess.should_stop()) {
      const auto start = std::chrono::steady_clock::now();
      int64_t step = -1;
      try {
        step = sess.run(step_value).scalar<int64_t>();
        if (unsettled) {
          if (step == unsettled->first) {
            const std::vector<std::string> changed = ChangedVariables(vars, unsettled->second, ReadVariables(sess, vars));
            if (!changed.empty()) {
              throw tw::StatusError(absl::DataLossError(absl::StrCat(
                  "the failed run left step ", step, " partly applied: the global step is still ", step, " but ",
                  changed.size(), " of ", vars.size(), " variables changed (", absl::StrJoin(changed, ", "), ")")));
            }
            Event(task, absl::StrCat("the failed run of step ", step, " changed no variable"));
          } else {
            Event(task, absl::StrCat("after the failed run of step ", unsettled->first, " the global step is ", step));
          }
          unsettled.reset();
        }
        if (step >= f.last_step) break;
        if (step % 2 != task) {
          std::this_thread::sleep_for(std::chrono::milliseconds(f.rpc_poll_ms));
          continue;
        }
        auto [x, y] = Batch(task, step);
        guard->Arm();  // Before any run: the step read above must still hold when training.
        std::vector<tw::Tensor> before = ReadVariables(sess, vars);
        unsettled.emplace(step, std::move(before));
        const float loss = sess.run({m.loss}, {{m.x, x}, {m.y, y}}, {m.train})[0].scalar<float>();
        guard->Disarm();
        unsettled.reset();
        ++trained;
        failing_since.reset();
        Event(task, absl::StrCat("trained step ", step, ", loss ", loss));
      } catch (const tw::StatusError& e) {
        guard->Disarm();
        const auto code = e.status().code();
        // A cut link fails a run with DeadlineExceeded (the calls between tasks time out)
        // or Unavailable; those, and the guard's refusal, are expected: read the step again.
        if (code != absl::StatusCode::kDeadlineExceeded && code != absl::StatusCode::kUnavailable &&
            code != absl::StatusCode::kAborted && code != absl::StatusCode::kFailedPrecondition) {
          throw;
        }
        ++failed;
        if (!failing_since) failing_since = start;
        if (MillisSince(*failing_since) > 1000 * f.recovery_deadline_secs) {
          throw tw::StatusError(absl::DeadlineExceededError(absl::StrCat(
              "runs kept failing for --recovery_deadline_secs (", f.recovery_deadline_secs, "): ", e.what())));
        }
        Event(task, absl::StrFormat("run failed after %.0f ms (%s): %s", MillisSince(start),
                                    step < 0 ? "reading the global step" : absl::StrCat("training step ", step),
                                    e.status().ToString()));
        std::this_thread::sleep_for(std::chrono::duration<double>(f.recovery_wait_secs));
      }
    }
    const int64_t final_step = sess.run(step_value).scalar<int64_t>();
    if (!f.dump_file.empty()) DumpVariables(sess, g, f.dump_file);
    Event(task, absl::StrCat("done at global_step ", final_step, ", trained ", trained, " steps, ", failed,
                             " failed runs, ", sess.recoveries(), " recoveries"));
    sess.close();
  } catch (const tw::StatusError& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
