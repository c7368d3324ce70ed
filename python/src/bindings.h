// Shared declarations of the tensorweave._core extension: one Bind* function per area
// of the C++ client API, and the NumPy and error conversions they share.
#ifndef TENSORWEAVE_PYTHON_SRC_BINDINGS_H_
#define TENSORWEAVE_PYTHON_SRC_BINDINGS_H_

#include <functional>
#include <optional>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "tensorweave/graph.h"
#include "tensorweave/status.h"
#include "tensorweave/tensor.h"

namespace tw::python {

namespace py = pybind11;

void BindErrors(py::module_& m);
void BindTensor(py::module_& m);
void BindGraph(py::module_& m);
void BindSession(py::module_& m);
void BindTrain(py::module_& m);
void BindServer(py::module_& m);
void BindDataFlow(py::module_& m);
void BindTraining(py::module_& m);
void BindRecords(py::module_& m);
void BindSummary(py::module_& m);
void BindSavedModel(py::module_& m);
void BindFreeze(py::module_& m);
void BindClusterResolver(py::module_& m);
void BindCheckpointReader(py::module_& m);
void BindPyFunc(py::module_& m);
void BindGradientFunctions(py::module_& m);  // gradient_functions.cc

// Runs `work` with the GIL released. On the main thread it runs on a helper thread while
// this one lets Python's signal handlers run every 100 ms; when one raises (Ctrl-C:
// KeyboardInterrupt) `interrupt` is called (without the GIL), `work` is waited for and
// the handler's exception raised. Exceptions from `work` propagate.
void CallInterruptibly(const std::function<void()>& work, const std::function<void()>& interrupt);

// An open scope (name, device, variable scope, control dependencies, ...) that Python
// closes in __exit__.
struct Scope {
  std::optional<ScopeGuard> guard;
  void close() { guard.reset(); }
};
inline Scope Open(ScopeGuard guard) {
  Scope s;
  s.guard.emplace(std::move(guard));
  return s;
}

// NumPy <-> Tensor. The array must already have the dtype's NumPy type; a C-contiguous
// array aligned as tensor buffers are (kTensorAlignment) is wrapped without a copy.
Tensor TensorFromArray(const py::array& array);
// A NumPy array sharing the tensor's buffer when nothing else holds it (else a copy,
// so writes to the array cannot reach a variable or a constant); 0-d gives a NumPy scalar.
py::object ArrayFromTensor(Tensor tensor);
py::dtype NumpyDType(DType dtype);

// A shape from Python dims (validated: InvalidArgument naming the bad dim).
TensorShape ShapeFromDims(const std::vector<int64_t>& dims);
// None for an unknown rank, else a list with None for unknown dims.
py::object DimsFromShape(const PartialShape& shape);
// None for an unknown rank, else -1 (or None) for unknown dims.
PartialShape PartialShapeFromPython(const py::object& dims);

// An Output or None (TensorFlow's "no gradient").
py::object OutputOrNone(const Output& output);

}  // namespace tw::python

#endif  // TENSORWEAVE_PYTHON_SRC_BINDINGS_H_
