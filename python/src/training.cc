// The distributed-training API: replica_device_setter, SyncReplicasOptimizer and its chief
// runner, MonitoredTrainingSession with the standard hooks, and hooks written in Python.
// The logic stays in C++; this converts arguments and calls Python hooks with the GIL.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "graph/attr_value.h"
#include "tensorweave/basic_session_run_hooks.h"
#include "tensorweave/device_setter.h"
#include "tensorweave/monitored_session.h"
#include "tensorweave/session.h"
#include "tensorweave/sync_replicas.h"
#include "tensorweave/variables.h"

namespace tw::python {

namespace {

// A device function made in C++ (replica_device_setter), applied without calling Python.
struct NativeDeviceFunction {
  DeviceFunction fn;
};

// A hook written in Python. `adapter` (tensorweave.monitored_session._HookAdapter) turns
// the Python hook's nested fetches into lists of Output / Operation and back.
class PythonHook : public SessionRunHook {
 public:
  explicit PythonHook(py::object adapter) : adapter_(std::move(adapter)) {}
  ~PythonHook() override {
    py::gil_scoped_acquire gil;
    adapter_ = py::object();
  }
  void begin(Graph&) override {
    py::gil_scoped_acquire gil;
    adapter_.attr("_begin")();
  }
  void after_create_session(Session& session) override {
    py::gil_scoped_acquire gil;
    adapter_.attr("_after_create_session")(py::cast(&session, py::return_value_policy::reference));
  }
  SessionRunArgs before_run(SessionRunContext& context) override {
    py::gil_scoped_acquire gil;
    py::tuple wanted = adapter_.attr("_before_run")(py::cast(&context, py::return_value_policy::reference));
    return SessionRunArgs{wanted[0].cast<std::vector<Output>>(), wanted[1].cast<std::vector<Operation>>()};
  }
  void after_run(SessionRunContext& context, const SessionRunValues& values) override {
    py::gil_scoped_acquire gil;
    py::list results;
    for (const Tensor& t : values.results) results.append(ArrayFromTensor(t));
    adapter_.attr("_after_run")(py::cast(&context, py::return_value_policy::reference), results);
  }
  void end(Session& session) override {
    py::gil_scoped_acquire gil;
    adapter_.attr("_end")(py::cast(&session, py::return_value_policy::reference));
  }

 private:
  py::object adapter_;
};

using HookPtr = std::shared_ptr<SessionRunHook>;

void BindDeviceSetter(py::module_& m) {
  py::class_<NativeDeviceFunction>(m, "NativeDeviceFunction")
      .def("__call__", [](const NativeDeviceFunction& f, const std::string& type, const std::string& name,
                          const std::string& device) {
        const std::map<std::string, AttrValue> no_attrs;
        return f.fn(DeviceFunctionInput{type, name, device, no_attrs});
      });
  m.def("device_function_scope",
        [](Graph& g, const NativeDeviceFunction& f) { return Open(g.device(f.fn)); });
  // ps_strategy: None (round-robin) or a Python callable of the op (.type, .name, .device)
  // returning a ps task index.
  m.def("replica_device_setter",
        [](int ps_tasks, const std::optional<ClusterSpec>& cluster, const std::string& worker_device,
           const std::string& ps_device, const std::vector<std::string>& ps_ops, const py::object& ps_strategy) {
          PsStrategy strategy;
          if (!ps_strategy.is_none()) {
            strategy = [ps_strategy](const DeviceFunctionInput& op) {
              py::gil_scoped_acquire gil;  // Ops are added from Python: the GIL is held anyway.
              return ps_strategy(op.op_type, op.name, op.device).cast<int>();
            };
          }
          return NativeDeviceFunction{
              cluster ? replica_device_setter(*cluster, worker_device, ps_device, ps_ops, strategy)
                      : replica_device_setter(ps_tasks, worker_device, ps_device, ps_ops, strategy)};
        });
}

void BindSyncReplicas(py::module_& m) {
  py::class_<SyncReplicasOptimizer>(m, "SyncReplicasOptimizer")
      .def(py::init<Optimizer&, int, int, const std::string&>(), py::arg("opt"), py::arg("replicas_to_aggregate"),
           py::arg("total_num_replicas"), py::arg("name"), py::keep_alive<1, 2>())
      // send(local_step), apply(), init(global_step): Python callables returning lists of
      // core Operations, for the gradients Python aggregates itself (IndexedSlices).
      .def("apply_gradients",
           [](SyncReplicasOptimizer& opt, const std::vector<std::pair<std::optional<Output>, Variable>>& gv,
              const Variable& global_step, const py::object& send, const py::object& apply,
              const py::object& init) {
             GradsAndVars pairs;
             for (const auto& [grad, var] : gv) pairs.emplace_back(grad.value_or(Output()), var);
             SyncReplicasOptimizer::CallerGradients caller;
             if (!send.is_none()) {
               caller.send = [send](const Output& step) { return send(step).cast<std::vector<Operation>>(); };
               caller.apply = [apply] { return apply().cast<std::vector<Operation>>(); };
               caller.init = [init](const Output& step) { return init(step).cast<std::vector<Operation>>(); };
             }
             return opt.apply_gradients(pairs, global_step, caller);
           },
           py::arg("grads_and_vars"), py::arg("global_step"), py::arg("send") = py::none(),
           py::arg("apply") = py::none(), py::arg("init") = py::none())
      .def("chief_sync_op", &SyncReplicasOptimizer::chief_sync_op)
      .def("chief_init_op", &SyncReplicasOptimizer::chief_init_op)
      .def("local_step_init_op", &SyncReplicasOptimizer::local_step_init_op)
      .def("get_init_tokens_op", &SyncReplicasOptimizer::get_init_tokens_op)
      .def("close_token_queue_op", &SyncReplicasOptimizer::close_token_queue_op)
      .def("local_step", &SyncReplicasOptimizer::local_step)
      .def_property_readonly("replicas_to_aggregate", &SyncReplicasOptimizer::replicas_to_aggregate)
      .def_property_readonly("total_num_replicas", &SyncReplicasOptimizer::total_num_replicas);

  py::class_<SyncReplicasChiefRunner>(m, "SyncReplicasChiefRunner")
      .def(py::init<Graph&, const std::string&, const SyncReplicasOptimizer&>(), py::keep_alive<1, 2>(),
           py::keep_alive<1, 4>(), py::call_guard<py::gil_scoped_release>())
      .def("start", &SyncReplicasChiefRunner::Start)
      .def("stop", [](SyncReplicasChiefRunner& r) { ThrowIfError(r.Stop()); },
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("steps", &SyncReplicasChiefRunner::steps);
  m.def("local_variables_initializer", &local_variables_initializer, py::arg("graph"),
        py::arg("name") = "init_local");
}

void BindHooks(py::module_& m) {
  py::class_<SessionRunHook, HookPtr>(m, "SessionRunHook");
  py::class_<PythonHook, SessionRunHook, std::shared_ptr<PythonHook>>(m, "PythonHook").def(py::init<py::object>());
  py::class_<StopAtStepHook, SessionRunHook, std::shared_ptr<StopAtStepHook>>(m, "StopAtStepHook")
      .def_static("num_steps", [](int64_t n) { return std::make_shared<StopAtStepHook>(StopAtStepHook::NumSteps(n)); })
      .def_static("last_step", [](int64_t n) { return std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(n)); })
      .def_property_readonly("last_step_value", &StopAtStepHook::last_step);
  py::class_<CheckpointSaverHook, SessionRunHook, std::shared_ptr<CheckpointSaverHook>>(m, "CheckpointSaverHook")
      .def(py::init<std::string, int64_t, double, int>());
  py::class_<LoggingTensorHook, SessionRunHook, std::shared_ptr<LoggingTensorHook>>(m, "LoggingTensorHook")
      .def(py::init([](std::vector<std::pair<std::string, Output>> tensors, int64_t every_n_iter) {
        return std::make_shared<LoggingTensorHook>(std::move(tensors), every_n_iter);
      }));
  py::class_<StepCounterHook, SessionRunHook, std::shared_ptr<StepCounterHook>>(m, "StepCounterHook")
      .def(py::init([](int64_t every_n_steps, int64_t batch_size) {
        return std::make_shared<StepCounterHook>(every_n_steps, batch_size);
      }));

  py::class_<SessionRunContext>(m, "SessionRunContext")
      .def_property_readonly("session", &SessionRunContext::session, py::return_value_policy::reference)
      .def("request_stop", &SessionRunContext::request_stop)
      .def_property_readonly("stop_requested", &SessionRunContext::stop_requested);
}

void BindMonitoredSession(py::module_& m) {
  py::class_<MonitoredTrainingSession>(m, "MonitoredTrainingSession")
      .def(py::init([](Graph& g, const std::string& master, bool is_chief, const std::string& checkpoint_dir,
                       int64_t save_checkpoint_steps, double save_checkpoint_secs, int64_t log_step_count_steps,
                       std::vector<HookPtr> hooks, std::vector<HookPtr> chief_only_hooks,
                       const SessionConfig& config, double max_wait_secs, std::vector<Saver::Saveable> saveables) {
             MonitoredTrainingSessionOptions o;
             o.master = master;
             o.is_chief = is_chief;
             o.checkpoint_dir = checkpoint_dir;
             o.save_checkpoint_steps = save_checkpoint_steps;
             o.save_checkpoint_secs = save_checkpoint_secs;
             o.log_step_count_steps = log_step_count_steps;
             o.hooks = std::move(hooks);
             o.chief_only_hooks = std::move(chief_only_hooks);
             o.config = config;
             o.max_wait_secs = max_wait_secs;
             o.saveables = std::move(saveables);
             py::gil_scoped_release no_gil;  // A non-chief waits for the chief; hooks take the GIL.
             return std::make_unique<MonitoredTrainingSession>(g, std::move(o));
           }),
           py::keep_alive<1, 2>())
      .def("run",
           [](MonitoredTrainingSession& s, const std::vector<std::pair<Output, py::array>>& feeds,
              const std::vector<Output>& fetches, const std::vector<Operation>& targets) {
             FeedDict feed_tensors;
             for (const auto& [output, array] : feeds) feed_tensors.emplace_back(output, TensorFromArray(array));
             std::vector<Tensor> outputs;
             RunCancellation cancellation;  // Ctrl-C cancels the step, then raises KeyboardInterrupt.
             CallInterruptibly(
                 [&] {
                   outputs = s.run(fetches, feed_tensors, targets, &cancellation);
                   feed_tensors.clear();  // See session.cc: the fetches then own their buffers.
                 },
                 [&] { cancellation.Cancel(); });
             py::list results;
             for (Tensor& t : outputs) results.append(ArrayFromTensor(std::move(t)));
             return results;
           })
      .def("run_without_hooks",
           [](MonitoredTrainingSession& s, const std::vector<std::pair<Output, py::array>>& feeds,
              const std::vector<Output>& fetches, const std::vector<Operation>& targets) {
             FeedDict feed_tensors;
             for (const auto& [output, array] : feeds) feed_tensors.emplace_back(output, TensorFromArray(array));
             std::vector<Tensor> outputs;
             {
               py::gil_scoped_release no_gil;  // Queue runners' threads block here (a full queue).
               outputs = s.run_without_hooks(fetches, feed_tensors, targets);
               feed_tensors.clear();
             }
             py::list results;
             for (Tensor& t : outputs) results.append(ArrayFromTensor(std::move(t)));
             return results;
           })
      .def("should_stop", &MonitoredTrainingSession::should_stop)
      .def("close", &MonitoredTrainingSession::close, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("recoveries", &MonitoredTrainingSession::recoveries);
}

}  // namespace

void BindTraining(py::module_& m) {
  BindDeviceSetter(m);
  BindSyncReplicas(m);
  BindHooks(m);
  BindMonitoredSession(m);
}

}  // namespace tw::python
