// tw::StatusError -> the tf.errors.* class of its code (built by tensorweave.errors, so the
// classes are ordinary Python exceptions carrying message, node name and error_code).
#include "bindings.h"

namespace tw::python {

void BindErrors(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const StatusError& e) {
      py::object errors = py::module_::import("tensorweave.errors");
      py::object error = errors.attr("_from_status")(static_cast<int>(e.code()),
                                                     std::string(e.status().message()));
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    }
  });
  // For tests of the mapping: raises the error a C++ call failing with (code, message) raises.
  m.def("_raise_status", [](int code, const std::string& message) {
    throw StatusError(Status(static_cast<absl::StatusCode>(code), message));
  });
}

}  // namespace tw::python
