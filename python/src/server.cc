// ClusterSpec and Server (one task of a cluster); blocking calls release the GIL.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "distributed/rpc/wire_bytes.h"
#include "tensorweave/cluster_spec.h"
#include "tensorweave/server.h"

namespace tw::python {

void BindServer(py::module_& m) {
  py::class_<ClusterSpec>(m, "ClusterSpec")
      .def_static("from_jobs", [](const std::map<std::string, std::vector<std::string>>& jobs) {
        return ValueOrThrow(ClusterSpec::FromJobs(jobs));
      })
      .def_static("from_sparse_jobs", [](const std::map<std::string, std::map<int, std::string>>& jobs) {
        return ValueOrThrow(ClusterSpec::FromSparseJobs(jobs));
      })
      .def_static("parse", [](const std::string& flag) { return ValueOrThrow(ClusterSpec::Parse(flag)); })
      // (cluster, job, task) from a TF_CONFIG JSON string.
      .def_static("from_tf_config", [](const std::string& json) {
        ClusterSpec::TfConfig config = ValueOrThrow(ClusterSpec::FromTfConfigJson(json));
        return py::make_tuple(config.cluster, config.job, config.task);
      })
      .def_property_readonly("jobs", &ClusterSpec::jobs)
      .def("task_indices", &ClusterSpec::task_indices)
      .def("num_tasks", &ClusterSpec::num_tasks)
      .def("address", [](const ClusterSpec& c, const std::string& job, int task) {
        return ValueOrThrow(c.address(job, task));
      })
      .def_property_readonly("job_tasks", &ClusterSpec::job_tasks)
      .def("to_string", &ClusterSpec::ToString)
      .def("__eq__", &ClusterSpec::operator==);

  py::class_<ResourceLimits>(m, "ResourceLimits")
      .def(py::init<>())
      .def_readwrite("max_tensor_bytes", &ResourceLimits::max_tensor_bytes)
      .def_readwrite("max_graph_nodes", &ResourceLimits::max_graph_nodes)
      .def_readwrite("max_graph_bytes", &ResourceLimits::max_graph_bytes)
      .def_readwrite("max_concurrent_steps", &ResourceLimits::max_concurrent_steps);

  py::class_<Server>(m, "Server")
      .def_static("create",
                  [](const ClusterSpec& cluster, const std::string& job, int task, int64_t rpc_timeout_ms,
                     const TransportSecurity& security, bool insecure_allow_remote, const ResourceLimits& limits,
                     const std::string& file_access_root) {
                    ServerOptions options;
                    options.file_access_root = file_access_root;
                    if (rpc_timeout_ms > 0) options.rpc_timeout_ms = rpc_timeout_ms;
                    options.security = security;
                    options.insecure_allow_remote = insecure_allow_remote;
                    options.limits = limits;
                    return ValueOrThrow(Server::Create(cluster, job, task, options));
                  },
                  py::arg("cluster"), py::arg("job"), py::arg("task"), py::arg("rpc_timeout_ms") = 0,
                  py::arg("security") = TransportSecurity(), py::arg("insecure_allow_remote") = false,
                  py::arg("limits") = ResourceLimits(), py::arg("file_access_root") = "")
      .def_static("create_local",
                  [](const TransportSecurity& security, const ResourceLimits& limits) {
                    ServerOptions options;
                    options.security = security;
                    options.limits = limits;
                    return ValueOrThrow(Server::CreateLocal(options));
                  },
                  py::arg("security") = TransportSecurity(), py::arg("limits") = ResourceLimits())
      .def("start", [](Server& s) { ThrowIfError(s.Start()); }, py::call_guard<py::gil_scoped_release>())
      // Ctrl-C (KeyboardInterrupt) stops the server and is raised once the join returned.
      .def("join", [](Server& s) { CallInterruptibly([&] { s.Join(); }, [&] { s.Stop(); }); })
      .def("stop", &Server::Stop, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("target", &Server::target);

  // This process's step payload bytes on the wire so far (distributed/rpc/wire_bytes.h).
  m.def("wire_byte_counts", [] {
    const WireByteCounts c = ReadWireByteCounts();
    py::dict counts;
    counts["tensor_bytes_sent"] = c.tensor_bytes_sent;
    counts["tensor_bytes_received"] = c.tensor_bytes_received;
    counts["run_graph_bytes_sent"] = c.run_graph_bytes_sent;
    counts["run_graph_bytes_received"] = c.run_graph_bytes_received;
    return counts;
  });

  // (cluster, [servers]): in-process servers on free loopback ports, for one job of `tasks`
  // tasks or for jobs {name: tasks} (servers in job name order, tasks ascending).
  auto to_python = [](InProcessCluster cluster) {
    py::list servers;
    for (auto& server : cluster.servers) servers.append(py::cast(std::move(server)));
    return py::make_tuple(cluster.spec, servers);
  };
  m.def("start_in_process_cluster", [to_python](const std::string& job, int tasks) {
    return to_python(ValueOrThrow(StartInProcessCluster(job, tasks)));
  });
  m.def("start_in_process_jobs", [to_python](const std::map<std::string, int>& jobs) {
    return to_python(ValueOrThrow(StartInProcessCluster(jobs)));
  });
}

}  // namespace tw::python
