"""MetaGraphs (tf.train.export_meta_graph / import_meta_graph): a GraphDef with its saver,
collections and signatures, in TensorFlow's MetaGraphDef format.

Checkpoints: our Saver runs SaveTensors/RestoreTensors, which TensorFlow lacks, and TF's
saver subgraph (SaveV2/RestoreV2, ShardedFilename, ...) has ops we lack. So an exported
MetaGraph carries a TF-style saver subgraph written here as NodeDefs (TF runs it; both
read and write the same V2 bundle), and an imported one has its saver subgraphs dropped and
is restored by our Saver, by the variable names its RestoreV2 ops list."""
import os

from google.protobuf import text_format

from tensorweave import _core, errors
from tensorweave.framework import GraphKeys, Operation, Tensor, get_default_graph
from tensorweave.proto import graph_pb2, meta_graph_pb2, saver_pb2, tensor_pb2

# Collections of VariableDef bytes (TF's to_proto/from_proto registry for variables).
_VARIABLE_COLLECTIONS = ("variables", "trainable_variables", "global_step", "local_variables",
                         "model_variables", "moving_average_variables", "metric_variables")
# Collections the C++ graph keeps itself (as variable handles).
_CORE_VARIABLE_COLLECTIONS = (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, GraphKeys.GLOBAL_STEP)
# Ops of TensorFlow's checkpoint subgraphs: a scope holding one is a saver's.
_SAVER_OPS = ("SaveV2", "RestoreV2", "MergeV2Checkpoints", "SaveSlices", "Save", "Restore", "RestoreSlice")
# Nodes the C++ Saver adds to our graph (all under "save/"): not for TensorFlow's eyes.
_OWN_SAVER_OPS = ("SaveTensors", "RestoreTensors", "ReadVariableOp", "AssignVariableOp", "NoOp")
# Function-calling ops of TF2 SavedModels: the FunctionDefLibrary is not executed here.
_FUNCTION_CALL_OPS = ("StatefulPartitionedCall", "PartitionedCall")
_STRING = tensor_pb2.DT_STRING


# ---- export

def _strip_own_saver_nodes(graph_def):
    keep = [n for n in graph_def.node if not (n.name.startswith("save/") and n.op in _OWN_SAVER_OPS)]
    del graph_def.node[:]
    graph_def.node.extend(keep)


def _const_strings(node, values):
    node.op = "Const"
    node.attr["dtype"].type = _STRING
    t = node.attr["value"].tensor
    t.dtype = _STRING
    if isinstance(values, list):
        t.tensor_shape.dim.add().size = len(values)
    t.string_val.extend(v.encode() if isinstance(v, str) else v for v in
                        (values if isinstance(values, list) else [values]))


def _add_node(graph_def, name, op, inputs=(), **attrs):
    node = graph_def.node.add()
    node.name, node.op = name, op
    node.input.extend(inputs)
    for key, value in attrs.items():
        if key == "dtypes":
            node.attr[key].list.type.extend(value)
        elif key == "shape":
            node.attr[key].shape.CopyFrom(value)
        else:
            node.attr[key].type = value
    return node


def _add_tf_saver_subgraph(graph_def, scope, named_vars):
    """A TF1 (non-sharded, V2) saver under `scope`: what TF's Saver builds for resource
    variables, as NodeDefs only. named_vars: [(checkpoint name, handle op name, dtype enum,
    slice spec)]."""
    s = scope + "/"
    _const_strings(_add_node(graph_def, s + "filename/input", "Const"), "model")
    _add_node(graph_def, s + "Const", "PlaceholderWithDefault", [s + "filename/input"], dtype=_STRING,
              shape=tensor_pb2.TensorShapeProto())
    names = [n for n, _, _, _ in named_vars]
    dtypes = [d for _, _, d, _ in named_vars]
    for op in ("SaveV2", "RestoreV2"):
        _const_strings(_add_node(graph_def, s + op + "/tensor_names", "Const"), names)
        _const_strings(_add_node(graph_def, s + op + "/shape_and_slices", "Const"), [spec for _, _, _, spec in named_vars])
    reads = []
    for i, (_, handle, dtype, _) in enumerate(named_vars):
        reads.append(_add_node(graph_def, s + "ReadVariableOp_%d" % i, "ReadVariableOp", [handle], dtype=dtype).name)
    _add_node(graph_def, s + "SaveV2", "SaveV2",
              [s + "Const", s + "SaveV2/tensor_names", s + "SaveV2/shape_and_slices"] + reads, dtypes=dtypes)
    _add_node(graph_def, s + "control_dependency", "Identity", [s + "Const", "^" + s + "SaveV2"], T=_STRING)
    _add_node(graph_def, s + "RestoreV2", "RestoreV2",
              [s + "Const", s + "RestoreV2/tensor_names", s + "RestoreV2/shape_and_slices"], dtypes=dtypes)
    assigns = []
    for i, (_, handle, dtype, _) in enumerate(named_vars):
        assigns.append("^" + _add_node(graph_def, s + "AssignVariableOp_%d" % i, "AssignVariableOp",
                                       [handle, "%sRestoreV2:%d" % (s, i)], dtype=dtype).name)
    _add_node(graph_def, s + "restore_all", "NoOp", assigns)
    return saver_pb2.SaverDef(filename_tensor_name=s + "Const:0", save_tensor_name=s + "control_dependency:0",
                              restore_op_name=s + "restore_all", max_to_keep=5, keep_checkpoint_every_n_hours=10000.0,
                              version=saver_pb2.SaverDef.V2)


def _variable_def(var, trainable):
    name = var._core.name
    return meta_graph_pb2.VariableDef(
        variable_name=name + ":0", initializer_name=name + "/Assign", snapshot_name=name + "/read:0",
        initial_value_name=var.initial_value.name, is_resource=True, trainable=trainable).SerializeToString()


def _element_name(item):
    if isinstance(item, (Tensor, Operation)):
        return item.name
    if hasattr(item, "_as_graph_element"):
        return item._as_graph_element().name
    return None


def _collection_def(graph, key, items):
    """A CollectionDef for a collection of graph elements or plain values, None when its
    items are of a kind TF could not read back (TF skips those too, with a warning)."""
    cd = meta_graph_pb2.CollectionDef()
    if key in _VARIABLE_COLLECTIONS:
        trainable = {v._core.name for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)}
        cd.bytes_list.value.extend(_variable_def(v, v._core.name in trainable) for v in items)
    elif all(_element_name(i) is not None for i in items):
        cd.node_list.value.extend(_element_name(i) for i in items)
    elif all(isinstance(i, int) and not isinstance(i, bool) for i in items):
        cd.int64_list.value.extend(items)
    elif all(isinstance(i, float) for i in items):
        cd.float_list.value.extend(items)
    elif all(isinstance(i, (bytes, str)) for i in items):
        cd.bytes_list.value.extend(i.encode() if isinstance(i, str) else i for i in items)
    else:
        return None
    return cd


def _unique_scope(graph_def, base, taken=()):
    names = {n.name for n in graph_def.node}
    prefixes = {n.split("/")[0] for n in names}
    scope, k = base, 0
    while scope in prefixes or scope in names or scope in taken:
        k += 1
        scope = "%s_%d" % (base, k)
    return scope


def build_meta_graph_def(graph=None, saver=None, collection_list=None, clear_devices=False, tags=None):
    """The MetaGraphDef of `graph` (a tensorweave proto message), with `saver`'s TF-style saver."""
    graph = graph or get_default_graph()
    mg = meta_graph_pb2.MetaGraphDef()
    # tensorflow_version stays empty: TF parses it as a version number (and, empty, trusts
    # VariableDef.trainable, which we set).
    mg.meta_info_def.meta_graph_version = "tensorweave"
    mg.meta_info_def.tags.extend(tags or [])
    mg.graph_def.CopyFrom(graph.as_graph_def())
    _strip_own_saver_nodes(mg.graph_def)
    if clear_devices:
        for node in mg.graph_def.node:
            node.device = ""
    if saver is not None:
        named = saver._named_variables()
        if named:
            scope = _unique_scope(mg.graph_def, "save")
            mg.saver_def.CopyFrom(_add_tf_saver_subgraph(
                mg.graph_def, scope, [(name, v._core.name, int(v.dtype._core), spec) for name, v, spec in named]))
    keys = graph.get_all_collection_keys() if collection_list is None else collection_list
    for key in keys:
        items = graph.get_collection(key)
        if not items:
            continue
        cd = _collection_def(graph, key, items)
        if cd is not None:
            mg.collection_def[key].CopyFrom(cd)
    return mg


def _write_proto(message, filename, as_text):
    directory = os.path.dirname(filename)
    if directory:
        os.makedirs(directory, exist_ok=True)
    if as_text:
        with open(filename, "w") as f:
            f.write(text_format.MessageToString(message))
    else:
        with open(filename, "wb") as f:
            f.write(message.SerializeToString())


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False, saver=None, **kwargs):
    """Writes (when filename is given) and returns the MetaGraphDef of `graph` (default: the
    default graph). saver_def: a SaverDef from Saver.as_saver_def() of this graph; saver: the
    Saver itself (either one adds its TF-style saver subgraph)."""
    if export_scope:
        raise errors.UnimplementedError(None, None, "export_meta_graph: export_scope is not supported")
    graph = graph or get_default_graph()
    if saver is None and saver_def is not None:
        saver = getattr(graph, "_tw_savers", {}).get(saver_def.restore_op_name)
        if saver is None:
            raise ValueError("export_meta_graph: saver_def %r is not from a Saver of this graph"
                             % saver_def.restore_op_name)
    mg = build_meta_graph_def(graph, saver, collection_list, clear_devices)
    if meta_info_def is not None:
        mg.meta_info_def.MergeFrom(meta_info_def)
    if filename:
        _write_proto(mg, filename, as_text)
    return mg


# ---- import

def read_meta_graph_file(filename):
    """A MetaGraphDef from a binary or text file; DataLoss naming the file if it is neither."""
    with open(filename, "rb") as f:
        data = f.read()
    mg = meta_graph_pb2.MetaGraphDef()
    try:
        mg.ParseFromString(data)
        return mg
    except Exception:  # noqa: BLE001 - protobuf's DecodeError; try the text form next.
        pass
    try:
        text_format.Merge(data.decode("utf-8"), mg)
        return mg
    except Exception as e:  # noqa: BLE001
        raise errors.DataLossError(None, None, "Cannot parse file %s as a MetaGraphDef: %s" % (filename, e))


def _node_of(name):
    return name.lstrip("^").split(":")[0]


def _saver_scopes(graph_def):
    return {n.name.rsplit("/", 1)[0] for n in graph_def.node if n.op in _SAVER_OPS and "/" in n.name}


def _restored_names(graph_def, scopes):
    """Checkpoint names the dropped saver subgraphs restore (their RestoreV2 tensor_names)."""
    consts = {n.name: n for n in graph_def.node}
    names = []
    for node in graph_def.node:
        if node.op == "RestoreV2" and node.name.rsplit("/", 1)[0] in scopes and len(node.input) >= 2:
            const = consts.get(_node_of(node.input[1]))
            if const is not None and const.op == "Const":
                names += [s.decode() for s in const.attr["value"].tensor.string_val if s.decode() not in names]
    return names


def _check_no_function_calls(graph_def, where):
    for node in graph_def.node:
        if node.op in _FUNCTION_CALL_OPS:
            raise errors.UnimplementedError(
                None, None, "%s: node '%s' is a %s: the functions of a TF2 SavedModel's function library are not "
                "executed by tensorweave; export the model from a TF1 graph (tf.compat.v1.saved_model)"
                % (where, node.name, node.op))


def _prefix_graph_def(graph_def, scope):
    """Every node name and input under `scope/` (import_meta_graph's import_scope)."""
    p = scope.rstrip("/") + "/"
    for node in graph_def.node:
        node.name = p + node.name
        node.input[:] = [("^" + p + i[1:]) if i.startswith("^") else p + i for i in node.input]
        if "_class" in node.attr:
            node.attr["_class"].list.s[:] = [b"loc:@" + p.encode() + s[5:] if s.startswith(b"loc:@") else s
                                             for s in node.attr["_class"].list.s]
    return p


def _prepare_graph_def(meta_graph_def, clear_devices, import_scope, where):
    """The GraphDef to import (saver subgraphs dropped), the saver's checkpoint names and
    the name prefix of the import."""
    gd = graph_pb2.GraphDef()
    gd.CopyFrom(meta_graph_def.graph_def)
    _check_no_function_calls(gd, where)
    scopes = _saver_scopes(gd)
    # The MetaGraph's own saver (TF's builder leaves one per add_meta_graph in the graph).
    own = meta_graph_def.saver_def.restore_op_name.rsplit("/", 1)[0]
    names = _restored_names(gd, {own} if own in scopes else scopes)
    dropped = {n.name for n in gd.node if any(n.name.startswith(s + "/") for s in scopes)}
    # And what depends on them (nothing, in TF's own graphs).
    changed = True
    while changed:
        changed = False
        for n in gd.node:
            if n.name not in dropped and any(_node_of(i) in dropped for i in n.input):
                dropped.add(n.name)
                changed = True
    keep = [n for n in gd.node if n.name not in dropped]
    del gd.node[:]
    gd.node.extend(keep)
    if clear_devices:
        for node in gd.node:
            node.device = ""
    prefix = _prefix_graph_def(gd, import_scope) if import_scope else ""
    return gd, names, prefix


def _variable_from_def(graph, vd, prefix, registered):
    """A Variable for a VariableDef of the imported graph, listed in the graph's variable
    collections once. Our Variable finds "<handle>/Assign" and "<handle>/read": TF names its
    snapshot "<handle>/Read/ReadVariableOp", so the read is added when missing."""
    from tensorweave import variables
    handle_name = prefix + _node_of(vd.variable_name)
    if handle_name in registered:
        return registered[handle_name]
    handle_op = graph.get_operation_by_name(handle_name)
    if handle_op.type == "ReadVariableOp" and handle_op.inputs[0].op.type == "VarHandleOp":
        # A TF1 reference variable, lowered on import: its name reads the handle.
        var = variables.Variable._from_core(graph, _core.Variable.from_handle(handle_op.inputs[0]._core))
        registered[handle_name] = var
        return var
    if handle_op.type != "VarHandleOp":
        raise errors.UnimplementedError(None, None, "import_meta_graph: variable '%s' is a %s; only resource "
                                        "variables (VarHandleOp) and reference variables (VariableV2) are imported" % (handle_name, handle_op.type))
    if handle_name + "/Assign" not in {op.name for op in graph.get_operations()}:
        raise errors.InvalidArgumentError(None, None, "import_meta_graph: variable '%s' has no initializer "
                                          "'%s/Assign'" % (handle_name, handle_name))
    try:
        graph.get_operation_by_name(handle_name + "/read")
    except Exception:  # noqa: BLE001 - not there: add it.
        dtype = graph.get_operation_by_name(handle_name + "/Assign").inputs[1].dtype
        graph.create_op("ReadVariableOp", [handle_op.outputs[0]], {"dtype": dtype}, name=handle_name + "/read")
    var = variables.Variable._from_core(graph, _core.Variable.from_handle(handle_op.outputs[0]._core))
    registered[handle_name] = var
    return var


def _restore_collections(graph, meta_graph_def, prefix):
    registered = {}
    for key in sorted(meta_graph_def.collection_def):
        cd = meta_graph_def.collection_def[key]
        kind = cd.WhichOneof("kind")
        if key in _VARIABLE_COLLECTIONS and kind == "bytes_list":
            for raw in cd.bytes_list.value:
                vd = meta_graph_pb2.VariableDef()
                vd.ParseFromString(raw)
                var = _variable_from_def(graph, vd, prefix, registered)
                if key in _CORE_VARIABLE_COLLECTIONS:
                    if all(v._core.name != var._core.name for v in graph.get_collection(key)):
                        graph._core.add_to_collection(key, var._core.handle)
                else:
                    graph.add_to_collection(key, var)
        elif kind == "node_list":
            for name in cd.node_list.value:
                graph.add_to_collection(key, graph.as_graph_element(prefix + name))
        elif kind == "int64_list":
            for v in cd.int64_list.value:
                graph.add_to_collection(key, int(v))
        elif kind == "float_list":
            for v in cd.float_list.value:
                graph.add_to_collection(key, float(v))
        elif kind == "bytes_list":
            for v in cd.bytes_list.value:
                graph.add_to_collection(key, bytes(v))
        # any_list: no Python type to give it back as (TF too needs its registry); skipped.
    return registered


def import_meta_graph_def(graph, meta_graph_def, clear_devices=False, import_scope=None, where="import_meta_graph"):
    """Imports into `graph`; returns (checkpoint name -> Variable for the saver, or None)."""
    gd, names, prefix = _prepare_graph_def(meta_graph_def, clear_devices, import_scope, where)
    graph.import_graph_def(gd.SerializeToString())
    registered = _restore_collections(graph, meta_graph_def, prefix)
    if not meta_graph_def.HasField("saver_def") or not names:
        return None
    named = {}
    for name in names:
        var = registered.get(prefix + name)
        if var is None:
            # Saved but in no variable collection: found by its handle's name.
            if prefix + name not in {op.name for op in graph.get_operations()}:
                raise errors.NotFoundError(None, None, "%s: the saver restores '%s', which is not a variable of the "
                                           "graph" % (where, name))
            var = _variable_from_def(graph, meta_graph_pb2.VariableDef(variable_name=name + ":0"), prefix, registered)
        named[name] = var
    return named


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Imports a MetaGraph (a .meta path or a MetaGraphDef) into the default graph; returns a
    Saver that restores its variables from a checkpoint, or None when it has no saver."""
    from tensorweave import train
    if isinstance(meta_graph_or_file, (str, os.PathLike)):
        mg = read_meta_graph_file(os.fspath(meta_graph_or_file))
    elif isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        mg = meta_graph_or_file
    elif hasattr(meta_graph_or_file, "SerializeToString"):  # TF's own message class.
        mg = meta_graph_pb2.MetaGraphDef()
        mg.ParseFromString(meta_graph_or_file.SerializeToString())
    else:
        raise TypeError("import_meta_graph: expected a file name or a MetaGraphDef, got %r"
                        % type(meta_graph_or_file).__name__)
    named = import_meta_graph_def(get_default_graph(), mg, clear_devices, import_scope)
    return None if named is None else train.Saver(named)
