"""Python functions of tf.data (map, filter, flat_map, ...) traced into FunctionDefs of
the graph's library, as TensorFlow's Defun does: the arguments become Placeholders of a
function graph, tensors of the outer graph the function uses become extra arguments
(captured inputs), and the C++ side turns the graph into a FunctionDef
(_core.function_def_from_graph)."""
import itertools
import re

from tensorweave import _core, framework

_counter = itertools.count(1)


class FuncGraph(framework.Graph):
    """The graph a function is traced into; ops that use tensors of another graph get a
    Placeholder for each of them instead (a capture)."""

    def __init__(self, outer):
        super().__init__()
        self.outer = outer
        self.captures = []  # (outer tensor, placeholder)
        if outer.seed:
            self.seed = outer.seed

    def capture(self, tensor):
        for outer_tensor, placeholder in self.captures:
            if outer_tensor == tensor:
                return placeholder
        from tensorweave import array_ops
        with self.as_default():
            placeholder = array_ops.placeholder(tensor.dtype, tensor.shape, name="captured")
        self.captures.append((tensor, placeholder))
        return placeholder

    def _create_op(self, op_type, inputs, attrs=None, name=None):
        converted = []
        for i in inputs:
            if not isinstance(i, framework.Tensor) and hasattr(i, "_as_graph_element"):  # A variable.
                i = i._as_graph_element()
            converted.append(self.capture(i) if isinstance(i, framework.Tensor) and i.graph is not self else i)
        inputs = converted
        return super()._create_op(op_type, inputs, attrs, name)


def _function_name(fn, kind):
    base = getattr(fn, "__name__", "fn")
    return "%s_%s_%d" % (kind, re.sub(r"[^A-Za-z0-9_]", "_", base), next(_counter))


def trace(fn, arg_placeholders_fn, kind, convert_outputs):
    """Traces `fn`. `arg_placeholders_fn()` (called in the function graph) returns
    (placeholders, call_args); `convert_outputs(result)` returns (flat output tensors,
    output structure). Returns (function name, captured outer tensors, flat outputs,
    output structure)."""
    outer = framework.get_default_graph()
    graph = FuncGraph(outer)
    from tensorweave import array_ops
    with graph.as_default():
        placeholders, call_args = arg_placeholders_fn()
        result = fn(*call_args)
        flat, structure = convert_outputs(result)
        flat = [array_ops.identity(graph.capture(t) if t.graph is not graph else t) for t in flat]
    name = _function_name(fn, kind)
    inputs = [p.op.name for p in placeholders] + [p.op.name for _, p in graph.captures]
    graph_def = graph._core.as_graph_def()
    fdef = _core.function_def_from_graph(graph_def, name, inputs, [t.name for t in flat])
    from tensorweave.proto import graph_pb2
    for inner in graph_pb2.GraphDef.FromString(graph_def).library.function:
        outer._core.add_function(inner.SerializeToString())
    outer._core.add_function(fdef)
    return name, [t for t, _ in graph.captures], flat, structure


def func_attr(name):
    return _core.FuncAttr(name)
