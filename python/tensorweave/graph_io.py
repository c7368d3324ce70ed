"""tf.import_graph_def and tf.train.write_graph / tf.io.write_graph, with TensorFlow's
semantics; the import itself is the C++ tw::ImportGraphDef (include/tensorweave/
import_graph_def.h), which validates the GraphDef as any client graph."""
import os
import tempfile

from google.protobuf import text_format

from tensorweave import _core
from tensorweave import errors
from tensorweave import framework
from tensorweave.proto import graph_pb2


def _serialized_graph_def(graph_def):
    """Bytes of `graph_def`: our GraphDef, any GraphDef-like message (TensorFlow's), or bytes."""
    if isinstance(graph_def, (bytes, bytearray, memoryview)):
        data = bytes(graph_def)
        graph_pb2.GraphDef().ParseFromString(data)  # a DecodeError here names the problem
        return data
    if hasattr(graph_def, "SerializeToString") and hasattr(graph_def, "node"):
        return graph_def.SerializeToString()
    raise TypeError("Argument `graph_def` must be a GraphDef proto (or its serialized bytes), got %s."
                    % type(graph_def).__name__)


def _tensor_key(name):
    """input_map keys as TF parses them: "x" -> "x:0"; "^x" stays a control input."""
    if name.startswith("^"):
        return name
    node, colon, index = name.rpartition(":")
    if colon and index.isdigit():
        return "%s:%d" % (node, int(index))
    return name + ":0"


class _ImportedOp:
    """What a device function sees of an op being imported (TF passes the Operation)."""

    def __init__(self, node, name):
        self.node_def, self.type, self.name, self.device = node, node.op, name, node.device


def _apply_device_scopes(data, scopes, prefix):
    """The GraphDef bytes with the graph's device scopes applied to every node, innermost
    first, as TF's import does: a device string fills the fields a node's device leaves
    unset, a device function's result replaces it."""
    from tensorweave import device_spec
    graph_def = graph_pb2.GraphDef.FromString(data)
    for node in graph_def.node:
        device = node.device
        for scope in reversed(scopes):
            if callable(scope):
                op = _ImportedOp(node, prefix + "/" + node.name if prefix else node.name)
                op.device = device
                chosen = scope(op)
                device = device if chosen is None else str(chosen)
            else:
                device = device_spec.fill_unset(device, str(scope))
        node.device = device
    return graph_def.SerializeToString()


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports `graph_def` into the default graph: node names under the prefix `name`
    ("import" when None, made unique as a name scope: "import_1", ...; "" for none),
    `input_map` {"node:k": a tensor of this graph (or a value made a Const), "^node": a
    tensor whose op replaces the control input} splicing the GraphDef onto the graph,
    `return_elements` ["op", "op:k"] returned as Operations / Tensors in order (None when
    not given). The current device and control-dependency scopes apply to the imported nodes. `op_dict` and
    `producer_op_list` are accepted and unused, as in TF 1.x's later releases."""
    del op_dict, producer_op_list  # deprecated in TF; ops come from this build's registry
    data = _serialized_graph_def(graph_def)
    input_map = dict(input_map or {})
    for key in input_map:
        if not isinstance(key, str):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor objects, got key %r" % (key,))
    if return_elements is not None and not all(isinstance(e, str) for e in return_elements):
        raise TypeError("return_elements must be a list of strings.")
    graph = framework.get_default_graph()
    with graph.name_scope(name if name is not None else "import") as scope:
        tensors, controls = {}, {}
        if input_map:
            with graph.name_scope("_inputs"):
                for key, value in input_map.items():
                    if isinstance(value, framework.Operation):  # as TF: values must be tensors
                        raise TypeError("can't convert Operation '%s' to Tensor" % value.name)
                    tensor = framework.convert_to_tensor(value)
                    if tensor.graph is not graph:
                        raise ValueError("input_map[%r] (%s) is not an element of this graph." % (key, tensor.name))
                    if key.startswith("^"):  # a control input: on the tensor's op
                        controls[key[1:]] = tensor.op._core
                    else:
                        tensors[_tensor_key(key)] = tensor._core
        prefix = scope[:-1]  # "" at the top level, for name=""
        if graph.__dict__.get("_device_stack"):
            data = _apply_device_scopes(data, graph._device_stack, prefix)
        try:
            elements = _core.import_graph_def_with_options(graph._core, data, prefix, tensors, controls,
                                                           list(return_elements or []),
                                                           graph._active_control_inputs())
        except errors.InvalidArgumentError as e:
            raise ValueError(e.message) from None
    if return_elements is None:
        return None
    return [framework.Tensor(graph, e) if isinstance(e, _core.Output) else framework.Operation(graph, e)
            for e in elements]


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a Graph's GraphDef (or a GraphDef) to logdir/name as TensorFlow does: text
    format (floats as their shortest repr) or deterministic binary; creates logdir; the
    file is replaced atomically. Returns the path."""
    graph_def = graph_or_graph_def
    if isinstance(graph_or_graph_def, framework.Graph):
        graph_def = graph_or_graph_def.as_graph_def()
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        data = text_format.MessageToString(graph_def, float_format="").encode("utf-8")
    else:
        data = graph_def.SerializeToString(deterministic=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".tmp_" + os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path
