"""TensorFlow's side of test_meta_graph_protos.py: the fields (name -> number, type) of the
MetaGraph and SavedModel messages in TensorFlow's own generated classes, as JSON on stdout."""
import json

from tensorflow.core.framework import attr_value_pb2, function_pb2, graph_pb2, op_def_pb2, variable_pb2
from tensorflow.core.protobuf import meta_graph_pb2, saved_model_pb2, saver_pb2


def _repeated(field):
    """Whether a field is repeated (newer protobuf dropped FieldDescriptor.label)."""
    if hasattr(field, "is_repeated"):
        return bool(field.is_repeated)
    return field.label == field.LABEL_REPEATED


def fields(descriptor, prefix, out):
    out[prefix] = {f.name: [f.number, f.type, _repeated(f)] for f in descriptor.fields}
    for nested in descriptor.nested_types:
        if not nested.GetOptions().map_entry:
            fields(nested, prefix + "." + nested.name, out)


out = {}
for message in (meta_graph_pb2.MetaGraphDef, meta_graph_pb2.CollectionDef, meta_graph_pb2.TensorInfo,
                meta_graph_pb2.SignatureDef, meta_graph_pb2.AssetFileDef, saver_pb2.SaverDef,
                saved_model_pb2.SavedModel, variable_pb2.VariableDef, variable_pb2.SaveSliceInfoDef,
                function_pb2.FunctionDefLibrary, function_pb2.FunctionDef, op_def_pb2.OpDef, attr_value_pb2.NameAttrList,
                graph_pb2.GraphDef, attr_value_pb2.AttrValue):
    fields(message.DESCRIPTOR, message.DESCRIPTOR.name, out)
print(json.dumps(out))
