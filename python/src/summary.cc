// Event files for tf.summary.FileWriter: the C++ EventsWriter (src/summary/), whose
// background thread flushes every flush_secs. Events cross as serialized bytes.
#include <memory>
#include <string>

#include "bindings.h"
#include "summary/events_writer.h"

namespace tw::python {

void BindSummary(py::module_& m) {
  py::class_<summary::EventsWriter>(m, "EventsWriter")
      .def(py::init([](const std::string& logdir, const std::string& suffix, int max_queue, double flush_secs) {
             summary::EventsWriter::Options options;
             options.filename_suffix = suffix;
             options.max_queue = max_queue;
             options.flush_secs = flush_secs;
             return ValueOrThrow(summary::EventsWriter::Create(logdir, options));
           }),
           py::arg("logdir"), py::arg("filename_suffix") = "", py::arg("max_queue") = 10,
           py::arg("flush_secs") = 120.0)
      .def("write_event",
           [](summary::EventsWriter& w, const py::bytes& event) { ThrowIfError(w.WriteEvent(std::string(event))); })
      .def("flush", [](summary::EventsWriter& w) {
        absl::Status s;
        {
          py::gil_scoped_release release;  // The flush thread may hold the lock while writing.
          s = w.Flush();
        }
        ThrowIfError(s);
      })
      .def("close", [](summary::EventsWriter& w) {
        absl::Status s;
        {
          py::gil_scoped_release release;  // Joins the flush thread.
          s = w.Close();
        }
        ThrowIfError(s);
      })
      .def_property_readonly("path", &summary::EventsWriter::path);
}

}  // namespace tw::python
