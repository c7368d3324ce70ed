// FIFOQueue (tf.FIFOQueue): the C++ class, its ops returned as Output / Operation.
#include <string>
#include <vector>

#include "bindings.h"
#include "tensorweave/data_flow_ops.h"

namespace tw::python {

void BindDataFlow(py::module_& m) {
  py::class_<FIFOQueue>(m, "FIFOQueue")
      .def(py::init([](Graph& g, int64_t capacity, const std::vector<DType>& dtypes, const py::list& shapes,
                       const std::string& shared_name, const std::string& name) {
             std::vector<PartialShape> partial;
             for (py::handle dims : shapes) partial.push_back(PartialShapeFromPython(py::reinterpret_borrow<py::object>(dims)));
             return FIFOQueue(g, capacity, dtypes, partial, shared_name, name);
           }),
           py::arg("graph"), py::arg("capacity"), py::arg("dtypes"), py::arg("shapes"), py::arg("shared_name"),
           py::arg("name"))
      .def_property_readonly("queue_ref", &FIFOQueue::queue_ref)
      .def_property_readonly("dtypes", &FIFOQueue::dtypes)
      .def("enqueue", &FIFOQueue::enqueue)
      .def("enqueue_many", &FIFOQueue::enqueue_many)
      .def("dequeue", &FIFOQueue::dequeue)
      .def("dequeue_many", py::overload_cast<const Output&, const std::string&>(&FIFOQueue::dequeue_many))
      .def("close", &FIFOQueue::close)
      .def("size", &FIFOQueue::size);
}

}  // namespace tw::python
