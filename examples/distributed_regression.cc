// Between-graph replicated training under a MonitoredTrainingSession, as TF 1.x's
// distributed trainer: the parameters on /job:ps/task:0, each worker process computing on
// its own task; task 0 is the chief (initializes or restores, saves checkpoints), the
// others wait for it. A task that dies or restarts is recovered from.
//   distributed_regression [--cluster_spec=ps|HOST:PORT,worker|HOST:PORT;...]
//       [--task_index=0] [--checkpoint_dir=DIR] [--save_checkpoint_steps=10]
//       [--last_step=200 | --num_steps=N] [--log_every_n=50] [--recovery_wait_secs=1]
//       [--max_wait_secs=60]
// Without --cluster_spec it starts one ps and one worker task in this process.
#include <iostream>
#include <map>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/net_util.h"
#include "regression_model.h"
#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

namespace {

// Prints the global step of every session created (again after a recovery).
class ReportSessionHook : public tw::SessionRunHook {
 public:
  ReportSessionHook(int task, tw::Output step) : task_(task), step_(step) {}
  void after_create_session(tw::Session& session) override {
    std::cout << "task " << task_ << ": session ready at global_step " << session.run(step_).scalar<int64_t>()
              << std::endl;
  }

 private:
  int task_;
  tw::Output step_;
};

std::map<std::string, std::string> ParseFlags(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
      throw tw::StatusError(absl::InvalidArgumentError(absl::StrCat("flags are --name=value, not '", arg, "'")));
    }
    flags[arg.substr(2, eq - 2)] = arg.substr(eq + 1);
  }
  return flags;
}

double NumberFlag(std::map<std::string, std::string>& flags, const std::string& name, double fallback) {
  auto it = flags.find(name);
  if (it == flags.end()) return fallback;
  double value;
  if (!absl::SimpleAtod(it->second, &value)) {
    throw tw::StatusError(absl::InvalidArgumentError(absl::StrCat("--", name, " must be a number")));
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  try {
    auto flags = ParseFlags(argc, argv);
    std::vector<std::unique_ptr<tw::Server>> servers;  // Only without --cluster_spec.
    tw::ClusterSpec spec;
    if (flags.count("cluster_spec")) {
      spec = tw::ValueOrThrow(tw::ClusterSpec::Parse(flags["cluster_spec"]));
    } else {
      auto address = [] { return absl::StrCat("localhost:", tw::ValueOrThrow(tw::PickFreeLoopbackPort())); };
      spec = tw::ValueOrThrow(tw::ClusterSpec::FromJobs({{"ps", {address()}}, {"worker", {address()}}}));
      for (const char* job : {"ps", "worker"}) {
        servers.push_back(tw::ValueOrThrow(tw::Server::Create(spec, job, 0)));
        tw::ThrowIfError(servers.back()->Start());
      }
    }
    const int task = static_cast<int>(NumberFlag(flags, "task_index", 0));
    tw::Graph g;
    auto model = tw::examples::BuildRegression(g, "/job:ps/task:0", absl::StrCat("/job:worker/task:", task));

    tw::MonitoredTrainingSessionOptions o;
    o.master = "grpc://" + tw::ValueOrThrow(spec.address("worker", task));
    o.is_chief = task == 0;
    o.checkpoint_dir = flags["checkpoint_dir"];
    o.save_checkpoint_steps = static_cast<int64_t>(NumberFlag(flags, "save_checkpoint_steps", 10));
    o.log_step_count_steps = 0;
    o.recovery_wait_secs = NumberFlag(flags, "recovery_wait_secs", 1);
    o.max_wait_secs = NumberFlag(flags, "max_wait_secs", 60);
    o.recovery_deadline_secs = NumberFlag(flags, "recovery_deadline_secs", 60);
    const auto stop = flags.count("num_steps")
                          ? tw::StopAtStepHook::NumSteps(static_cast<int64_t>(NumberFlag(flags, "num_steps", 0)))
                          : tw::StopAtStepHook::LastStep(static_cast<int64_t>(NumberFlag(flags, "last_step", 200)));
    o.hooks = {std::make_shared<ReportSessionHook>(task, model.step.value()),
               std::make_shared<tw::StopAtStepHook>(stop),
               std::make_shared<tw::LoggingTensorHook>(
                   std::vector<std::pair<std::string, tw::Output>>{{"global_step", model.step.value()},
                                                                   {"loss", model.loss}},
                   static_cast<int64_t>(NumberFlag(flags, "log_every_n", 50)), &std::cout)};
    tw::MonitoredTrainingSession sess(g, o);
    while (!sess.should_stop()) sess.run(model.train);
    auto final_values = sess.run({model.step.value(), model.loss});
    std::cout << "task " << task << ": done at global_step " << final_values[0].scalar<int64_t>() << ", loss "
              << final_values[1].scalar<float>() << ", recoveries " << sess.recoveries() << std::endl;
  } catch (const tw::StatusError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
