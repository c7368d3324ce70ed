// Variables, variable scopes and initializers, gradients, optimizers and the Saver: the
// logic stays in C++; this only converts arguments.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "tensorweave/gradients.h"
#include "tensorweave/optimizers.h"
#include "tensorweave/saver.h"
#include "tensorweave/variable_scope.h"
#include "tensorweave/variables.h"

namespace tw::python {

namespace {

// A hyperparameter from Python: a number or a scalar tensor.
Hyperparameter ToHyper(const py::object& v) {
  if (py::isinstance<Output>(v)) return Hyperparameter(v.cast<Output>());
  if (py::isinstance<py::float_>(v) || py::isinstance<py::int_>(v)) return Hyperparameter(v.cast<double>());
  throw py::type_error("a hyperparameter must be a number or a scalar tensor, not " +
                       py::repr(v).cast<std::string>());
}

Reuse ToReuse(const py::object& v) {
  if (v.is_none()) return Reuse::kFalse;
  if (py::isinstance<py::str>(v)) {
    if (v.cast<std::string>() == "auto") return Reuse::kAuto;
    throw py::value_error("reuse must be True, False, None or AUTO_REUSE");
  }
  return v.cast<bool>() ? Reuse::kTrue : Reuse::kFalse;
}

const char* ReuseName(Reuse r) {
  switch (r) {
    case Reuse::kTrue: return "true";
    case Reuse::kAuto: return "auto";
    default: return "false";
  }
}

// (gradient or None, variable) pairs as Python tuples and back.
py::list GradsToPython(const GradsAndVars& gv) {
  py::list out;
  for (const auto& [grad, var] : gv) out.append(py::make_tuple(OutputOrNone(grad), var));
  return out;
}
GradsAndVars GradsFromPython(const std::vector<std::pair<std::optional<Output>, Variable>>& gv) {
  GradsAndVars out;
  for (const auto& [grad, var] : gv) out.emplace_back(grad.value_or(Output()), var);
  return out;
}

void BindVariables(py::module_& m) {
  py::class_<Variable>(m, "Variable")
      .def(py::init<Graph&, const Output&, const std::string&, bool>(), py::arg("graph"),
           py::arg("initial_value"), py::arg("name") = "Variable", py::arg("trainable") = true)
      // TF's `collections=` (e.g. local_variables for a metric's accumulators).
      .def(py::init<Graph&, const Output&, const std::string&, bool, const std::vector<std::string>&>(),
           py::arg("graph"), py::arg("initial_value"), py::arg("name"), py::arg("trainable"), py::arg("collections"))
      .def_property_readonly("name", &Variable::name)
      .def_property_readonly("dtype", &Variable::dtype)
      .def_property_readonly("shape", [](const Variable& v) { return DimsFromShape(v.shape()); })
      .def_property_readonly("handle", &Variable::handle)
      .def("value", &Variable::value)
      .def_property_readonly("read", &Variable::read)
      .def_property_readonly("initializer", &Variable::initializer)
      .def_property_readonly("initial_value", &Variable::initial_value)
      .def("assign", &Variable::assign, py::arg("value"), py::arg("name") = "Assign")
      .def("assign_add", &Variable::assign_add, py::arg("delta"), py::arg("name") = "AssignAdd")
      .def("assign_sub", &Variable::assign_sub, py::arg("delta"), py::arg("name") = "AssignSub")
      .def("is_initialized", &Variable::is_initialized, py::arg("name") = "IsInitialized")
      .def_static("from_handle", &Variable::FromHandle);
  m.def("global_variables", &global_variables);
  m.def("trainable_variables", &trainable_variables);
  m.def("local_variables", &local_variables);
  m.def("variables_initializer", &variables_initializer, py::arg("graph"), py::arg("vars"),
        py::arg("name") = "init");
  m.def("global_variables_initializer", &global_variables_initializer, py::arg("graph"),
        py::arg("name") = "init");
  // var_list None: every global and local variable, as TensorFlow.
  m.def("report_uninitialized_variables",
        [](Graph& g, std::optional<std::vector<Variable>> vars, const std::string& name) {
          return vars ? report_uninitialized_variables(g, *vars, name) : report_uninitialized_variables(g, name);
        },
        py::arg("graph"), py::arg("vars"), py::arg("name"));
  m.def("assert_variables_initialized", [](Graph& g, std::optional<std::vector<Variable>> vars) {
    return OutputOrNone(vars ? assert_variables_initialized(g, *vars) : assert_variables_initialized(g));
  });
}

void BindVariableScopes(py::module_& m) {
  py::class_<Initializer>(m, "Initializer")
      .def("__call__", [](const Initializer& init, Graph& g, const std::vector<int64_t>& shape, DType dtype) {
        return init(g, ShapeFromDims(shape), dtype);
      });
  m.def("zeros_initializer", &zeros_initializer);
  m.def("ones_initializer", &ones_initializer);
  m.def("constant_initializer", py::overload_cast<double>(&constant_initializer));
  m.def("constant_initializer_values", py::overload_cast<std::vector<double>>(&constant_initializer));
  m.def("random_uniform_initializer", &random_uniform_initializer);
  m.def("random_normal_initializer", &random_normal_initializer);
  m.def("truncated_normal_initializer", &truncated_normal_initializer);
  m.def("glorot_uniform_initializer", &glorot_uniform_initializer);
  // An initializer that calls fn(shape, dtype) -> Output (a Python initializer or value).
  m.def("initializer_from_callable", [](py::function fn) -> Initializer {
    return [fn](Graph& g, const TensorShape& shape, DType dtype) {
      py::gil_scoped_acquire gil;
      std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
      return fn(dims, dtype).cast<Output>();
    };
  });

  m.def("variable_scope", [](Graph& g, const std::string& name, const py::object& reuse) {
    return Open(variable_scope(g, name, ToReuse(reuse)));
  });
  // (full name, reuse: "false" | "true" | "auto") of the current variable scope.
  m.def("get_variable_scope", [](const Graph& g) {
    VariableScopeInfo info = get_variable_scope(g);
    return std::make_pair(info.name, std::string(ReuseName(info.reuse)));
  });
  m.def("reuse_variables", &reuse_variables);
  m.def("get_variable",
        [](Graph& g, const std::string& name, const std::vector<int64_t>& shape, DType dtype,
           const std::optional<Initializer>& initializer, bool trainable) {
          return get_variable(g, name, ShapeFromDims(shape), dtype, initializer.value_or(nullptr), trainable);
        },
        py::arg("graph"), py::arg("name"), py::arg("shape"), py::arg("dtype"), py::arg("initializer"),
        py::arg("trainable"));
}

void BindGradients(py::module_& m) {
  m.def(
      "gradients",
      [](const std::vector<Output>& ys, const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
         const std::vector<Output>& stop_gradients) {
        py::list out;
        for (const Output& g : gradients(ys, xs, grad_ys, stop_gradients)) out.append(OutputOrNone(g));
        return out;
      },
      py::arg("ys"), py::arg("xs"), py::arg("grad_ys"), py::arg("stop_gradients") = std::vector<Output>{});
}

// Optimizer::CreateSlots is protected (the C++ API makes slots inside apply_gradients); the
// Python optimizers' sparse updates (train.py) need the slots before they build their own
// ResourceSparseApply* op. A using-declaration in a derived type names it publicly.
struct SlotMaker : Optimizer {
  using Optimizer::CreateSlots;
};

void BindOptimizers(py::module_& m) {
  m.def("get_or_create_global_step", &get_or_create_global_step);
  m.def("get_global_step", &get_global_step);

  py::class_<Optimizer>(m, "Optimizer")
      .def_property_readonly("name", &Optimizer::name)
      .def("compute_gradients",
           [](Optimizer& opt, const Output& loss, const std::vector<Variable>& var_list) {
             return GradsToPython(opt.compute_gradients(loss, var_list));
           })
      .def("apply_gradients",
           [](Optimizer& opt, const std::vector<std::pair<std::optional<Output>, Variable>>& gv,
              const std::optional<Variable>& global_step, const std::string& name) {
             return opt.apply_gradients(GradsFromPython(gv), global_step ? &*global_step : nullptr, name);
           })
      .def("minimize",
           [](Optimizer& opt, const Output& loss, const std::optional<Variable>& global_step,
              const std::vector<Variable>& var_list, const std::string& name) {
             return opt.minimize(loss, global_step ? &*global_step : nullptr, var_list, name);
           })
      .def("get_slot", &Optimizer::get_slot)
      .def("get_slot_names", &Optimizer::get_slot_names)
      .def("create_slots", [](Optimizer& opt, const std::vector<Variable>& vars) {
        if (vars.empty()) return;
        void (Optimizer::*create)(Graph&, const std::vector<Variable>&) = &SlotMaker::CreateSlots;
        (opt.*create)(*vars[0].handle().graph(), vars);
      });

  py::class_<GradientDescentOptimizer, Optimizer>(m, "GradientDescentOptimizer")
      .def(py::init([](const py::object& lr, bool use_locking, const std::string& name) {
        return std::make_unique<GradientDescentOptimizer>(ToHyper(lr), use_locking, name);
      }));
  py::class_<MomentumOptimizer, Optimizer>(m, "MomentumOptimizer")
      .def(py::init([](const py::object& lr, const py::object& momentum, bool use_nesterov, bool use_locking,
                       const std::string& name) {
        return std::make_unique<MomentumOptimizer>(ToHyper(lr), ToHyper(momentum), use_nesterov, use_locking,
                                                   name);
      }));
  py::class_<AdagradOptimizer, Optimizer>(m, "AdagradOptimizer")
      .def(py::init([](const py::object& lr, double initial_accumulator_value, bool use_locking,
                       const std::string& name) {
        return std::make_unique<AdagradOptimizer>(ToHyper(lr), initial_accumulator_value, use_locking, name);
      }));
  py::class_<RMSPropOptimizer, Optimizer>(m, "RMSPropOptimizer")
      .def(py::init([](const py::object& lr, const py::object& decay, const py::object& momentum,
                       const py::object& epsilon, bool use_locking, const std::string& name) {
        return std::make_unique<RMSPropOptimizer>(ToHyper(lr), ToHyper(decay), ToHyper(momentum),
                                                  ToHyper(epsilon), use_locking, name);
      }));
  py::class_<AdamOptimizer, Optimizer>(m, "AdamOptimizer")
      .def(py::init([](const py::object& lr, const py::object& beta1, const py::object& beta2,
                       const py::object& epsilon, bool use_locking, const std::string& name) {
        return std::make_unique<AdamOptimizer>(ToHyper(lr), ToHyper(beta1), ToHyper(beta2), ToHyper(epsilon),
                                               use_locking, name);
      }))
      .def("get_beta_accumulators", &AdamOptimizer::get_beta_accumulators);
}

void BindSaver(py::module_& m) {
  py::class_<Saver> saver(m, "Saver");
  py::class_<Saver::Saveable>(saver, "Saveable")
      .def(py::init([](const std::string& name, const Output& tensor, const Output& handle,
                       const std::string& restore_op) { return Saver::Saveable{name, tensor, handle, restore_op}; }),
           py::arg("name"), py::arg("tensor"), py::arg("handle"), py::arg("restore_op"))
      .def_readonly("name", &Saver::Saveable::name)
      .def_readonly("tensor", &Saver::Saveable::tensor)
      .def_readonly("handle", &Saver::Saveable::handle)
      .def_readonly("restore_op", &Saver::Saveable::restore_op);
  saver
      .def(py::init([](Graph& g, const std::optional<std::vector<Variable>>& var_list, int max_to_keep) {
             return var_list ? std::make_unique<Saver>(g, *var_list, max_to_keep)
                             : std::make_unique<Saver>(g, max_to_keep);
           }),
           py::keep_alive<1, 2>())
      .def(py::init([](Graph& g, const std::vector<std::pair<std::string, Variable>>& named, int max_to_keep,
                       const std::vector<std::string>& slice_specs) {
             return std::make_unique<Saver>(g, named, max_to_keep, slice_specs);
           }),
           py::arg("graph"), py::arg("named"), py::arg("max_to_keep"), py::arg("slice_specs") = std::vector<std::string>(),
           py::keep_alive<1, 2>())
      .def(py::init([](Graph& g, const std::vector<Variable>& var_list, const std::vector<Saver::Saveable>& saveables,
                       int max_to_keep) { return std::make_unique<Saver>(g, var_list, saveables, max_to_keep); }),
           py::arg("graph"), py::arg("var_list"), py::arg("saveables"), py::arg("max_to_keep"), py::keep_alive<1, 2>())
      .def("add_saveable", &Saver::add_saveable)
      .def("save", &Saver::save, py::call_guard<py::gil_scoped_release>())
      .def("restore", &Saver::restore, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("last_checkpoints", &Saver::last_checkpoints)
      .def_property_readonly("var_list", &Saver::var_list);
  m.def("latest_checkpoint", &latest_checkpoint);
}

}  // namespace

void BindTrain(py::module_& m) {
  BindVariables(m);
  BindVariableScopes(m);
  BindGradients(m);
  BindOptimizers(m);
  BindSaver(m);
}

}  // namespace tw::python
