// Gradient functions written in Python (tf.RegisterGradient, tf.NotDifferentiable,
// tf.custom_gradient), kept in the C++ gradient registry so the one gradient pass finds them.
// A Python function is called with the forward Operation and one gradient per output (None
// where none flowed) and returns one per input (None for none); it runs with the GIL held.
#include <string>
#include <vector>

#include "autodiff/gradient_registry.h"
#include "bindings.h"
#include "graph/graph.h"
#include "tensorweave/status.h"

namespace tw::python {
namespace {

std::vector<Output> CallPythonGradient(const py::function& fn, const std::string& name, const GradContext& ctx) {
  py::gil_scoped_acquire gil;
  py::list grads;
  for (const Output& g : ctx.grad_outputs) grads.append(OutputOrNone(g));
  py::object result = fn(ctx.op, grads);
  std::vector<Output> out;
  py::list items = py::isinstance<py::list>(result) || py::isinstance<py::tuple>(result) ? py::list(result)
                                                                                          : py::list(py::make_tuple(result));
  for (py::handle item : items) out.push_back(item.is_none() ? Output() : item.cast<Output>());
  if (static_cast<int>(out.size()) != ctx.op.node()->num_inputs()) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat("gradient function '", name, "' for op ",
                                                              ctx.op.type(), " returned ", out.size(),
                                                              " gradients for ", ctx.op.node()->num_inputs(),
                                                              " inputs")));
  }
  return out;
}

}  // namespace

void BindGradientFunctions(py::module_& m) {
  m.def("register_gradient", [](const std::string& name, const py::function& fn) {
    GradientRegistry& registry = GradientRegistry::Mutable();
    if (registry.Has(name)) throw py::key_error("Registering two gradient with name '" + name + "'!");
    // The registry lives until the process ends, past the interpreter: the function is
    // kept alive on purpose so that nothing is released after Python is gone.
    auto* kept = new py::function(fn);
    registry.Register(name, [kept, name](const GradContext& ctx) { return CallPythonGradient(*kept, name, ctx); });
  });
  m.def("register_no_gradient", [](const std::string& name) {
    GradientRegistry& registry = GradientRegistry::Mutable();
    if (registry.Has(name)) throw py::key_error("Registering two gradient with name '" + name + "'!");
    registry.RegisterNoGradient(name);
  });
}

}  // namespace tw::python
