"""A graph as a GraphDef message (Graph.as_graph_def) and a node's attrs as TensorFlow's
Operation.get_attr returns them."""
from tensorweave import dtypes
from tensorweave.proto import graph_pb2

_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor")


def _shape_proto(shape, proto):
    """TensorShape -> TensorShapeProto as TF writes it: unknown rank, -1 for unknown dims."""
    if shape.dims is None:
        proto.unknown_rank = True
        return proto
    for d in shape.dims:
        proto.dim.add(size=-1 if d is None else d)
    return proto


def graph_def_of(graph, from_version=None, add_shapes=False):
    graph_def = graph_pb2.GraphDef()
    graph_def.ParseFromString(graph._core.as_graph_def())
    if from_version:
        kept = list(graph_def.node)[int(from_version):]
        del graph_def.node[:]
        graph_def.node.extend(kept)
    if add_shapes:
        for node in graph_def.node:
            outputs = graph.get_operation_by_name(node.name).outputs
            if outputs:
                shapes = node.attr["_output_shapes"].list.shape
                for output in outputs:
                    _shape_proto(output.shape, shapes.add())
    return graph_def


def get_attr(node_def, name):
    """attr `name` of `node_def`: bytes, int, float, bool, DType, TensorShapeProto,
    TensorProto, or a list of them; ValueError naming the op when it has no such attr."""
    if name not in node_def.attr:
        raise ValueError("Operation %r has no attr named %r." % (node_def.name, name))
    value = node_def.attr[name]
    kind = value.WhichOneof("value")
    if kind == "list":
        for field in _LIST_FIELDS:
            items = getattr(value.list, field)
            if items:
                return [dtypes.as_dtype(_dtype_name(t)) for t in items] if field == "type" else list(items)
        return []
    if kind is None:
        return []
    if kind == "type":
        return dtypes.as_dtype(_dtype_name(value.type))
    return getattr(value, kind)


def _dtype_name(enum_value):
    from tensorweave.tensor_util import _enum_name
    if enum_value == 20:  # DT_RESOURCE
        return "resource"
    return _enum_name(enum_value)
