// The `tw` command.
//   tw run --graph FILE [--feed NAME=VALUE]... [--fetch NAME]... [--target_op NAME]...
//   tw run --saved_model DIR [--tag T]... [--signature KEY] [--feed KEY=VALUE]... [--fetch KEY]...
//          [--target grpc://host:port] [--log_device_placement] [--allow_soft_placement] [--trace FILE]
//   tw server ... / tw cluster ...   (see kUsage)
//   tw ops      lists the registered ops
//   tw ops --gradients   each op with its gradient: "gradient", "none" (registered as not
//                        differentiable) or "missing"
// Errors print one clear line and exit non-zero. `tw <command> --help` prints that command's
// flags. Flags are absl::flags, parsed per subcommand (see tw_flags.h for why and how).
#include <filesystem>
#include <fstream>
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

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autodiff/gradient_registry.h"
#include "distributed/rpc/process_cluster.h"
#include "client/tensor_text.h"
#include "core/file_access.h"
#include "core/parent_watch.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "runtime/chrome_trace.h"
#include "tensorweave/proto/config.pb.h"
#include "savedmodel/saved_model_loader.h"
#include "tensorweave/health.h"
#include "tensorweave/process.h"
#include "tensorweave/server.h"
#include "tensorweave/tensorweave.h"
#include "tw_commands.h"
#include "tw_flags.h"
#include "tw_resolver.h"

using tw::cli::PositiveInt;
using tw::cli::ProcessId;
using tw::cli::TaskIndex;
using tw::cli::ThreadCount;

// `tw run`
ABSL_FLAG(std::string, graph, "", "the GraphDef file (binary, or text if it ends in .pbtxt/.txt)");
ABSL_FLAG(std::string, feed, "",
          "feed a tensor, NAME=VALUE: 3, 1.5, [1,2], [[1,2],[3,4]] (repeatable; with --saved_model "
          "NAME is the signature's input key)");
ABSL_FLAG(std::string, fetch, "",
          "print this tensor, \"node\" or \"node:k\" (repeatable; with --saved_model the signature's output key)");
ABSL_FLAG(std::string, target_op, "", "run this node for its effect (repeatable)");
ABSL_FLAG(std::string, saved_model, "", "run this SavedModel directory's signature (variables restored)");
ABSL_FLAG(std::string, tag, "", "the SavedModel's tag set (repeatable; default serve)");
ABSL_FLAG(std::string, signature, tw::kDefaultServingSignatureDefKey, "the SavedModel signature to run");
ABSL_FLAG(std::string, target, "", "where to run: \"\" (this process) or grpc://host:port");
ABSL_FLAG(bool, log_device_placement, false, "print the device of every node");
ABSL_FLAG(bool, allow_soft_placement, false, "place ops whose device does not exist elsewhere");
ABSL_FLAG(std::string, trace, "",
          "trace the run (FULL_TRACE) and write its timeline to this file as Chrome trace JSON "
          "(chrome://tracing, Perfetto)");
// Shared by run (what to present to a secured cluster; defaults from TW_TLS_CA, TW_TLS_CERT,
// TW_TLS_KEY, TW_CLUSTER_TOKEN[_FILE]), server and cluster.
ABSL_FLAG(std::string, tls_cert, "", "TLS certificate (PEM): served, and presented to the other tasks");
ABSL_FLAG(std::string, tls_key, "", "TLS private key (PEM) of --tls_cert");
ABSL_FLAG(std::string, tls_ca, "", "mutual TLS: require (and verify peers') certificates signed by this CA");
ABSL_FLAG(std::string, cluster_token_file, "", "require this shared token on every call (and send it)");

// `tw server`
ABSL_FLAG(std::string, cluster_spec, "",
          "job1|host:port;host:port,job2|host:port (or TF_CONFIG in the environment when omitted)");
ABSL_FLAG(std::string, job_name, "", "this task's job");
ABSL_FLAG(TaskIndex, task_index, TaskIndex{}, "this task's index in the job");
ABSL_FLAG(PositiveInt, rpc_timeout_ms, PositiveInt{tw::ServerOptions().rpc_timeout_ms},
          "deadline of calls between tasks, in ms");
ABSL_FLAG(ThreadCount, intra_op_threads, ThreadCount{}, "threads within one op (default: one per core)");
ABSL_FLAG(ThreadCount, inter_op_threads, ThreadCount{}, "threads running ops side by side (default: one per core)");
ABSL_FLAG(bool, insecure_allow_remote, false,
          "serve a non-loopback address without TLS or a token (refused otherwise)");
ABSL_FLAG(PositiveInt, max_tensor_bytes, PositiveInt{tw::ResourceLimits().max_tensor_bytes},
          "largest tensor fed, received, decoded or made by a kernel (over a limit: ResourceExhausted naming it)");
ABSL_FLAG(PositiveInt, max_graph_nodes, PositiveInt{tw::ResourceLimits().max_graph_nodes},
          "largest GraphDef in nodes");
ABSL_FLAG(PositiveInt, max_graph_bytes, PositiveInt{tw::ResourceLimits().max_graph_bytes},
          "largest GraphDef in bytes");
ABSL_FLAG(PositiveInt, max_concurrent_steps, PositiveInt{tw::ResourceLimits().max_concurrent_steps},
          "steps run at once; more are refused");
ABSL_FLAG(PositiveInt, max_registered_graphs, PositiveInt{tw::ResourceLimits().max_registered_graphs},
          "graph partitions registered at once");
ABSL_FLAG(PositiveInt, idle_step_timeout_ms, PositiveInt{tw::ResourceLimits().idle_step_timeout_ms},
          "drop a step that nothing ran or received for this long, with the tensors left in it");
ABSL_FLAG(PositiveInt, max_pending_reply_bytes, PositiveInt{tw::ServerOptions().max_pending_reply_bytes},
          "step replies held for clients that have not read them yet");
ABSL_FLAG(PositiveInt, session_gc_seconds, PositiveInt{tw::ServerOptions().session_gc_seconds},
          "close a session that ran nothing for this long");
ABSL_FLAG(std::string, file_access_root, "",
          "graphs may read and write files only under this directory (Save/Restore...; default: the "
          "working directory)");
ABSL_FLAG(ProcessId, parent_pid, ProcessId{},
          "stop (as on SIGTERM) when this process exits: what `tw cluster` and the tests' clusters pass, so "
          "no task outlives them");

// `tw server --cluster_resolver` (tools/tw_resolver.cc)
ABSL_FLAG(std::string, cluster_resolver, "",
          "where the cluster and this task come from: tf_config, slurm, mpi or kubernetes (instead of "
          "--cluster_spec)");
ABSL_FLAG(std::string, resolver_jobs, "",
          "slurm, mpi, kubernetes: the jobs and their task counts in rank order, JOB:N,... (e.g. ps:1,worker:2)");
ABSL_FLAG(PositiveInt, base_port, PositiveInt{8888},
          "slurm, mpi: a task's port is this + its local index on its host; kubernetes: every pod's port");
ABSL_FLAG(std::string, k8s_service, "tw", "kubernetes: the headless Service of the StatefulSets");
ABSL_FLAG(std::string, k8s_namespace, "",
          "kubernetes: the namespace (default: POD_NAMESPACE, else the service account's, else default)");
ABSL_FLAG(std::string, k8s_statefulset_prefix, "tw-", "kubernetes: job J's StatefulSet is named PREFIX + J");
ABSL_FLAG(std::string, k8s_cluster_domain, "cluster.local", "kubernetes: the cluster's DNS domain");

// `tw health`
ABSL_FLAG(double, wait_seconds, 0, "keep trying for this long until the task answers (0: one try)");
ABSL_FLAG(PositiveInt, timeout_ms, PositiveInt{2000}, "the most one try waits for an answer, in ms");

// `tw cluster`
ABSL_FLAG(std::string, jobs, "ps:1,worker:2", "jobs and task counts, JOB:N,...");

// `tw ops`
ABSL_FLAG(bool, gradients, false,
          "with each op's gradient: gradient, none (not differentiable) or missing");

namespace {

using tw::cli::Bind;
using tw::cli::FlagBinding;

constexpr char kOverview[] =
    "usage: tw <command> [flags]      (tw <command> --help: that command's flags)\n"
    "commands:\n"
    "  run      run a GraphDef file (--graph) or a SavedModel's signature (--saved_model)\n"
    "  server   run one task of a cluster until SIGINT/SIGTERM\n"
    "  cluster  start a local cluster of `tw server` processes on free loopback ports, print\n"
    "           its spec and targets, and stop every task on SIGINT/SIGTERM\n"
    "  health   check that a task at ADDRESS serves (exit 0), waiting for it with --wait_seconds\n"
    "  ops      list the registered ops\n"
    "  freeze   write a GraphDef whose variables are constants (TensorFlow's freeze_graph)\n"
    "  show     print a GraphDef's, MetaGraph's, SavedModel's or checkpoint's inputs, outputs,\n"
    "           ops, variables and signatures\n"
    "  convert  convert a GraphDef between text and binary\n"
    "  board    draw the scalar curves and histograms of event files (LOGDIR... --out run.html|run.png)\n";

std::vector<FlagBinding> SecurityBindings() {
  return {Bind(FLAGS_tls_cert), Bind(FLAGS_tls_key), Bind(FLAGS_tls_ca), Bind(FLAGS_cluster_token_file)};
}

std::vector<FlagBinding> With(std::vector<FlagBinding> flags, const std::vector<FlagBinding>& more) {
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

// The flags given on the command line override the security read from the environment.
void ApplySecurityFlags(tw::TransportSecurity* security) {
  for (auto [flag, field] : {std::pair{&FLAGS_tls_cert, &security->tls_cert_file},
                             std::pair{&FLAGS_tls_key, &security->tls_key_file},
                             std::pair{&FLAGS_tls_ca, &security->tls_ca_file},
                             std::pair{&FLAGS_cluster_token_file, &security->cluster_token_file}}) {
    if (std::string value = absl::GetFlag(*flag); !value.empty()) *field = value;
  }
}

struct RunFlags {
  std::string graph, target;
  std::vector<std::string> feeds, fetches, target_ops;
  // --saved_model: feeds and fetches name the signature's input and output keys.
  std::string saved_model, signature;
  std::set<std::string> tags;
  tw::SessionConfig config;
  std::string trace;  // --trace FILE: the run's Chrome trace JSON goes there.
};

std::vector<FlagBinding> RunBindings(RunFlags* flags, std::vector<std::string>* tags) {
  using tw::cli::BindRepeated;
  return With({Bind(FLAGS_graph), BindRepeated(FLAGS_feed, &flags->feeds), BindRepeated(FLAGS_fetch, &flags->fetches),
               BindRepeated(FLAGS_target_op, &flags->target_ops), Bind(FLAGS_saved_model), BindRepeated(FLAGS_tag, tags),
               Bind(FLAGS_signature), Bind(FLAGS_target), Bind(FLAGS_log_device_placement),
               Bind(FLAGS_allow_soft_placement), Bind(FLAGS_trace)},
              SecurityBindings());
}

tw::StatusOr<RunFlags> ParseRunFlags(int argc, char** argv) {
  RunFlags flags;
  std::vector<std::string> tags;
  TW_RETURN_IF_ERROR(tw::cli::ParseFlags(RunBindings(&flags, &tags), argc, argv));
  flags.graph = absl::GetFlag(FLAGS_graph);
  flags.saved_model = absl::GetFlag(FLAGS_saved_model);
  flags.signature = absl::GetFlag(FLAGS_signature);
  flags.target = absl::GetFlag(FLAGS_target);
  flags.trace = absl::GetFlag(FLAGS_trace);
  flags.config.log_device_placement = absl::GetFlag(FLAGS_log_device_placement);
  flags.config.allow_soft_placement = absl::GetFlag(FLAGS_allow_soft_placement);
  ApplySecurityFlags(&flags.config.security);
  flags.tags.insert(tags.begin(), tags.end());
  if (flags.graph.empty() == flags.saved_model.empty()) {
    return absl::InvalidArgumentError("give one of --graph FILE or --saved_model DIR");
  }
  if (flags.tags.empty()) flags.tags.insert(tw::kSavedModelTagServe);
  if (flags.fetches.empty() && flags.target_ops.empty()) {
    return absl::InvalidArgumentError("give at least one --fetch or --target_op");
  }
  return flags;
}

std::vector<FlagBinding> ServerBindings() {
  return With({Bind(FLAGS_cluster_spec), Bind(FLAGS_job_name), Bind(FLAGS_task_index), Bind(FLAGS_rpc_timeout_ms),
               Bind(FLAGS_intra_op_threads), Bind(FLAGS_inter_op_threads), Bind(FLAGS_insecure_allow_remote),
               Bind(FLAGS_max_tensor_bytes), Bind(FLAGS_max_graph_nodes), Bind(FLAGS_max_graph_bytes),
               Bind(FLAGS_max_concurrent_steps), Bind(FLAGS_max_registered_graphs), Bind(FLAGS_idle_step_timeout_ms),
               Bind(FLAGS_max_pending_reply_bytes), Bind(FLAGS_session_gc_seconds), Bind(FLAGS_file_access_root),
               Bind(FLAGS_parent_pid), Bind(FLAGS_cluster_resolver), Bind(FLAGS_resolver_jobs),
               Bind(FLAGS_base_port), Bind(FLAGS_k8s_service), Bind(FLAGS_k8s_namespace),
               Bind(FLAGS_k8s_statefulset_prefix), Bind(FLAGS_k8s_cluster_domain)},
              SecurityBindings());
}

std::vector<FlagBinding> ClusterBindings() {
  return With({Bind(FLAGS_jobs), Bind(FLAGS_rpc_timeout_ms), Bind(FLAGS_intra_op_threads),
               Bind(FLAGS_inter_op_threads), Bind(FLAGS_file_access_root)},
              SecurityBindings());
}

std::vector<FlagBinding> OpsBindings() { return {Bind(FLAGS_gradients)}; }

std::vector<FlagBinding> HealthBindings() {
  return With({Bind(FLAGS_wait_seconds), Bind(FLAGS_timeout_ms)}, SecurityBindings());
}

// One subcommand's usage: its line of the overview and its flags from the registry.
std::string CommandUsage(const std::string& command) {
  std::vector<FlagBinding> flags;
  RunFlags unused_run;
  std::vector<std::string> unused_tags;
  if (command == "run") flags = RunBindings(&unused_run, &unused_tags);
  if (command == "server") flags = ServerBindings();
  if (command == "cluster") flags = ClusterBindings();
  if (command == "ops") flags = OpsBindings();
  if (command == "health") flags = HealthBindings();
  return absl::StrCat("usage: tw ", command, command == "health" ? " ADDRESS" : "", " [flags]\nflags:\n",
                      tw::cli::FlagsUsage(flags),
                      "other commands: tw run, tw server, tw cluster, tw health, tw ops, tw freeze, tw show, tw convert, tw board (tw --help: all of them)\n");
}

// The run of `tw run`, traced when --trace names a file: the step's timeline is written
// there as Chrome trace JSON (runtime/chrome_trace.h, the writer of Python's timeline too).
tw::Status RunAndPrint(tw::Session& session, const RunFlags& flags,
                       const std::vector<std::pair<std::string, tw::Tensor>>& feeds,
                       const std::vector<std::string>& fetches) {
  tw::RunOptions options;
  tw::RunMetadata metadata;
  if (!flags.trace.empty()) options.set_trace_level(tw::RunOptions::FULL_TRACE);
  std::vector<tw::Tensor> outputs;
  TW_RETURN_IF_ERROR(session.Run(options, feeds, fetches, flags.target_ops, &outputs, &metadata));
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << flags.fetches[i] << " = " << outputs[i].DebugString(1000) << "\n";
  }
  if (flags.trace.empty()) return absl::OkStatus();
  std::ofstream out(flags.trace, std::ios::binary | std::ios::trunc);
  out << tw::ChromeTraceJson(metadata.step_stats());
  out.close();
  if (!out) return absl::InvalidArgumentError(absl::StrCat("--trace: cannot write ", flags.trace));
  int nodes = 0;
  for (const auto& dev : metadata.step_stats().dev_stats()) nodes += dev.node_stats_size();
  std::cerr << "tw run: wrote the timeline of " << nodes << " nodes on " << metadata.step_stats().dev_stats_size()
            << " device(s) to " << flags.trace << "\n";
  return absl::OkStatus();
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
  return RunAndPrint(*bundle.session, flags, feeds, fetches);
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
  return RunAndPrint(*session, flags, feeds, flags.fetches);
}

// How long a stopping server may take before it exits regardless.
constexpr int kStopGraceSeconds = 3;

tw::Status RunServer(int argc, char** argv) {
  TW_RETURN_IF_ERROR(tw::cli::ParseFlags(ServerBindings(), argc, argv));
  const std::string spec = absl::GetFlag(FLAGS_cluster_spec);
  std::string job = absl::GetFlag(FLAGS_job_name);
  int task = absl::GetFlag(FLAGS_task_index).value;
  const pid_t parent = absl::GetFlag(FLAGS_parent_pid).value;
  tw::ServerOptions options;
  options.rpc_timeout_ms = absl::GetFlag(FLAGS_rpc_timeout_ms).value;
  options.intra_op_threads = absl::GetFlag(FLAGS_intra_op_threads).value;
  options.inter_op_threads = absl::GetFlag(FLAGS_inter_op_threads).value;
  options.insecure_allow_remote = absl::GetFlag(FLAGS_insecure_allow_remote);
  options.limits.max_tensor_bytes = absl::GetFlag(FLAGS_max_tensor_bytes).value;
  options.limits.max_graph_nodes = absl::GetFlag(FLAGS_max_graph_nodes).value;
  options.limits.max_graph_bytes = absl::GetFlag(FLAGS_max_graph_bytes).value;
  options.limits.max_concurrent_steps = absl::GetFlag(FLAGS_max_concurrent_steps).value;
  options.limits.max_registered_graphs = absl::GetFlag(FLAGS_max_registered_graphs).value;
  options.limits.idle_step_timeout_ms = absl::GetFlag(FLAGS_idle_step_timeout_ms).value;
  options.max_pending_reply_bytes = absl::GetFlag(FLAGS_max_pending_reply_bytes).value;
  options.session_gc_seconds = absl::GetFlag(FLAGS_session_gc_seconds).value;
  options.file_access_root = absl::GetFlag(FLAGS_file_access_root);
  ApplySecurityFlags(&options.security);
  tw::ClusterSpec cluster;
  const std::string resolver = absl::GetFlag(FLAGS_cluster_resolver);
  if (!resolver.empty()) {
    if (!spec.empty()) return absl::InvalidArgumentError("give --cluster_spec or --cluster_resolver, not both");
    const int64_t base_port = std::min<int64_t>(absl::GetFlag(FLAGS_base_port).value, 65536);  // 65536: refused
    TW_ASSIGN_OR_RETURN(tw::cli::ResolvedTask resolved,
                        tw::cli::Resolve({.name = resolver,
                                          .jobs = absl::GetFlag(FLAGS_resolver_jobs),
                                          .base_port = static_cast<int>(base_port),
                                          .k8s_service = absl::GetFlag(FLAGS_k8s_service),
                                          .k8s_namespace = absl::GetFlag(FLAGS_k8s_namespace),
                                          .k8s_statefulset_prefix = absl::GetFlag(FLAGS_k8s_statefulset_prefix),
                                          .k8s_cluster_domain = absl::GetFlag(FLAGS_k8s_cluster_domain)}));
    cluster = resolved.cluster;
    if (job.empty()) {
      job = resolved.job;
      task = resolved.task;
    }
    std::cout << "tw server: cluster resolver " << resolver << ": " << resolved.description << std::endl;
  } else if (!spec.empty()) {
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
  TW_RETURN_IF_ERROR(tw::cli::ParseFlags(ClusterBindings(), argc, argv));
  const std::string jobs_flag = absl::GetFlag(FLAGS_jobs);
  // What every task is started with (validated here, so a typo fails before any task starts).
  std::vector<std::string> server_flags = {
      absl::StrCat("--rpc_timeout_ms=", absl::GetFlag(FLAGS_rpc_timeout_ms).value)};
  for (const auto* flag : {&FLAGS_intra_op_threads, &FLAGS_inter_op_threads}) {
    if (int threads = absl::GetFlag(*flag).value; threads > 0) {
      server_flags.push_back(absl::StrCat("--", absl::GetFlagReflectionHandle(*flag).Name(), "=", threads));
    }
  }
  if (std::string root = absl::GetFlag(FLAGS_file_access_root); !root.empty()) {
    server_flags.push_back("--file_access_root=" + root);
  }
  tw::TransportSecurity security;
  ApplySecurityFlags(&security);
  TW_ASSIGN_OR_RETURN(auto jobs, ParseJobs(jobs_flag));
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::error_code error;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", error).string();
  if (error) return absl::InternalError("cannot find the tw binary (/proc/self/exe)");
  int tasks = 0;
  for (const auto& [job, n] : jobs) tasks += n;
  std::cout << "tw cluster: starting " << tasks << " tasks on free loopback ports" << std::endl;
  TW_ASSIGN_OR_RETURN(auto cluster, tw::ProcessCluster::Start(jobs, self, server_flags, security, "",
                                                              [](const std::string& job, int task, const std::string& state) {
                                                                std::cout << "tw cluster: /job:" << job << "/task:" << task
                                                                          << " " << state << std::endl;
                                                              }));
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

// `tw health ADDRESS`: exit 0 and one line when the task serves; otherwise 1 and why.
int HealthMain(int argc, char** argv) {
  std::string address;
  if (argc > 0 && argv[0][0] != '-') {
    address = argv[0];
    --argc;
    ++argv;
  }
  tw::Status parsed = tw::cli::ParseFlags(HealthBindings(), argc, argv);
  if (parsed.ok() && address.empty()) parsed = absl::InvalidArgumentError("give the task's ADDRESS (host:port) first");
  if (!parsed.ok()) {
    std::cerr << "tw health: " << parsed.message() << "\n" << CommandUsage("health");
    return 2;
  }
  if (absl::StartsWith(address, "grpc://")) address = address.substr(7);
  tw::HealthOptions options;
  ApplySecurityFlags(&options.security);
  options.wait_seconds = absl::GetFlag(FLAGS_wait_seconds);
  options.timeout_ms = static_cast<int>(std::min<int64_t>(absl::GetFlag(FLAGS_timeout_ms).value, 3600 * 1000));
  if (!(options.wait_seconds >= 0 && options.wait_seconds <= 86400)) {  // NaN too
    std::cerr << "tw health: --wait_seconds must be from 0 to 86400\n";
    return 2;
  }
  auto report = tw::CheckHealth(address, options);
  if (!report.ok()) {
    std::cerr << "tw health: " << absl::StatusCodeToString(report.status().code()) << ": " << report.status().message()
              << "\n";
    return absl::IsInvalidArgument(report.status()) ? 2 : 1;
  }
  std::cout << "tw health: " << address << " is serving (" << absl::StrJoin(report->devices, ", ")
            << "; incarnation " << report->incarnation << ", " << report->active_steps << " active steps)" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "help") {
    std::cout << kOverview;
    if (argc >= 2) {
      for (const char* command : {"run", "server", "cluster", "health", "ops"}) std::cout << "\n" << CommandUsage(command);
    }
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "freeze") return tw::cli::FreezeMain(argc - 2, argv + 2);
  if (command == "show") return tw::cli::ShowMain(argc - 2, argv + 2);
  if (command == "convert") return tw::cli::ConvertMain(argc - 2, argv + 2);
  if (command == "board") return tw::cli::BoardMain(argc - 2, argv + 2);
  if (command != "run" && command != "server" && command != "cluster" && command != "ops" && command != "health") {
    std::cerr << "tw: unknown command '" << command << "'\n" << kOverview;
    return 2;
  }
  if (tw::cli::WantsHelp(argc - 2, argv + 2)) {
    std::cout << CommandUsage(command);
    return 0;
  }
  if (command == "ops") {
    if (tw::Status parsed = tw::cli::ParseFlags(OpsBindings(), argc - 2, argv + 2); !parsed.ok()) {
      std::cerr << "tw ops: " << parsed.message() << "\n" << CommandUsage(command);
      return 2;
    }
    const bool with_gradients = absl::GetFlag(FLAGS_gradients);
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
  if (command == "health") return HealthMain(argc - 2, argv + 2);
  if (command == "server" || command == "cluster") {
    tw::Status status = command == "server" ? RunServer(argc - 2, argv + 2) : RunCluster(argc - 2, argv + 2);
    if (!status.ok()) {
      std::cerr << "tw " << command << ": " << status.message() << "\n";
      return absl::IsInvalidArgument(status) ? 2 : 1;
    }
    return 0;
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
