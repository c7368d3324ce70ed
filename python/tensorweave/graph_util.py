"""tf.graph_util: GraphDef rewrites on the messages, with TensorFlow's semantics:
extract_sub_graph, remove_training_nodes, tensor_shape_from_node_def_name and
convert_variables_to_constants (the session reads the variables' values; the rewrite is
VariableV2 / VarHandleOp -> Const, ReadVariableOp -> Identity, as TF does)."""
import copy

from tensorweave.proto import function_pb2, graph_pb2

_REF_VARIABLE_OPS = ("Variable", "VariableV2")


def _node_name(input_name):
    """"^x", "x:1" and "x" all name node x."""
    name = input_name[1:] if input_name.startswith("^") else input_name
    node, colon, index = name.rpartition(":")
    return node if colon and index.isdigit() else name


def _check_graph_def(graph_def):
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto, but got type %s." % type(graph_def))


def extract_sub_graph(graph_def, dest_nodes):
    """The nodes `dest_nodes` need (through data and control inputs), in file order."""
    _check_graph_def(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be an iterable of strings, but got type %s." % type(dest_nodes))
    by_name = {node.name: node for node in graph_def.node}
    for d in dest_nodes:
        if d not in by_name:
            raise AssertionError("%s is not in graph" % d)
    keep, pending = set(), list(dest_nodes)
    while pending:
        name = pending.pop()
        if name in keep:
            continue
        keep.add(name)
        pending.extend(_node_name(i) for i in by_name[name].input if _node_name(i) in by_name)
    out = graph_pb2.GraphDef()
    out.node.extend(copy.deepcopy(node) for node in graph_def.node if node.name in keep)
    out.versions.CopyFrom(graph_def.versions)
    _copy_library(graph_def, out)
    return out


def _copy_library(source, dest):
    """GraphDef.library (field 2; graph.proto keeps it as an unknown field, function.proto
    reads it): copied, present even when empty, as TF's extract_sub_graph writes it."""
    parsed = function_pb2.GraphDefLibrary.FromString(source.SerializeToString())
    library = function_pb2.GraphDefLibrary()  # the library alone, not the other fields parsed
    library.library.CopyFrom(parsed.library)
    dest.MergeFromString(library.SerializeToString())


def _with_inputs(node, inputs):
    new = copy.deepcopy(node)
    del new.input[:]
    new.input.extend(inputs)
    return new


def remove_training_nodes(input_graph, protected_nodes=None):
    """Drops CheckNumerics nodes and splices out Identity nodes (unless protected, the
    target of a colocation, or involved in a control edge), as TF's inference prep."""
    protected = set(protected_nodes or [])
    dropped = {n.name for n in input_graph.node if n.op == "CheckNumerics" and n.name not in protected}
    nodes = [_with_inputs(n, [i for i in n.input if (i[1:] if i.startswith("^") else i) not in dropped])
             for n in input_graph.node if n.name not in dropped]
    control_sources, has_control_input, colocated = set(), set(), set()
    for n in nodes:
        for i in n.input:
            if "^" in i:
                control_sources.add(i.replace("^", ""))
                has_control_input.add(n.name)
        if "_class" in n.attr:
            for s in n.attr["_class"].list.s:
                colocated.add(s.decode("utf-8").split("@", 1)[-1])
    splice = {n.name: n.input[0] for n in nodes
              if n.op == "Identity" and n.name not in protected and n.name not in colocated
              and n.name not in has_control_input and n.name not in control_sources}
    out_nodes = []
    for n in nodes:
        if n.name in splice:
            continue
        inputs = []
        for full in n.input:
            while (full[1:] if full.startswith("^") else full) in splice:
                full = splice[full[1:] if full.startswith("^") else full]
            inputs.append(full)
        out_nodes.append(_with_inputs(n, inputs))
    out = graph_pb2.GraphDef()
    out.node.extend(out_nodes)
    return out


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of tensor `input_name` ("x" meaning "x:0") of `graph`."""
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).get_shape()


def _variable_values(sess, variables):
    """{name: ndarray} for the variable nodes, read in one session run."""
    from tensorweave import framework
    graph = sess.graph
    fetches = {}
    with graph.as_default():
        for node in variables:
            if node.op == "VarHandleOp":
                handle = graph.get_tensor_by_name(node.name + ":0")
                dtype = graph.get_operation_by_name(node.name).get_attr("dtype")
                fetches[node.name] = framework._op_output("ReadVariableOp", [handle], {"dtype": dtype},
                                                          name=node.name + "/freeze_read")
            else:
                fetches[node.name] = graph.get_tensor_by_name(node.name + ":0")
    return sess.run(fetches) if fetches else {}


def convert_variables_to_constants(sess, input_graph_def, output_node_names, variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """The sub-graph computing `output_node_names` with its variables (reference and
    resource) replaced by Consts holding their values in `sess`."""
    from tensorweave.tensor_util import make_tensor_proto
    from tensorweave import dtypes
    graph_def = extract_sub_graph(input_graph_def, output_node_names)
    wanted = [n for n in graph_def.node if n.op in _REF_VARIABLE_OPS + ("VarHandleOp",)
              and (variable_names_whitelist is None or n.name in variable_names_whitelist)
              and (variable_names_blacklist is None or n.name not in variable_names_blacklist)]
    values = _variable_values(sess, wanted)
    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    for node in graph_def.node:
        new = out.node.add()
        if node.name in values:
            dtype_enum = node.attr["dtype"].type
            new.name, new.op = node.name, "Const"
            new.attr["dtype"].type = dtype_enum
            value = values[node.name]
            new.attr["value"].tensor.CopyFrom(make_tensor_proto(value, dtype=dtypes.as_dtype(value.dtype)
                                                                if value.dtype.kind != "O" else dtypes.string))
            if node.device:
                new.device = node.device
        elif node.op == "ReadVariableOp" and _node_name(node.input[0]) in values:
            new.CopyFrom(node)
            new.op = "Identity"
            del new.attr["dtype"]
            new.attr["T"].type = node.attr["dtype"].type
        else:
            new.CopyFrom(node)
    return out
