"""tf.graph_util: GraphDef rewrites on the messages, with TensorFlow's semantics:
extract_sub_graph, remove_training_nodes, tensor_shape_from_node_def_name and
convert_variables_to_constants (the session reads the variables' values; the C++ freeze
rewrites VariableV2 / VarHandleOp -> Const, ReadVariableOp -> Identity, as TF does)."""
import copy

from tensorweave.proto import graph_pb2

_VARIABLE_OPS = ("Variable", "VariableV2", "VarHandleOp")


def _check_graph_def(graph_def):
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto, but got type %s." % type(graph_def))


def extract_sub_graph(graph_def, dest_nodes):
    """The nodes `dest_nodes` need (through data and control inputs), in file order; the
    library and versions come along (src/graph/freeze_graph.cc's ExtractSubGraph)."""
    from tensorweave import _core
    _check_graph_def(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be an iterable of strings, but got type %s." % type(dest_nodes))
    names = {node.name for node in graph_def.node}
    for d in dest_nodes:
        if d not in names:
            raise AssertionError("%s is not in graph" % d)
    out = graph_pb2.GraphDef.FromString(_core.extract_sub_graph(graph_def.SerializeToString(), list(dest_nodes)))
    _with_library(out)
    return out


def _with_library(graph_def):
    """TF's extract_sub_graph writes GraphDef.library (field 2) even when empty: so does this."""
    if not graph_def.HasField("library"):
        graph_def.library.SetInParent()


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
    resource) replaced by Consts holding their values in `sess`: the session reads the
    values, src/graph/freeze_graph.cc rewrites the graph (devices kept, as TF's)."""
    from tensorweave import _core
    graph_def = extract_sub_graph(input_graph_def, output_node_names)
    variables = [n for n in graph_def.node if n.op in _VARIABLE_OPS]
    wanted = [n for n in variables
              if (variable_names_whitelist is None or n.name in variable_names_whitelist)
              and (variable_names_blacklist is None or n.name not in variable_names_blacklist)]
    wanted_names = {n.name for n in wanted}
    # Every variable not wanted is blacklisted: an empty whitelist means "none" here but
    # "all" to the C++ options.
    blacklist = [n.name for n in variables if n.name not in wanted_names]
    frozen = _core.freeze_graph_def(graph_def.SerializeToString(), _variable_values(sess, wanted),
                                    list(output_node_names), None, blacklist, False)
    return graph_pb2.GraphDef.FromString(frozen)
