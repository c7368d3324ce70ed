// Session: runs with the GIL released (Ctrl-C cancels the step), feeds and fetches as
// NumPy arrays.
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "absl/strings/str_cat.h"
#include "runtime/chrome_trace.h"
#include "tensorweave/proto/config.pb.h"
#include "tensorweave/session.h"

namespace tw::python {

namespace {

// Runs one step. Feeds arrive as (tensor name, array of the tensor's dtype) pairs.
// `metadata` (may be null) receives the run's RunMetadata.
py::list Run(Session& sess, const std::vector<std::pair<std::string, py::array>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets, int64_t timeout_ms,
             RunMetadata* metadata = nullptr, int trace_level = 0) {
  std::vector<std::pair<std::string, Tensor>> feed_tensors;
  feed_tensors.reserve(feeds.size());
  for (const auto& [name, array] : feeds) feed_tensors.emplace_back(name, TensorFromArray(array));
  std::vector<Tensor> outputs;
  Status status;
  RunCancellation cancellation;  // Ctrl-C cancels the step, then raises KeyboardInterrupt.
  CallInterruptibly(
      [&] {
        RunOptions options;
        options.set_timeout_in_ms(timeout_ms);
        options.set_trace_level(static_cast<RunOptions::TraceLevel>(trace_level));
        status = sess.Run(options, feed_tensors, fetches, targets, &outputs, metadata, &cancellation);
        // While the step ran, each feed held a reference of its own, so no kernel wrote
        // into a wrapped NumPy array; dropping them now lets the fetches own their buffers.
        feed_tensors.clear();
      },
      [&] { cancellation.Cancel(); });
  ThrowIfError(status);
  py::list results;
  for (Tensor& t : outputs) results.append(ArrayFromTensor(std::move(t)));
  return results;
}

}  // namespace

void BindSession(py::module_& m) {
  // TLS files and the cluster token (tensorweave/security.h): what a server demands and
  // a grpc:// session presents.
  py::class_<TransportSecurity>(m, "TransportSecurity")
      .def(py::init<>())
      .def_readwrite("tls_cert_file", &TransportSecurity::tls_cert_file)
      .def_readwrite("tls_key_file", &TransportSecurity::tls_key_file)
      .def_readwrite("tls_ca_file", &TransportSecurity::tls_ca_file)
      .def_readwrite("cluster_token_file", &TransportSecurity::cluster_token_file)
      .def_readwrite("cluster_token", &TransportSecurity::cluster_token);

  py::class_<SessionConfig>(m, "SessionConfig")
      .def(py::init<>())
      .def_readwrite("log_device_placement", &SessionConfig::log_device_placement)
      .def_readwrite("allow_soft_placement", &SessionConfig::allow_soft_placement)
      .def_readwrite("inter_op_threads", &SessionConfig::inter_op_threads)
      .def_readwrite("intra_op_threads", &SessionConfig::intra_op_threads)
      .def_readwrite("cpu_device_count", &SessionConfig::cpu_device_count)
      .def_readwrite("security", &SessionConfig::security)
      .def_readwrite("max_tensor_bytes", &SessionConfig::max_tensor_bytes)
      .def_readwrite("device_filters", &SessionConfig::device_filters)
      .def_readwrite("operation_timeout_ms", &SessionConfig::operation_timeout_ms);

  py::class_<Session>(m, "Session")
      .def(py::init([](Graph& g, const std::string& target, const SessionConfig& config) {
             py::gil_scoped_release no_gil;  // Connecting to a cluster may wait.
             return std::make_unique<Session>(g, target, config);
           }),
           py::arg("graph"), py::arg("target") = "", py::arg("config") = SessionConfig(),
           py::keep_alive<1, 2>())
      .def("run", [](Session& sess, const std::vector<std::pair<std::string, py::array>>& feeds,
                     const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                     int64_t timeout_ms) { return Run(sess, feeds, fetches, targets, timeout_ms); },
           py::arg("feeds"), py::arg("fetches"), py::arg("targets"), py::arg("timeout_ms") = 0)
      // (values, the serialized RunMetadata): tf.Session.run's run_metadata.
      .def("run_with_metadata",
           [](Session& sess, const std::vector<std::pair<std::string, py::array>>& feeds,
              const std::vector<std::string>& fetches, const std::vector<std::string>& targets, int64_t timeout_ms,
              int trace_level) {
             if (!RunOptions::TraceLevel_IsValid(trace_level)) {
               ThrowIfError(absl::InvalidArgumentError(
                   absl::StrCat("RunOptions.trace_level ", trace_level, " is not a TraceLevel (0..3)")));
             }
             RunMetadata metadata;
             py::list values = Run(sess, feeds, fetches, targets, timeout_ms, &metadata, trace_level);
             return py::make_tuple(values, py::bytes(metadata.SerializeAsString()));
           },
           py::arg("feeds"), py::arg("fetches"), py::arg("targets"), py::arg("timeout_ms") = 0,
           py::arg("trace_level") = 0)
      .def("list_devices", &Session::list_devices)
      .def("close", &Session::close, py::call_guard<py::gil_scoped_release>());
  // TF's timeline.Timeline(step_stats).generate_chrome_trace_format (runtime/chrome_trace.h).
  m.def("chrome_trace",
        [](const py::bytes& step_stats, bool show_dataflow, bool show_memory) {
          StepStats stats;
          if (!stats.ParseFromString(std::string(step_stats))) {
            ThrowIfError(absl::InvalidArgumentError("step_stats: not a serialized StepStats"));
          }
          return ChromeTraceJson(stats, show_dataflow, show_memory);
        },
        py::arg("step_stats"), py::arg("show_dataflow") = true, py::arg("show_memory") = false);
}

}  // namespace tw::python
