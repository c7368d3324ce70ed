#include "runtime/function_runtime.h"

#include "absl/strings/str_cat.h"
#include "graph/function_body.h"
#include "graph/graph_def_import.h"

namespace tw {

LocalFunctionRuntime::LocalFunctionRuntime(Device* device, int64_t max_tensor_bytes)
    : device_(device), max_tensor_bytes_(max_tensor_bytes) {}

LocalFunctionRuntime::~LocalFunctionRuntime() = default;

absl::Status LocalFunctionRuntime::AddLibrary(const FunctionDefLibrary& library) {
  absl::MutexLock lock(&mu_);
  for (const FunctionDef& fn : library.function()) functions_.emplace(fn.signature().name(), fn);
  return absl::OkStatus();
}

absl::StatusOr<FunctionLibraryRuntime::Handle> LocalFunctionRuntime::Instantiate(const std::string& name) {
  FunctionDef fn;
  {
    absl::MutexLock lock(&mu_);
    auto cached = handles_.find(name);
    if (cached != handles_.end()) return cached->second;
    auto it = functions_.find(name);
    if (it == functions_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("function '", name, "' is not in the graph's function library"));
    }
    fn = it->second;
  }
  // Built without the lock: building the body's kernels instantiates the functions they
  // call (a dataset_factory's map function).
  TW_ASSIGN_OR_RETURN(GraphDef body, FunctionBodyGraphDef(fn, OpRegistry::Global()));
  FlowGraph graph;
  if (absl::Status s = ImportGraphDef(body, &graph, {}, GraphSource::kPartitioner); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("function '", name, "': ", s.message()));
  }
  for (Node* n : graph.nodes()) n->set_assigned_device(device_->name());
  ExecutorOptions options;
  options.device = device_;
  options.max_tensor_bytes = max_tensor_bytes_;
  options.function_library = this;
  auto executor = Executor::Create(graph, std::move(options));
  if (!executor.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("function '", name, "': ", executor.status().message()));
  }
  auto instance = std::make_unique<Instance>();
  instance->name = name;
  for (const FunctionArg& a : fn.signature().input_arg()) instance->input_types.push_back(static_cast<DType>(a.type()));
  for (const FunctionArg& a : fn.signature().output_arg()) instance->output_types.push_back(static_cast<DType>(a.type()));
  instance->executor = *std::move(executor);
  absl::MutexLock lock(&mu_);
  if (auto raced = handles_.find(name); raced != handles_.end()) return raced->second;
  const Handle h = static_cast<Handle>(instances_.size());
  instances_.push_back(std::move(instance));
  handles_[name] = h;
  return h;
}

const LocalFunctionRuntime::Instance& LocalFunctionRuntime::Get(Handle h) const {
  absl::MutexLock lock(&mu_);
  return *instances_.at(h);
}

const std::vector<DType>& LocalFunctionRuntime::InputTypes(Handle h) const { return Get(h).input_types; }
const std::vector<DType>& LocalFunctionRuntime::OutputTypes(Handle h) const { return Get(h).output_types; }
const std::string& LocalFunctionRuntime::Name(Handle h) const { return Get(h).name; }

void LocalFunctionRuntime::Run(Handle h, std::vector<Tensor> args, std::vector<Tensor>* rets,
                               CancellationManager* cancellation, std::function<void(absl::Status)> done) {
  const Instance& instance = Get(h);
  if (args.size() != instance.input_types.size()) {
    done(absl::InvalidArgumentError(absl::StrCat("function '", instance.name, "' takes ", instance.input_types.size(),
                                                 " arguments, got ", args.size())));
    return;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].dtype() != instance.input_types[i]) {
      done(absl::InvalidArgumentError(absl::StrCat("argument ", i, " of function '", instance.name, "' is ",
                                                   DTypeName(args[i].dtype()), ", expected ",
                                                   DTypeName(instance.input_types[i]))));
      return;
    }
  }
  auto frame = std::make_shared<CallFrame>();
  frame->args = std::move(args);
  frame->rets.resize(instance.output_types.size());
  Executor::Args run_args;
  run_args.step_id = next_step_id_.fetch_add(1);
  run_args.call_frame = frame.get();
  run_args.cancellation = cancellation;
  instance.executor->RunAsync(run_args, [frame, rets, done = std::move(done)](absl::Status s) {
    if (s.ok()) *rets = std::move(frame->rets);
    done(std::move(s));
  });
}

}  // namespace tw
