// The Python end of PyFunc, PyFuncStateless and EagerPyFunc: installs the kernels' callback
// (kernels/script_callback.h), which takes the GIL, hands the inputs to the dispatcher that
// tensorweave.script_ops registers (the token's function, its results converted as
// TensorFlow's script_ops does) and turns a raised exception into the step's error with
// TensorFlow's codes and "Type: message\nTraceback ..." text.
#include <string>

#include "bindings.h"
#include "kernels/script_callback.h"

namespace tw::python {
namespace {

// The tensorweave.script_ops dispatcher; set once at import, never freed (it must outlive
// every kernel call, including those of sessions closed at interpreter exit).
py::object* dispatcher = nullptr;

// TensorFlow's mapping of a function's exception to a status code (py_func.cc).
absl::StatusCode CodeOf(const py::error_already_set& e) {
  if (e.matches(PyExc_ValueError) || e.matches(PyExc_TypeError)) return absl::StatusCode::kInvalidArgument;
  if (e.matches(PyExc_StopIteration)) return absl::StatusCode::kOutOfRange;
  if (e.matches(PyExc_MemoryError)) return absl::StatusCode::kResourceExhausted;
  if (e.matches(PyExc_NotImplementedError)) return absl::StatusCode::kUnimplemented;
  // A tf.errors.OpError raised by the function keeps its code.
  if (py::hasattr(e.value(), "error_code")) {
    try {
      return static_cast<absl::StatusCode>(e.value().attr("error_code").cast<int>());
    } catch (const py::error_already_set&) {
    }
  }
  return absl::StatusCode::kUnknown;
}

std::string Describe(const py::error_already_set& e) {
  std::string text = absl::StrCat(py::str(e.type().attr("__name__")).cast<std::string>(), ": ",
                                  py::str(e.value()).cast<std::string>(), "\n");
  try {
    py::list lines = py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace());
    for (py::handle line : lines) absl::StrAppend(&text, line.cast<std::string>());
  } catch (const py::error_already_set&) {
  }
  return text;
}

absl::Status CallPython(ScriptCall& call) {
  py::gil_scoped_acquire gil;
  if (dispatcher == nullptr) return absl::InternalError("tensorweave.script_ops has not registered its dispatcher");
  try {
    py::list args;
    for (Tensor& t : call.inputs) args.append(ArrayFromTensor(std::move(t)));
    py::list out_types;
    for (DType t : call.out_types) out_types.append(static_cast<int>(t));
    py::list results = (*dispatcher)(call.token, call.eager, args, out_types);
    for (py::handle r : results) call.outputs.push_back(TensorFromArray(py::reinterpret_borrow<py::array>(r)));
  } catch (py::error_already_set& e) {
    return absl::Status(CodeOf(e), Describe(e));
  } catch (const StatusError& e) {
    return e.status();
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(e.what());
  }
  return absl::OkStatus();
}

}  // namespace

void BindPyFunc(py::module_& m) {
  m.def("_set_py_func_dispatcher", [](py::object fn) {
    if (dispatcher == nullptr) dispatcher = new py::object();
    *dispatcher = std::move(fn);
    SetScriptCallback(CallPython);
  });
}

}  // namespace tw::python
