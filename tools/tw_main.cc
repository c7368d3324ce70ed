// The `tw` command.
//   tw run --graph FILE [--feed NAME=VALUE]... [--fetch NAME]... [--target_op NAME]...
//   tw run --saved_model DIR [--tag T]... [--signature KEY] [--feed KEY=VALUE]... [--fetch KEY]...
//          [--target grpc://host:port] [--log_device_placement] [--allow_soft_placement]
//   tw server ... / tw cluster ...   (see kUsage)
//   tw ops      lists the registered ops
//   tw ops --gradients   each op with its gradient: "gradient", "none" (registered as not
//                        differentiable) or "missing"
// Errors print one clear line and exit non-zero.
#include <filesystem>
#include <iostream>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>
#include <string>
#include <vector>

#include <csignal>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autodiff/gradient_registry.h"
#include "distributed/process_cluster.h"
#include "client/tensor_text.h"
#include "core/file_access.h"
#include "core/parent_watch.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "savedmodel/saved_model_loader.h"
#include "tensorweave/server.h"
#include "tensorweave/tensorweave.h"

namespace {

constexpr char kUsage[] =
    "usage: tw <command> [flags]\n"
    "commands:\n"
    "  run   run a GraphDef file (binary, or text if it ends in .pbtxt/.txt)\n"
    "        --graph FILE            the GraphDef (required)\n"
    "        --feed NAME=VALUE       feed a tensor: 3, 1.5, [1,2], [[1,2],[3,4]] (repeatable)\n"
    "        --fetch NAME            print this tensor, \"node\" or \"node:k\" (repeatable)\n"
    "        --target_op NAME        run this node for its effect (repeatable)\n"
    "  run --saved_model DIR      run a SavedModel's signature (variables restored)\n"
    "        --tag TAG               its tag set (repeatable; default serve)\n"
    "        --signature KEY         default serving_default; --feed KEY=VALUE and\n"
    "                                --fetch KEY name the signature's input/output keys\n"
    "        --target URL            where to run: \"\" (this process, default) or grpc://host:port\n"
    "        --log_device_placement  print the device of every node\n"
    "        --allow_soft_placement  place ops whose device does not exist elsewhere\n"
    "        --tls_ca, --tls_cert, --tls_key, --cluster_token_file  as for server: what to\n"
    "                                present to a secured cluster (defaults: TW_TLS_CA,\n"
    "                                TW_TLS_CERT, TW_TLS_KEY, TW_CLUSTER_TOKEN[_FILE])\n"
    "  server  run one task of a cluster until SIGINT/SIGTERM\n"
    "        --cluster_spec SPEC     job1|host:port;host:port,job2|host:port (or TF_CONFIG in\n"
    "                                the environment when omitted)\n"
    "        --job_name NAME         this task's job\n"
    "        --task_index N          this task's index in the job (default 0)\n"
    "        --rpc_timeout_ms MS     deadline of calls between tasks (default 30000)\n"
    "        --intra_op_threads N    threads within one op (default: one per core)\n"
    "        --inter_op_threads N    threads running ops side by side (default: one per core)\n"
    "        --tls_cert PEM --tls_key PEM  serve TLS only, with this certificate and key (also\n"
    "                                presented to the other tasks)\n"
    "        --tls_ca PEM            mutual TLS: require client certificates signed by this CA\n"
    "                                (and verify the other tasks against it)\n"
    "        --cluster_token_file F  require this shared token on every call (and send it)\n"
    "        --insecure_allow_remote serve a non-loopback address without TLS or a token\n"
    "                                (refused otherwise)\n"
    "        --max_tensor_bytes N    largest tensor fed, received, decoded or made by a kernel\n"
    "                                (default 4 GiB)\n"
    "        --max_graph_nodes N     largest GraphDef in nodes (default 1048576)\n"
    "        --max_graph_bytes N     largest GraphDef in bytes (default 1 GiB)\n"
    "        --max_concurrent_steps N  steps run at once; more are refused (default 1024)\n"
    "        --max_registered_graphs N  graph partitions registered at once (default 65536)\n"
    "        --idle_step_timeout_ms MS  drop a step that nothing ran or received for this\n"
    "                                long, with the tensors left in it (default 600000)\n"
    "        --max_pending_reply_bytes N  step replies held for clients that have not read\n"
    "                                them yet (default 4 GiB)\n"
    "        --session_gc_seconds S  close a session that ran nothing for this long\n"
    "                                (default 86400)\n"
    "        --file_access_root DIR  graphs may read and write files only under DIR\n"
    "                                (Save/Restore...; default: the working directory)\n"
    "                                (over a limit: ResourceExhausted naming it)\n"
    "        --parent_pid PID        stop (as on SIGTERM) when process PID exits: what `tw\n"
    "                                cluster` and the tests' clusters pass, so no task\n"
    "                                outlives them\n"
    "  cluster  start a local cluster of `tw server` processes on free loopback ports, print\n"
    "           its spec and targets, and stop every task on SIGINT/SIGTERM\n"
    "        --jobs JOB:N,...        jobs and task counts (default ps:1,worker:2)\n"
    "        --rpc_timeout_ms MS, --intra_op_threads N, --inter_op_threads N, --tls_cert PEM,\n"
    "        --tls_key PEM, --tls_ca PEM, --cluster_token_file F, --file_access_root DIR\n"
    "                                passed to every task\n"
    "  ops   list the registered ops\n"
    "        --gradients             with each op's gradient: gradient, none (not\n"
    "                                differentiable) or missing\n";

// The field of `security` a flag ("--tls_cert", "-tls_cert"...) names; null for others.
std::string* SecurityFlag(std::string flag, tw::TransportSecurity* security) {
  while (absl::StartsWith(flag, "-")) flag = flag.substr(1);
  if (flag == "tls_cert") return &security->tls_cert_file;
  if (flag == "tls_key") return &security->tls_key_file;
  if (flag == "tls_ca") return &security->tls_ca_file;
  if (flag == "cluster_token_file") return &security->cluster_token_file;
  return nullptr;
}

struct RunFlags {
  std::string graph, target;
  std::vector<std::string> feeds, fetches, target_ops;
  // --saved_model: feeds and fetches name the signature's input and output keys.
  std::string saved_model, signature = tw::kDefaultServingSignatureDefKey;
  std::set<std::string> tags;
  tw::SessionConfig config;
};

// Accepts "--flag value" and "--flag=value".
tw::StatusOr<RunFlags> ParseRunFlags(int argc, char** argv) {
  RunFlags flags;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool has_value = false;
    if (auto eq = arg.find('='); absl::StartsWith(arg, "--") && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto take = [&]() -> tw::StatusOr<std::string> {
      if (has_value) return value;
      if (i + 1 >= argc) return absl::InvalidArgumentError(absl::StrCat(arg, " needs a value"));
      return std::string(argv[++i]);
    };
    if (arg == "--log_device_placement") {
      flags.config.log_device_placement = true;
    } else if (arg == "--allow_soft_placement") {
      flags.config.allow_soft_placement = true;
    } else if (std::string* path = SecurityFlag(arg, &flags.config.security); path != nullptr) {
      TW_ASSIGN_OR_RETURN(*path, take());
    } else if (arg == "--graph" || arg == "--feed" || arg == "--fetch" || arg == "--target_op" ||
               arg == "--target" || arg == "--saved_model" || arg == "--tag" || arg == "--signature") {
      TW_ASSIGN_OR_RETURN(std::string v, take());
      if (arg == "--saved_model") flags.saved_model = v;
      if (arg == "--tag") flags.tags.insert(v);
      if (arg == "--signature") flags.signature = v;
      if (arg == "--graph") flags.graph = v;
      if (arg == "--feed") flags.feeds.push_back(v);
      if (arg == "--fetch") flags.fetches.push_back(v);
      if (arg == "--target_op") flags.target_ops.push_back(v);
      if (arg == "--target") flags.target = v;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", argv[i], "'"));
    }
  }
  if (flags.graph.empty() == flags.saved_model.empty()) {
    return absl::InvalidArgumentError("give one of --graph FILE or --saved_model DIR");
  }
  if (flags.tags.empty()) flags.tags.insert(tw::kSavedModelTagServe);
  if (flags.fetches.empty() && flags.target_ops.empty()) {
    return absl::InvalidArgumentError("give at least one --fetch or --target_op");
  }
  return flags;
}

// `tw run --saved_model`: the model loaded (variables restored), its signature's keys
// turned into tensor names, then the same run as for a GraphDef.
tw::Status RunSavedModel(RunFlags flags) {
  TW_ASSIGN_OR_RETURN(tw::SavedModelBundle bundle,
                      tw::LoadSavedModel(flags.saved_model, flags.tags, flags.target, flags.config));
  TW_ASSIGN_OR_RETURN(const tw::SignatureDef* sig, tw::FindSignature(bundle.meta_graph_def, flags.signature));
  auto lookup = [&](const auto& map, const std::string& key, const char* what) -> tw::StatusOr<std::string> {
    auto it = map.find(key);
    if (it == map.end()) {
      std::vector<std::string> keys;
      for (const auto& [k, unused] : map) keys.push_back(k);
      std::sort(keys.begin(), keys.end());
      return absl::InvalidArgumentError(absl::StrCat("signature '", flags.signature, "' has no ", what, " '", key,
                                                     "'; it has: [", absl::StrJoin(keys, ", "), "]"));
    }
    return it->second.name();
  };
  std::vector<std::pair<std::string, tw::Tensor>> feeds;
  for (const std::string& feed : flags.feeds) {
    auto eq = feed.find('=');
    if (eq == std::string::npos) return absl::InvalidArgumentError(absl::StrCat("--feed '", feed, "' is not KEY=VALUE"));
    TW_ASSIGN_OR_RETURN(std::string name, lookup(sig->inputs(), feed.substr(0, eq), "input"));
    auto value = tw::ParseTensorText(feed.substr(eq + 1), bundle.graph->tensor(name).dtype());
    if (!value.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--feed ", feed.substr(0, eq), ": ", value.status().message()));
    }
    feeds.emplace_back(name, *std::move(value));
  }
  std::vector<std::string> fetches;
  for (const std::string& key : flags.fetches) {
    TW_ASSIGN_OR_RETURN(std::string name, lookup(sig->outputs(), key, "output"));
    fetches.push_back(name);
  }
  std::vector<tw::Tensor> outputs;
  TW_RETURN_IF_ERROR(bundle.session->Run(feeds, fetches, flags.target_ops, &outputs));
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << flags.fetches[i] << " = " << outputs[i].DebugString(1000) << "\n";
  }
  return absl::OkStatus();
}

tw::Status Run(const RunFlags& flags) {
  if (!flags.saved_model.empty()) return RunSavedModel(flags);
  TW_ASSIGN_OR_RETURN(tw::GraphDef def, tw::ReadGraphDefFile(flags.graph));
  tw::Graph graph;
  try {
    graph.Import(def);
  } catch (const tw::StatusError& e) {
    return absl::Status(e.code(), absl::StrCat(flags.graph, ": ", e.status().message()));
  }
  std::vector<std::pair<std::string, tw::Tensor>> feeds;
  for (const std::string& feed : flags.feeds) {
    auto eq = feed.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("--feed '", feed, "' is not NAME=VALUE"));
    }
    std::string name = feed.substr(0, eq);
    tw::Output target;
    try {
      target = graph.tensor(name);
    } catch (const tw::StatusError& e) {
      return absl::InvalidArgumentError(absl::StrCat("--feed ", name, ": ", e.status().message()));
    }
    auto value = tw::ParseTensorText(feed.substr(eq + 1), target.dtype());
    if (!value.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--feed ", name, ": ", value.status().message()));
    }
    feeds.emplace_back(name, *std::move(value));
  }
  std::unique_ptr<tw::Session> session;
  try {
    session = std::make_unique<tw::Session>(graph, flags.target, flags.config);
  } catch (const tw::StatusError& e) {
    return e.status();
  }
  std::vector<tw::Tensor> outputs;
  TW_RETURN_IF_ERROR(session->Run(feeds, flags.fetches, flags.target_ops, &outputs));
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << flags.fetches[i] << " = " << outputs[i].DebugString(1000) << "\n";
  }
  return absl::OkStatus();
}

// How long a stopping server may take before it exits regardless.
constexpr int kStopGraceSeconds = 3;

// The field a numeric server flag ("-rpc_timeout_ms", "-max_tensor_bytes"...) sets.
int64_t* ServerNumberFlag(const std::string& arg, tw::ServerOptions* options) {
  if (arg == "-rpc_timeout_ms") return &options->rpc_timeout_ms;
  if (arg == "-max_tensor_bytes") return &options->limits.max_tensor_bytes;
  if (arg == "-max_graph_nodes") return &options->limits.max_graph_nodes;
  if (arg == "-max_graph_bytes") return &options->limits.max_graph_bytes;
  if (arg == "-max_concurrent_steps") return &options->limits.max_concurrent_steps;
  if (arg == "-max_registered_graphs") return &options->limits.max_registered_graphs;
  if (arg == "-idle_step_timeout_ms") return &options->limits.idle_step_timeout_ms;
  if (arg == "-session_gc_seconds") return &options->session_gc_seconds;
  if (arg == "-max_pending_reply_bytes") return &options->max_pending_reply_bytes;
  return nullptr;
}

// Accepts "--flag value", "--flag=value" and the seeds' single-dash spellings.
tw::Status RunServer(int argc, char** argv) {
  std::string spec, job;
  int task = 0;
  pid_t parent = 0;
  tw::ServerOptions options;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (arg == "--insecure_allow_remote" || arg == "-insecure_allow_remote") {
      options.insecure_allow_remote = true;
      continue;
    }
    if (absl::StartsWith(arg, "--")) arg = arg.substr(1);
    auto eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat(argv[i], " needs a value"));
    }
    if (arg == "-cluster_spec") {
      spec = value;
    } else if (arg == "-job_name") {
      job = value;
    } else if (std::string* path = SecurityFlag(arg, &options.security); path != nullptr) {
      *path = value;
    } else if (arg == "-file_access_root") {
      options.file_access_root = value;
    } else if (arg == "-task_index") {
      if (!absl::SimpleAtoi(value, &task)) return absl::InvalidArgumentError("--task_index must be an integer");
    } else if (int64_t* number = ServerNumberFlag(arg, &options); number != nullptr) {
      if (!absl::SimpleAtoi(value, number) || *number <= 0) {
        return absl::InvalidArgumentError(absl::StrCat("-", arg, " must be a positive integer, not '", value, "'"));
      }
    } else if (arg == "-parent_pid") {
      if (!absl::SimpleAtoi(value, &parent) || parent <= 0) {
        return absl::InvalidArgumentError(absl::StrCat("--parent_pid must be a process id, not '", value, "'"));
      }
    } else if (arg == "-intra_op_threads" || arg == "-inter_op_threads") {
      int& threads = arg == "-intra_op_threads" ? options.intra_op_threads : options.inter_op_threads;
      if (!absl::SimpleAtoi(value, &threads) || threads < 1 || threads > 1024) {
        return absl::InvalidArgumentError(absl::StrCat("-", arg, " must be an integer from 1 to 1024"));
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", argv[i], "'"));
    }
  }
  tw::ClusterSpec cluster;
  if (!spec.empty()) {
    TW_ASSIGN_OR_RETURN(cluster, tw::ClusterSpec::Parse(spec));
  } else {
    auto config = tw::ClusterSpec::FromEnvironment();
    if (absl::IsNotFound(config.status())) return absl::InvalidArgumentError("give --cluster_spec (or set TF_CONFIG)");
    TW_RETURN_IF_ERROR(config.status());
    cluster = config->cluster;
    if (job.empty()) {
      job = config->job;
      task = config->task;
    }
  }
  if (job.empty()) return absl::InvalidArgumentError("--job_name is required");
  // A client's graph names the files its ops open: without a root it could write anywhere
  // this process can.
  if (options.file_access_root.empty()) options.file_access_root = ".";
  TW_ASSIGN_OR_RETURN(options.file_access_root, tw::CanonicalFileAccessRoot(options.file_access_root));
  // Signals are taken synchronously by this thread; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  if (parent != 0) TW_RETURN_IF_ERROR(tw::StopWhenProcessExits(parent));
  TW_ASSIGN_OR_RETURN(auto server, tw::Server::Create(cluster, job, task, options));
  TW_RETURN_IF_ERROR(server->Start());
  std::cout << "tw server: /job:" << job << "/replica:0/task:" << task << " of cluster " << cluster.ToString()
            << " listening at " << server->target() << ", file access root " << options.file_access_root
            << std::endl;
  int sig = 0;
  sigwait(&signals, &sig);
  std::cout << "tw server: " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", stopping" << std::endl;
  // Stopping cancels every call and so every step; should anything still hold the process
  // (a kernel that ignores cancellation), it ends anyway, a bounded time after the signal.
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::seconds(kStopGraceSeconds));
    std::cerr << "tw server: still stopping " << kStopGraceSeconds << " s after the signal; exiting now" << std::endl;
    std::_Exit(1);
  }).detach();
  server->Stop();
  return absl::OkStatus();
}

// "ps:1,worker:2" -> {ps: 1, worker: 2}.
tw::StatusOr<std::map<std::string, int>> ParseJobs(const std::string& text) {
  std::map<std::string, int> jobs;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits(':', 1));
    int n = 0;
    if (kv.first.empty() || !absl::SimpleAtoi(kv.second, &n) || n < 1 || n > 64 || jobs.count(kv.first)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--jobs: '", item, "' is not JOB:N with a new job name and 1 <= N <= 64"));
    }
    jobs[kv.first] = n;
  }
  return jobs;
}

tw::Status RunCluster(int argc, char** argv) {
  std::string jobs_flag = "ps:1,worker:2";
  std::vector<std::string> server_flags;
  tw::TransportSecurity security;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat(arg, " needs a value"));
    }
    if (arg == "--jobs") {
      jobs_flag = value;
    } else if (arg == "--rpc_timeout_ms" || arg == "--intra_op_threads" || arg == "--inter_op_threads" ||
               arg == "--file_access_root") {
      server_flags.push_back(arg + "=" + value);
    } else if (std::string* path = SecurityFlag(arg, &security); path != nullptr) {
      *path = value;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", arg, "'"));
    }
  }
  TW_ASSIGN_OR_RETURN(auto jobs, ParseJobs(jobs_flag));
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::error_code error;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", error).string();
  if (error) return absl::InternalError("cannot find the tw binary (/proc/self/exe)");
  TW_ASSIGN_OR_RETURN(auto cluster, tw::ProcessCluster::Start(jobs, self, server_flags, security));
  std::cout << "tw cluster: " << cluster->spec().ToString() << std::endl;
  for (const auto& [job, n] : jobs) {
    for (int t = 0; t < n; ++t) std::cout << "  /job:" << job << "/task:" << t << "  " << cluster->target(job, t) << "\n";
  }
  std::cout << "tw cluster: running; SIGINT or SIGTERM stops every task" << std::endl;
  int sig = 0;
  sigwait(&signals, &sig);
  std::cout << "tw cluster: " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", stopping" << std::endl;
  cluster.reset();
  std::cout << "tw cluster: stopped" << std::endl;
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "help") {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  std::string command = argv[1];
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-help" || std::string(argv[i]) == "-h") {
      std::cout << kUsage;
      return 0;
    }
  }
  if (command == "ops") {
    bool with_gradients = argc > 2 && std::string(argv[2]) == "--gradients";
    if (argc > 2 + with_gradients) {
      std::cerr << "tw ops: unknown argument '" << argv[2 + with_gradients] << "'\n" << kUsage;
      return 2;
    }
    const tw::GradientRegistry& grads = tw::GradientRegistry::Global();
    for (const std::string& op : tw::OpRegistry::Global().ListOps()) {
      std::cout << op;
      if (with_gradients) {
        std::cout << " " << (!grads.Find(op).ok() ? "missing" : grads.IsNoGradient(op) ? "none" : "gradient");
      }
      std::cout << "\n";
    }
    return 0;
  }
  if (command == "server" || command == "cluster") {
    tw::Status status = command == "server" ? RunServer(argc - 2, argv + 2) : RunCluster(argc - 2, argv + 2);
    if (!status.ok()) {
      std::cerr << "tw " << command << ": " << status.message() << "\n";
      return absl::IsInvalidArgument(status) ? 2 : 1;
    }
    return 0;
  }
  if (command != "run") {
    std::cerr << "tw: unknown command '" << command << "'\n" << kUsage;
    return 2;
  }
  auto flags = ParseRunFlags(argc - 2, argv + 2);
  if (!flags.ok()) {
    std::cerr << "tw run: " << flags.status().message() << "\n";
    return 2;
  }
  tw::Status status = Run(*flags);
  if (!status.ok()) {
    std::cerr << "tw run: " << absl::StatusCodeToString(status.code()) << ": " << status.message() << "\n";
    return 1;
  }
  return 0;
}
