// tensorweave._core: the thin pybind11 layer over the C++ client API. The TensorFlow
// names (tf.constant, tf.Session, ...) are built on it in python/tensorweave/.
#include "bindings.h"
#include "tensorweave/process.h"

PYBIND11_MODULE(_core, m) {
  tw::InitProcess();  // the process-wide settings, once, at import
  m.doc() = "tensorweave's C++ client API (use `import tensorweave as tf`)";
  tw::python::BindErrors(m);
  tw::python::BindTensor(m);
  tw::python::BindGraph(m);
  tw::python::BindSession(m);
  tw::python::BindTrain(m);
  tw::python::BindServer(m);
  tw::python::BindDataFlow(m);
  tw::python::BindTraining(m);
  tw::python::BindRecords(m);
  tw::python::BindSummary(m);
  tw::python::BindSavedModel(m);
  tw::python::BindFreeze(m);
  tw::python::BindClusterResolver(m);
  tw::python::BindCheckpointReader(m);
  tw::python::BindPyFunc(m);
  tw::python::BindGradientFunctions(m);
  // tf.COMPILER_VERSION / tf.CXX11_ABI_FLAG: what this extension was built with.
  m.attr("COMPILER_VERSION") = __VERSION__;
  m.attr("CXX11_ABI_FLAG") = _GLIBCXX_USE_CXX11_ABI;
}
