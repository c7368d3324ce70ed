"""Our MetaGraphDef, SaverDef, SavedModel and VariableDef messages against TensorFlow's own
(a subprocess with the pinned TensorFlow): every field we declare has TF's number, type and
repeatedness; the fields we leave out are listed here, and TF's data in them survives a round
trip through our classes as unknown fields."""
import json

from tf_peer import require_tensorflow, run_tf_script
from tensorweave.proto import function_pb2, graph_pb2, meta_graph_pb2, saved_model_pb2, saver_pb2

# TF fields we do not model (parsed and written back as unknown fields).
NOT_MODELLED = {"MetaGraphDef": {"object_graph_def"}, "MetaGraphDef.MetaInfoDef": {"stripped_op_list"},
                "TensorInfo": {"composite_tensor"}}
# Enums we declare as int32 (the same varint on the wire).
ENUM_AS_INT32 = {("VariableDef", "synchronization"), ("VariableDef", "aggregation")}
TYPE_ENUM, TYPE_INT32 = 14, 5


def _repeated(field):
    """Whether a field is repeated (newer protobuf dropped FieldDescriptor.label)."""
    if hasattr(field, "is_repeated"):
        return bool(field.is_repeated)
    return field.label == field.LABEL_REPEATED


def _ours(descriptor, prefix, out):
    out[prefix] = {f.name: [f.number, f.type, _repeated(f)] for f in descriptor.fields}
    for nested in descriptor.nested_types:
        if not nested.GetOptions().map_entry:
            _ours(nested, prefix + "." + nested.name, out)


def test_fields_have_tensorflows_numbers_and_types():
    python = require_tensorflow("test_fields_have_tensorflows_numbers_and_types")
    theirs = json.loads(run_tf_script(python, "proto_fields.py").strip().splitlines()[-1])
    ours = {}
    for message in (meta_graph_pb2.MetaGraphDef, meta_graph_pb2.CollectionDef, meta_graph_pb2.TensorInfo,
                    meta_graph_pb2.SignatureDef, meta_graph_pb2.AssetFileDef, saver_pb2.SaverDef,
                    saved_model_pb2.SavedModel, meta_graph_pb2.VariableDef, meta_graph_pb2.SaveSliceInfoDef):
        _ours(message.DESCRIPTOR, message.DESCRIPTOR.name, ours)
    assert set(ours) <= set(theirs), sorted(set(ours) - set(theirs))
    for name, fields in ours.items():
        missing = set(theirs[name]) - set(fields)
        assert missing == NOT_MODELLED.get(name, set()), (name, missing)
        for field, (number, ftype, repeated) in fields.items():
            assert field in theirs[name], (name, field)
            t_number, t_type, t_repeated = theirs[name][field]
            if (name, field) in ENUM_AS_INT32:
                assert (ftype, t_type) == (TYPE_INT32, TYPE_ENUM)
                t_type = ftype
            assert [number, ftype, repeated] == [t_number, t_type, t_repeated], (name, field)


def test_fields_not_modelled_survive_a_round_trip():
    # A TF2 SavedModel holds object_graph_def (7) and stripped_op_list (2): kept as unknown
    # fields, written back whole.
    import os
    source = os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    with open(os.path.join(source, "tests", "data", "tf_saved_models", "tf2_module", "saved_model.pb"), "rb") as f:
        data = f.read()
    model = saved_model_pb2.SavedModel()
    model.ParseFromString(data)
    again = model.SerializeToString()
    assert len(again) == len(data)
    assert b"__call__" in again  # a name only the object graph and function library hold


def test_function_library_subset_has_tensorflows_numbers():
    # graph.proto models the library's parts the runtime reads, under names of its own for OpDef.
    python = require_tensorflow("test_function_library_subset_has_tensorflows_numbers")
    theirs = json.loads(run_tf_script(python, "proto_fields.py").strip().splitlines()[-1])
    pairs = {"FunctionDefLibrary": graph_pb2.FunctionDefLibrary, "FunctionDef": graph_pb2.FunctionDef,
             "OpDef": graph_pb2.FunctionSignature, "OpDef.ArgDef": graph_pb2.FunctionArg,
             "NameAttrList": graph_pb2.NameAttrList}
    for tf_name, message in pairs.items():
        for f in message.DESCRIPTOR.fields:
            assert f.name in theirs[tf_name], (tf_name, f.name)
            assert [f.number, f.type, _repeated(f)] == theirs[tf_name][f.name], (tf_name, f.name)
    # The wrappers read GraphDef.library (2) and AttrValue.func (10).
    assert function_pb2.GraphDefLibrary.DESCRIPTOR.fields_by_name["library"].number == theirs["GraphDef"]["library"][0]
    assert function_pb2.AttrValueFunc.DESCRIPTOR.fields_by_name["func"].number == theirs["AttrValue"]["func"][0]
    assert graph_pb2.GraphDef.DESCRIPTOR.fields_by_name["library"].number == theirs["GraphDef"]["library"][0]
    assert graph_pb2.AttrValue.DESCRIPTOR.fields_by_name["func"].number == theirs["AttrValue"]["func"][0]
