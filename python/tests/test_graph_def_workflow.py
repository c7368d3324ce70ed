"""The GraphDef workflow against TensorFlow (tf_side/graph_def_workflow.py): message bytes
interchange, tf.import_graph_def (prefixes, input_map, return_elements, errors),
write_graph files, make_tensor_proto / make_ndarray, Graph.as_graph_def and get_attr."""
import base64
import json
import subprocess
import sys

import numpy as np
import pytest
from google.protobuf import text_format
from google.protobuf.message import DecodeError

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

GRAPH_TEXT = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }
                                            float_val: 1 float_val: 2 float_val: 3 float_val: 4.5 } } } }
node { name: "y" op: "MatMul" input: "x" input: "w" input: "^w" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "transpose_a" value { b: false } } attr { key: "transpose_b" value { b: false } }
       attr { key: "_class" value { list { s: "loc:@w" } } } }
node { name: "z" op: "Neg" input: "y" device: "/device:CPU:0" attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: 27 }
"""
MISSING_INPUT = GRAPH_TEXT.replace('input: "y"', 'input: "nope"')
DUPLICATE = GRAPH_TEXT + 'node { name: "x" op: "NoOp" }'
UNKNOWN_OP = GRAPH_TEXT.replace('op: "Neg"', 'op: "Frobnicate"')

IMPORTS = [
    {"return_elements": ["z:0", "y"], "node_defs": ["import/y", "import/z"]},
    {"times": 2, "return_elements": ["z:0"]},
    {"name": "", "times": 2, "return_elements": ["z:0", "x"]},
    {"name": "model", "input_map_consts": {"x:0": [[1.0, 2.0]]}, "return_elements": ["z:0"]},
    {"name": "model", "input_map_consts": {"x": [[1.0, 2.0]]}, "return_elements": ["x:0", "y:0"]},
    {"input_map_names": {"^w": "existing:0"}, "return_elements": ["y"], "node_defs": ["import/y"]},
    {"input_map_names": {"^w": "existing"}, "return_elements": ["y"]},
    {"device": "/job:ps/task:1", "node_defs": ["import/x", "import/y", "import/z"]},
    {"under_control": True, "node_defs": ["import/x", "import/y", "import/z"]},
    {"input_map_consts": {"q:0": 1.0}},
    {"return_elements": ["nope:0"]},
    {"return_elements": ["nope"]},
    {"return_elements": ["z:3"]},
]
ERROR_IMPORTS = [MISSING_INPUT, DUPLICATE]

TENSORS = [
    {"values": 1.5}, {"values": 3}, {"values": [1, 2, 3]}, {"values": [[1.0, 2.0], [3.0, 4.5]]},
    {"values": [1.25, -2.5], "numpy": "float64"}, {"values": [7, -8], "numpy": "int64"},
    {"values": [1, 2, 250], "numpy": "uint8"}, {"values": [-3, 4], "numpy": "int16"},
    {"values": [-3, 4], "numpy": "int8"}, {"values": [3, 60000], "numpy": "uint16"},
    {"values": [0.5, -1.25, 3.0], "numpy": "float16"}, {"values": 2.5, "numpy": "float16"},
    {"values": [True, False]}, {"values": True}, {"values": ["a", "bc"], "bytes": True},
    {"values": "hi"}, {"values": 0.5, "shape": [2, 3]}, {"values": [1, 2], "shape": [4]},
    {"values": 5, "dtype": "int64"}, {"values": [1, 2], "dtype": "float32"}, {"values": [], "shape": [0, 3],
                                                                           "dtype": "float32"},
    {"values": [[1, 2, 3]], "shape": [3], "dtype": "int32"},
]


def _configs():
    """Session option messages with fields set at every level, as (TF class name, message)."""
    config = tf.ConfigProto(allow_soft_placement=True, device_count={"CPU": 2, "GPU": 0},
                            device_filters=["/job:ps", "/job:worker/task:1"], operation_timeout_in_ms=1500,
                            inter_op_parallelism_threads=3, gpu_options=tf.GPUOptions(allow_growth=True,
                                                                                        visible_device_list="0"),
                            graph_options=tf.GraphOptions(optimizer_options=tf.OptimizerOptions(
                                opt_level=tf.OptimizerOptions.L0, do_constant_folding=True)),
                            session_inter_op_thread_pool=[tf.ThreadPoolOptionProto(num_threads=2)])
    config.experimental.collective_group_leader = "/job:chief"
    return [("ConfigProto", config), ("RunOptions", tf.RunOptions(timeout_in_ms=250, trace_level=3)),
            ("GPUOptions", tf.GPUOptions(per_process_gpu_memory_fraction=0.5)), ("RunMetadata", tf.RunMetadata())]


# (op, attr) pairs covering every attr kind: string, int, float, bool, type, shape,
# tensor, and lists of ints, types, shapes and strings.
ATTRS = [("x", "dtype"), ("x", "shape"), ("w", "value"), ("conv", "strides"), ("conv", "padding"),
         ("conv", "use_cudnn_on_gpu"), ("idn", "T"), ("idn", "_class"), ("unstack", "num"), ("unstack", "axis"),
         ("cs", "exclusive"), ("q", "component_types"), ("q", "shapes"), ("q", "capacity"), ("join", "separator"),
         ("lrelu", "alpha")]


def _attr_graph():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 4, 4, 2], name="x")
        w = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3), name="w")
        tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME", name="conv")
        with tf.colocate_with(w):
            tf.identity_n([x, w], name="idn")
        tf.unstack(tf.constant([[1, 2], [3, 4]]), axis=1, name="unstack")
        tf.cumsum(tf.constant([1.0, 2.0]), exclusive=True, name="cs")
        tf.FIFOQueue(3, [tf.float32, tf.int32], shapes=[[2], []], name="q")
        tf.strings.join(["a", "b"], separator="-", name="join")
        tf.nn.leaky_relu(tf.constant([1.0]), alpha=0.25, name="lrelu")
    return g


def _normalized(value):
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    if isinstance(value, tf.DType):
        return "dtype:" + value.name
    if hasattr(value, "SerializeToString"):
        return "proto:" + base64.b64encode(value.SerializeToString(deterministic=True)).decode()
    if isinstance(value, bytes):
        return "bytes:" + value.decode("latin-1")
    return value


def _graph_def(text=GRAPH_TEXT):
    gd = tf.GraphDef()
    text_format.Merge(text, gd)
    return gd


def _b64(gd):
    return base64.b64encode(gd.SerializeToString()).decode()


@pytest.fixture(scope="module")
def tf_answer(tmp_path_factory):
    python = require_tensorflow("test_graph_def_workflow")
    tmp = tmp_path_factory.mktemp("gdw")
    cases = [dict(c) for c in IMPORTS] + [{"graph_def": _b64(_graph_def(t))} for t in ERROR_IMPORTS]
    request = {"graph_def": _b64(_graph_def()), "imports": cases, "write_dir": str(tmp / "tf"),
               "tensors": TENSORS,
               "configs": [[kind, base64.b64encode(m.SerializeToString()).decode()] for kind, m in _configs()],
               "attrs": {"graph_def": _b64(_attr_graph().as_graph_def()), "wanted": ATTRS}}
    (tmp / "request.json").write_text(json.dumps(request))
    run_tf_script(python, "graph_def_workflow.py", str(tmp / "request.json"), str(tmp / "answer.json"))
    answer = json.loads((tmp / "answer.json").read_text())
    answer["dir"] = tmp
    return answer


def _element_name(e):
    return e.name if isinstance(e, tf.Tensor) else "op:" + e.name


def _import_case(gd, case):
    with tf.Graph().as_default() as g:
        tf.constant(1.0, name="existing")
        existing = {op.name for op in g.get_operations()}
        for _ in range(case.get("times", 1) - 1):
            tf.import_graph_def(gd, name=case.get("name"))
        input_map = {k: g.as_graph_element(v) for k, v in case.get("input_map_names", {}).items()}
        for k, v in case.get("input_map_consts", {}).items():
            input_map[k] = tf.constant(v, name="mapped")
        try:
            controls = [g.get_operation_by_name("existing")] if case.get("under_control") else []
            with tf.device(case.get("device")), tf.control_dependencies(controls):
                r = tf.import_graph_def(gd, input_map=input_map or None, return_elements=case.get("return_elements"),
                                        name=case.get("name"))
        except Exception as e:  # noqa: BLE001 - compared with TF's
            return {"error": type(e).__name__, "message": str(e)}
        ops = [op.name for op in g.get_operations() if op.name not in existing]
        node_defs = {op.name: op.node_def for op in g.get_operations() if op.name in case.get("node_defs", [])}
        return {"returned": None if r is None else [_element_name(e) for e in r], "ops": ops, "node_defs": node_defs}


def test_messages_interchange_bytes_and_text_with_tensorflow(tf_answer):
    ours = _graph_def()
    assert base64.b64decode(tf_answer["reserialized"]) == ours.SerializeToString(deterministic=True)
    back = tf.GraphDef()
    back.ParseFromString(base64.b64decode(tf_answer["reserialized"]))
    assert back == ours
    assert text_format.MessageToString(ours) == tf_answer["text"]
    # The module paths TF programs import the classes from.
    from tensorweave.core.framework import attr_value_pb2, graph_pb2, node_def_pb2, tensor_pb2, types_pb2
    from tensorweave.core.protobuf import config_pb2, meta_graph_pb2, saver_pb2
    from tensorweave.core.util import event_pb2
    assert graph_pb2.GraphDef is tf.GraphDef and node_def_pb2.NodeDef is tf.NodeDef
    assert attr_value_pb2.AttrValue is tf.AttrValue and tensor_pb2.TensorProto is tf.TensorProto
    assert types_pb2.DT_FLOAT == 1 and types_pb2.DT_STRING == 7
    assert config_pb2.ConfigProto is tf.ConfigProto and meta_graph_pb2.MetaGraphDef is tf.MetaGraphDef
    assert saver_pb2.SaverDef.V2 == 2 and event_pb2.Event is tf.Event and tf.SessionLog and tf.HistogramProto
    from tensorweave.proto import graph_pb2 as our_graph_pb2
    assert attr_value_pb2.NameAttrList is our_graph_pb2.NameAttrList
    attrs = tf.NameAttrList(name="f")
    attrs.attr["T"].type = types_pb2.DT_FLOAT
    assert tf.NameAttrList.FromString(attrs.SerializeToString()) == attrs


def test_get_attr_returns_what_tensorflow_returns(tf_answer):
    g = _attr_graph()
    got = [_normalized(g.get_operation_by_name(op).get_attr(attr)) for op, attr in ATTRS]
    for (op, attr), mine, theirs in zip(ATTRS, got, tf_answer["attrs"]):
        if isinstance(theirs, float):
            assert mine == pytest.approx(theirs), (op, attr)
        else:
            assert mine == theirs, (op, attr)


def test_session_options_serialize_as_tensorflows(tf_answer):
    from tensorweave.core.protobuf import config_pb2
    assert config_pb2.ConfigProto is tf.ConfigProto
    for (kind, ours), (theirs, text) in zip(_configs(), tf_answer["configs"]):
        assert ours.SerializeToString(deterministic=True) == base64.b64decode(theirs), kind
        back = getattr(tf, kind).FromString(base64.b64decode(theirs))
        assert back == ours, (kind, text)
    assert "collective_group_leader" in tf_answer["configs"][0][1]


@pytest.mark.parametrize("index", range(len(IMPORTS) + len(ERROR_IMPORTS)))
def test_import_graph_def_as_tensorflow(tf_answer, index):
    expected = tf_answer["imports"][index]
    if index < len(IMPORTS):
        case, gd = IMPORTS[index], _graph_def()
    else:
        case, gd = {}, _graph_def(ERROR_IMPORTS[index - len(IMPORTS)])
    got = _import_case(gd, case)
    if "error" in expected:
        assert got.get("error") == expected["error"] and got["message"] == expected["message"], (got, expected)
        return
    assert got["returned"] == expected["returned"]
    assert sorted(got["ops"]) == sorted(expected["ops"])
    for name, b64 in expected["node_defs"].items():
        theirs = tf.NodeDef.FromString(base64.b64decode(b64))
        mine = got["node_defs"][name]
        assert list(mine.input) == list(theirs.input)
        assert mine.attr["_class"] == theirs.attr["_class"]
        assert mine.device == theirs.device  # y: colocated with w, so w's device, as TF


def test_import_values_and_errors_tensorflow_cannot_share():
    gd = _graph_def()
    with tf.Graph().as_default():
        new_input = tf.placeholder(tf.float32, [None, 2], name="raw") * 2.0
        z, = tf.import_graph_def(gd.SerializeToString(), input_map={"x:0": new_input}, return_elements=["z:0"])
        with tf.Session() as sess:
            got = sess.run(z, {"raw:0": [[1.0, -1.0]]})
    np.testing.assert_allclose(got, -np.array([[2.0, -2.0]]) @ np.array([[1, 2], [3, 4.5]]))
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.NotFoundError, match="Op type not registered 'Frobnicate'"):
            tf.import_graph_def(_graph_def(UNKNOWN_OP))
        with pytest.raises(ValueError, match=r"import(_\d+)?/y"):  # TF: "Input 0 of node import/y was passed int32 ..."
            tf.import_graph_def(gd, input_map={"x:0": tf.constant([[1, 2]])})
        assert not [op.name for op in tf.get_default_graph().get_operations() if op.name.startswith("import")]
        with pytest.raises(TypeError, match="GraphDef"):
            tf.import_graph_def("not a graph")
        with tf.Graph().as_default():
            foreign = tf.constant([[1.0, 2.0]], name="x")
        with pytest.raises(ValueError, match="not an element of this graph"):
            tf.import_graph_def(gd, input_map={"x:0": foreign})


def test_import_applies_device_scopes_as_tensorflow():
    # TF 2.20 gives: import/x '/job:ps/task:1', import/z '/job:ps/task:1/device:CPU:0' (the
    # node's own device kept, the scope filling the rest), f/* '/job:fn' (a function replaces).
    gd = _graph_def()
    with tf.Graph().as_default() as g:
        with tf.device("/job:ps/task:1"):
            tf.import_graph_def(gd)
        with tf.device(lambda op: "/job:fn" if op.type != "Const" else None):
            tf.import_graph_def(gd, name="f")
        devices = {op.name: op.device for op in g.get_operations()}
    assert devices["import/x"] == "/job:ps/task:1"
    assert devices["import/z"] == "/job:ps/task:1/device:CPU:0"
    assert devices["import/y"] == devices["import/w"] == "/job:ps/task:1"  # y: colocated with w
    assert devices["f/x"] == devices["f/z"] == "/job:fn" and devices["f/w"] == ""


def test_import_under_control_dependencies_as_tensorflow():
    # TF 2.20 gives every imported op the open control dependencies: import/x and import/y
    # both run after c; none inside an init scope (control_dependencies(None)).
    gd = _graph_def()
    with tf.Graph().as_default() as g:
        c = tf.no_op(name="c")
        with tf.control_dependencies([c]):
            tf.import_graph_def(gd)
            with tf.control_dependencies(None):
                tf.import_graph_def(gd, name="free")
        controls = {op.name: [i.name for i in op.control_inputs] for op in g.get_operations()}
    assert controls["import/x"] == ["c"] and controls["import/z"] == ["c"]
    assert sorted(controls["import/y"]) == ["c", "import/w"]
    assert controls["free/x"] == [] and controls["free/z"] == []


def test_bad_files_get_clear_errors():
    data = _graph_def().SerializeToString()
    for bad in (data[:-7], b"\xff\xff\xff\xff garbage"):
        with pytest.raises(DecodeError):
            tf.GraphDef().ParseFromString(bad)
        with pytest.raises(DecodeError):
            tf.import_graph_def(bad)
    with pytest.raises(text_format.ParseError, match="^3:10 : "):
        text_format.Merge('node { name: "x"\n op: "Placeholder"\n  attr { kex: "dtype" } }', tf.GraphDef())


def test_write_graph_writes_what_tensorflow_writes(tf_answer, tmp_path):
    gd = _graph_def()
    for name, as_text in (("tf.pbtxt", True), ("tf.pb", False)):
        path = tf.train.write_graph(gd, str(tmp_path / "ours" / "sub"), name, as_text=as_text)
        assert path == str(tmp_path / "ours" / "sub" / name)
        with open(path, "rb") as mine, open(tf_answer["dir"] / "tf" / name, "rb") as theirs:
            assert mine.read() == theirs.read(), name
    assert tf.io.write_graph is tf.train.write_graph


@pytest.mark.parametrize("index", range(len(TENSORS)))
def test_make_tensor_proto_and_make_ndarray_as_tensorflow(tf_answer, index):
    case, expected = TENSORS[index], tf_answer["tensors"][index]
    values = case["values"]
    if case.get("numpy"):
        values = np.array(values, dtype=case["numpy"])
    if case.get("bytes"):
        values = [v.encode() for v in values]
    proto = tf.make_tensor_proto(values, dtype=case.get("dtype"), shape=case.get("shape"))
    assert proto.SerializeToString(deterministic=True) == base64.b64decode(expected["proto"])
    array = tf.make_ndarray(tf.TensorProto.FromString(base64.b64decode(expected["proto"])))
    assert str(array.dtype) == expected["dtype"] and list(array.shape) == expected["shape"]
    value = [v.decode("latin-1") for v in array.ravel()] if array.dtype == object else array.ravel().tolist()
    assert value == expected["value"]


def test_as_graph_def_node_def_and_get_attr():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.reduce_sum(tf.nn.relu(x), axis=[1], keepdims=True, name="y")
        s = tf.strings.join(["a", "b"], separator="-", name="s")
    gd = g.as_graph_def()
    assert isinstance(gd, tf.GraphDef) and [n.name for n in gd.node][:1] == ["x"]
    assert g.version == len(gd.node) and len(g.as_graph_def(from_version=1).node) == len(gd.node) - 1
    shaped = {n.name: n for n in g.as_graph_def(add_shapes=True).node}
    assert [d.size for d in shaped["y"].attr["_output_shapes"].list.shape[0].dim] == [-1, 1]
    assert y.op.node_def.op == "Sum" and y.op.type == "Sum"
    assert x.op.get_attr("dtype") == tf.float32 and [d.size for d in x.op.get_attr("shape").dim] == [-1, 3]
    assert y.op.get_attr("keep_dims") is True and s.op.get_attr("separator") == b"-"
    with pytest.raises(ValueError, match="has no attr named 'nope'"):
        x.op.get_attr("nope")
    with tf.Session(graph=g) as sess:
        assert sess.graph_def == g.as_graph_def()
    bad_attr = tf.GraphDef()
    text_format.Merge('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }'
                      'node { name: "y" op: "Neg" input: "x" }', bad_attr)
    with tf.Graph().as_default():  # TF: "NodeDef missing attr 'T' from Op<name=Neg; ...>; NodeDef: {{node import/y}}"
        with pytest.raises(ValueError, match=r"node 'import/y' \(Neg\): missing attr 'T'"):
            tf.import_graph_def(bad_attr)
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(gd, name="m")
        assert g2.get_tensor_by_name("m/y:0").shape.as_list() == [None, 1]
        assert g2.get_operation_by_name("m/x").type == "Placeholder"


if __name__ == "__main__":
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", __file__]))
