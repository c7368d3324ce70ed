"""tf.graph_util against TensorFlow (tf_side/graph_util_cases.py): extract_sub_graph and
remove_training_nodes give the same GraphDefs; convert_variables_to_constants freezes
reference variables (a graph TF wrote) and resource variables into a GraphDef with no
variable ops whose output equals the live session's bit for bit."""
import base64
import json
import os

import numpy as np
import pytest
from google.protobuf import text_format

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

SOURCE = os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
REF_GRAPH = os.path.join(SOURCE, "tests", "data", "tf_ref_graphs", "linreg_gradient_descent.pb")

GRAPH_TEXT = """
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "check" op: "CheckNumerics" input: "x" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "message" value { s: "bad" } } }
node { name: "id1" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "id2" op: "Identity" input: "id1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "mul" op: "Mul" input: "id2" input: "c" input: "^check" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "gate" op: "NoOp" input: "^mul" }
node { name: "id3" op: "Identity" input: "mul" input: "^gate" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "loc" op: "Identity" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "colocated" op: "Neg" input: "loc" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "_class" value { list { s: "loc:@loc" } } } }
node { name: "out" op: "AddV2" input: "id3" input: "colocated" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "unused" op: "Neg" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: 27 }
"""

CASES = [
    {"kind": "extract", "dest": ["out"]},
    {"kind": "extract", "dest": ["mul", "unused"]},
    {"kind": "extract", "dest": ["nope"]},
    {"kind": "remove_training"},
    {"kind": "remove_training", "protected": ["id1", "check"]},
]
FREEZE = {"kind": "freeze", "init": "init", "train": "train", "steps": 3, "output": "loss",
          "feeds": {"x:0": [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], "y:0": [[1.0], [-2.0]]}}


def _graph_def(text=GRAPH_TEXT):
    gd = tf.GraphDef()
    text_format.Merge(text, gd)
    return gd


@pytest.fixture(scope="module")
def tf_answers(tmp_path_factory):
    python = require_tensorflow("test_graph_util")
    tmp = tmp_path_factory.mktemp("graph_util")
    with open(REF_GRAPH, "rb") as f:
        ref_graph = base64.b64encode(f.read()).decode()
    request = {"graph_def": base64.b64encode(_graph_def().SerializeToString()).decode(),
               "cases": CASES + [dict(FREEZE, graph_def=ref_graph)]}
    (tmp / "request.json").write_text(json.dumps(request))
    run_tf_script(python, "graph_util_cases.py", str(tmp / "request.json"), str(tmp / "answer.json"))
    return json.loads((tmp / "answer.json").read_text())


@pytest.mark.parametrize("index", range(len(CASES)))
def test_rewrites_give_tensorflows_graph_def(tf_answers, index):
    case, expected = CASES[index], tf_answers[index]
    try:
        if case["kind"] == "extract":
            got = tf.graph_util.extract_sub_graph(_graph_def(), case["dest"])
        else:
            got = tf.graph_util.remove_training_nodes(_graph_def(), case.get("protected"))
    except Exception as e:  # noqa: BLE001 - compared with TF's
        assert {"error": type(e).__name__, "message": str(e)} == expected
        return
    assert "error" not in expected, expected
    # Equal as messages (GraphDef.library, an unknown field here, included); not compared as
    # bytes, since unknown fields serialize after the known ones.
    theirs = tf.GraphDef.FromString(base64.b64decode(expected["bytes"]))
    assert got == theirs, (text_format.MessageToString(got), text_format.MessageToString(theirs))


def _frozen_is_constant_only(frozen):
    ops = {n.op for n in frozen.node}
    assert not ops & {"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp", "Assign", "AssignVariableOp"}, ops
    names = {n.name for n in frozen.node}
    for n in frozen.node:  # every input resolves inside the frozen graph
        assert all(i.lstrip("^").split(":")[0] in names for i in n.input), n.name


def test_freeze_reference_variables_as_tensorflow(tf_answers):
    expected = tf_answers[len(CASES)]
    assert "error" not in expected, expected
    gd = tf.GraphDef()
    with open(REF_GRAPH, "rb") as f:
        gd.ParseFromString(f.read())
    feeds = {k: np.array(v, np.float32) for k, v in FREEZE["feeds"].items()}
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            sess.run("init")
            for _ in range(FREEZE["steps"]):
                sess.run("train", feeds)
            live = sess.run("loss:0", feeds)
            frozen = tf.graph_util.convert_variables_to_constants(sess, gd, ["loss"])
    np.testing.assert_allclose(live, expected["live"], rtol=1e-5)  # the same training as TF's
    assert [[n.name, n.op] for n in frozen.node] == expected["nodes"]
    _frozen_is_constant_only(frozen)
    with tf.Graph().as_default():
        tf.import_graph_def(frozen, name="")
        with tf.Session() as sess:
            assert sess.run("loss:0", feeds).tobytes() == live.tobytes()


def test_freeze_resource_variables_bit_for_bit():
    rng = np.random.RandomState(5)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        w = tf.get_variable("w", initializer=rng.normal(size=(4, 3)).astype(np.float32))
        b = tf.get_variable("b", initializer=np.zeros(3, np.float32))
        probs = tf.nn.softmax(tf.matmul(x, w) + b, name="probs")
        loss = tf.reduce_mean(-tf.log(probs[:, 0]))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        feed = {x: rng.normal(size=(5, 4)).astype(np.float32)}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(4):
                sess.run(train, feed)
            live = sess.run(probs, feed)
            frozen = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["probs"])
            kept = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["probs"],
                                                                variable_names_blacklist=["b"])
            # An empty whitelist converts nothing (TF tests `name not in whitelist`).
            none = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["probs"],
                                                                variable_names_whitelist=[])
    _frozen_is_constant_only(frozen)
    by_name = {n.name: n for n in frozen.node}
    assert by_name["w"].op == "Const" and by_name["w"].attr["dtype"].type == tf.float32.as_datatype_enum
    assert [n.op for n in kept.node if n.name == "b"] == ["VarHandleOp"]
    assert sorted(n.name for n in none.node if n.op == "VarHandleOp") == ["b", "w"]
    assert "Const" not in {n.op for n in none.node if n.name in ("b", "w")}
    with tf.Graph().as_default():
        out, = tf.import_graph_def(frozen, return_elements=["probs:0"], name="frozen")
        with tf.Session() as sess:
            assert sess.run(out, {"frozen/x:0": feed[x]}).tobytes() == live.tobytes()


def test_tensor_shape_from_node_def_name_and_bad_arguments():
    with tf.Graph().as_default() as g:
        tf.placeholder(tf.float32, [None, 7], name="x")
    assert tf.graph_util.tensor_shape_from_node_def_name(g, "x").as_list() == [None, 7]
    assert tf.graph_util.tensor_shape_from_node_def_name(g, "x:0").as_list() == [None, 7]
    with pytest.raises(TypeError, match="graph_def must be a graph_pb2.GraphDef proto"):
        tf.graph_util.extract_sub_graph(b"bytes", ["x"])
    with pytest.raises(TypeError, match="dest_nodes must be an iterable of strings"):
        tf.graph_util.extract_sub_graph(_graph_def(), "out")
