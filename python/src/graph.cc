// Graph, Operation, Output and the scopes. Operations are added through one generic call
// (op type + inputs + attrs, as Graph::AddOperation); the TensorFlow names are thin
// Python functions over it.
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "graph/attr_value.h"
#include "graph/back_edge.h"
#include "graph/function_body.h"
#include "graph/graph.h"
#include "tensorweave/import_graph_def.h"
#include "tensorweave/proto/graph.pb.h"
#include "core/proto_namespace.h"

namespace tw::python {

namespace {

// The value of a "func" attr: the name of a function in the graph's library.
struct FuncAttr {
  std::string name;
};

bool IsIntList(const py::list& list) {
  for (py::handle v : list) {
    if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v)) return false;
  }
  return true;
}

// A Python attr value as an AttrValue: bool, int, float, str, DType, a NumPy array
// (tensor), a PartialShape, or a list of ints, strs, DTypes or PartialShapes.
AttrValue ToAttr(const std::string& name, const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return MakeAttr(v.cast<bool>());
  if (py::isinstance<py::int_>(v)) return MakeAttr(v.cast<int64_t>());
  if (py::isinstance<py::float_>(v)) return MakeAttr(v.cast<float>());
  if (py::isinstance<py::str>(v)) return MakeAttr(v.cast<std::string>());
  if (py::isinstance<DType>(v)) return MakeAttr(v.cast<DType>());
  if (py::isinstance<PartialShape>(v)) return MakeAttr(v.cast<PartialShape>());
  if (py::isinstance<py::array>(v)) return MakeAttr(TensorFromArray(v.cast<py::array>()));
  if (py::isinstance<FuncAttr>(v)) {
    AttrValue a;
    a.mutable_func()->set_name(v.cast<FuncAttr>().name);
    return a;
  }
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    py::list list(py::reinterpret_borrow<py::object>(v));
    if (IsIntList(list)) {
      auto ints = list.cast<std::vector<int64_t>>();
      return MakeAttr(absl::Span<const int64_t>(ints));
    }
    if (py::len(list) > 0 && py::isinstance<DType>(list[0])) {
      auto types = list.cast<std::vector<DType>>();
      return MakeAttr(absl::Span<const DType>(types));
    }
    if (py::len(list) > 0 && py::isinstance<PartialShape>(list[0])) {  // list(shape)
      auto shapes = list.cast<std::vector<PartialShape>>();
      return MakeAttr(absl::Span<const PartialShape>(shapes));
    }
    if (py::len(list) > 0 && py::isinstance<py::str>(list[0])) {
      auto strs = list.cast<std::vector<std::string>>();
      return MakeAttr(absl::Span<const std::string>(strs));
    }
  }
  throw py::type_error(absl::StrCat("attr '", name, "': unsupported value ",
                                    py::repr(v).cast<std::string>()));
}

std::vector<Output> Inputs(const Operation& op) {
  std::vector<Output> inputs;
  for (int i = 0; i < op.node()->num_inputs(); ++i) {
    const Edge* e = op.node()->input_edge(i);
    inputs.emplace_back(Operation(op.graph(), e->src), e->src_output);
  }
  return inputs;
}

std::vector<Operation> ControlInputs(const Operation& op) {
  std::vector<Operation> deps;
  for (const Edge* e : op.node()->control_inputs()) deps.emplace_back(op.graph(), e->src);
  return deps;
}

// What a Python device function sees of the op being placed (TF passes the Operation;
// its type, name and device so far are what device functions read).
struct PendingOp {
  std::string type, name, device;
};

}  // namespace

py::object OutputOrNone(const Output& output) {
  if (!output.op().valid()) return py::none();
  return py::cast(output);
}

void BindGraph(py::module_& m) {
  py::class_<Scope>(m, "Scope").def("close", &Scope::close);
  py::class_<FuncAttr>(m, "FuncAttr")
      .def(py::init([](const std::string& name) { return FuncAttr{name}; }))
      .def_readonly("name", &FuncAttr::name);

  py::class_<PartialShape>(m, "PartialShape")
      .def(py::init([](const py::object& dims) { return PartialShapeFromPython(dims); }),
           py::arg("dims") = py::none())
      .def_property_readonly("dims", [](const PartialShape& s) { return DimsFromShape(s); })
      .def("__repr__", &PartialShape::DebugString);

  py::class_<PendingOp>(m, "PendingOp")
      .def_readonly("type", &PendingOp::type)
      .def_readonly("name", &PendingOp::name)
      .def_readonly("device", &PendingOp::device);

  py::class_<Operation>(m, "Operation")
      .def_property_readonly("name", &Operation::name)
      .def_property_readonly("type", &Operation::type)
      .def_property_readonly("device", &Operation::device)
      .def_property_readonly("num_outputs", &Operation::num_outputs)
      .def("output", &Operation::output)
      .def_property_readonly("inputs", &Inputs)
      .def_property_readonly("control_inputs", &ControlInputs)
      .def("__eq__", [](const Operation& a, const Operation& b) { return a.node() == b.node(); })
      .def("__hash__", [](const Operation& a) { return std::hash<const void*>()(a.node()); });

  py::class_<Output>(m, "Output")
      .def_property_readonly("op", &Output::op)
      .def_property_readonly("index", &Output::index)
      .def_property_readonly("dtype", &Output::dtype)
      .def_property_readonly("shape", [](const Output& o) { return DimsFromShape(o.shape()); })
      .def_property_readonly("name", &Output::name)
      .def("__eq__", [](const Output& a, const Output& b) {
        return a.op().node() == b.op().node() && a.index() == b.index();
      })
      .def("__hash__", [](const Output& o) {
        return std::hash<const void*>()(o.op().node()) ^ static_cast<size_t>(o.index());
      });

  py::class_<Graph>(m, "Graph")
      .def(py::init<>())
      .def("add_operation",
           [](Graph& g, const std::string& op, const std::string& name, const std::vector<Output>& inputs,
              const py::dict& attrs) {
             std::map<std::string, AttrValue> attr_values;
             for (auto [k, v] : attrs) {
               const std::string key = k.cast<std::string>();
               attr_values[key] = ToAttr(key, v);
             }
             return g.AddOperation(op, name, inputs, attr_values);
           },
           py::arg("op"), py::arg("name"), py::arg("inputs"), py::arg("attrs"))
      .def("name_scope", [](Graph& g, const std::string& name) { return Open(g.name_scope(name)); })
      .def("current_name_scope", &Graph::current_name_scope)
      .def("device", [](Graph& g, const std::string& device) { return Open(g.device(device)); })
      .def("device_function",
           [](Graph& g, py::function fn) {
             // Called while ops are added, which Python does holding the GIL.
             return Open(g.device([fn](const DeviceFunctionInput& op) {
               py::object chosen = fn(PendingOp{op.op_type, op.name, op.device});
               return chosen.is_none() ? op.device : chosen.cast<std::string>();  // None: unchanged.
             }));
           })
      .def("colocate_with", [](Graph& g, const Operation& op) { return Open(g.colocate_with(op)); })
      .def("control_dependencies",
           [](Graph& g, const std::vector<Operation>& deps) { return Open(g.control_dependencies(deps)); })
      .def("operation", &Graph::operation)
      .def("tensor", &Graph::tensor)
      .def("operations", &Graph::operations)
      .def_property_readonly("num_operations", &Graph::num_operations)
      .def("unique_name", [](Graph& g, const std::string& name) { return g.unique_unscoped_name(name); })
      .def("add_to_collection", &Graph::add_to_collection)
      .def("get_collection", &Graph::get_collection)
      .def_property("seed", &Graph::seed, &Graph::set_seed)
      .def("next_seeds", &Graph::NextSeeds)
      .def("as_graph_def", [](const Graph& g) { return py::bytes(g.ToGraphDef().SerializeAsString()); })
      .def("as_graph_def_text", [](const Graph& g) { return g.ToGraphDef().DebugString(); })
      // A FunctionDef (serialized) added to the graph's library (tf.data's traced functions).
      .def("add_function", [](Graph& g, const py::bytes& data) {
        FunctionDef fn;
        if (!fn.ParseFromString(std::string(data))) {
          throw StatusError(absl::InvalidArgumentError("add_function: not a serialized FunctionDef"));
        }
        ThrowIfError(g.flow_graph().AddFunction(fn));
      })
      .def("import_graph_def", [](Graph& g, const py::bytes& data) {
        GraphDef def;
        if (!def.ParseFromString(std::string(data))) {
          throw StatusError(absl::InvalidArgumentError("import_graph_def: not a serialized GraphDef"));
        }
        g.Import(def);
      })
      // tf.while_loop: the Merge's back edge from its NextIteration (graph/back_edge.h).
      .def("set_back_edge", [](Graph& g, const std::string& merge, int input, const std::string& next) {
        Node* m = g.flow_graph().FindNode(merge);
        Node* n = g.flow_graph().FindNode(next);
        if (m == nullptr || n == nullptr) {
          throw StatusError(absl::InvalidArgumentError(absl::StrCat("set_back_edge: no node '", m ? next : merge, "'")));
        }
        ThrowIfError(SetBackEdge(m, input, n));
      });

  // tf.import_graph_def: prefix, input maps and return elements (tensorweave.graph_io).
  // Returns the return elements in order, each an Operation or an Output.
  m.def("import_graph_def_with_options",
        [](Graph& g, const py::bytes& data, const std::string& prefix, const std::map<std::string, Output>& input_map,
           const std::map<std::string, Operation>& control_input_map, const std::vector<std::string>& return_elements,
           const std::vector<Operation>& control_dependencies) {
          GraphDef def;
          if (!def.ParseFromString(std::string(data))) {
            throw StatusError(absl::InvalidArgumentError("import_graph_def: not a serialized GraphDef"));
          }
          ImportGraphDefOptions options{prefix, input_map, control_input_map, return_elements, control_dependencies};
          py::list out;
          for (const ImportedElement& e : ValueOrThrow(ImportGraphDef(def, options, &g))) {
            out.append(e.is_tensor ? py::cast(e.tensor) : py::cast(e.operation));
          }
          return out;
        });
  // A traced graph as a FunctionDef: its Placeholders `inputs` become the arguments, the
  // tensors `outputs` the results (graph/function_body.h).
  m.def("function_def_from_graph", [](const py::bytes& graph_def, const std::string& name,
                                      const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
    GraphDef def;
    if (!def.ParseFromString(std::string(graph_def))) {
      throw StatusError(absl::InvalidArgumentError("function_def_from_graph: not a serialized GraphDef"));
    }
    FunctionDef fn = ValueOrThrow(FunctionDefFromGraphDef(def, name, inputs, outputs, OpRegistry::Global()));
    return py::bytes(fn.SerializeAsString());
  });
  // Operation.node_def (serialized NodeDef; the Python side parses it into node_def_pb2).
  m.def("operation_node_def",
        [](const Operation& op) { return py::bytes(op.node()->ToNodeDef().SerializeAsString()); });
}

}  // namespace tw::python
