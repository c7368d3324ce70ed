"""`tw freeze` (src/graph/freeze_graph, tools/tw_freeze.cc) through the real binary: graphs
trained here and by TensorFlow, frozen, reloaded and compared bit for bit with the live
session (ours) or with TensorFlow's own frozen graph (tests/data/tf_freeze, written by
generate.py there); the frozen files decoded with tensorweave.proto.graph_pb2."""
import os
import subprocess

import numpy as np
import pytest

import tensorweave as tf
from tensorweave import _core
from tensorweave.proto import graph_pb2
from tf_peer import BUILD_DIR

TW = os.path.join(BUILD_DIR, "tools", "tw")
DATA = os.path.join(os.environ.get("TW_SOURCE_DIR", os.path.join(BUILD_DIR, "..")), "tests", "data", "tf_freeze")
VARIABLE_OPS = {"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp", "Assign", "AssignVariableOp",
                "SaveV2", "RestoreV2", "NoOp"}
COMPUTE_OPS = {"Placeholder", "Identity", "MatMul", "AddV2", "Add", "Relu", "BiasAdd"}


def tw(*args):
    return subprocess.run([TW, *args], capture_output=True, text=True, timeout=120)


def graph_bytes(graph):
    gd = graph.as_graph_def()
    return gd if isinstance(gd, bytes) else gd.SerializeToString()


def decode(path):
    gd = graph_pb2.GraphDef()
    with open(path, "rb") as f:
        gd.ParseFromString(f.read())
    return gd


def check_frozen(gd, n_consts):
    """Every node a Const or a compute op, no device, the variables' Consts there."""
    ops = [n.op for n in gd.node]
    assert not VARIABLE_OPS & set(ops), ops
    assert set(ops) <= COMPUTE_OPS | {"Const"}, ops
    assert ops.count("Const") == n_consts
    assert all(n.device == "" for n in gd.node)


def run_frozen(path, x):
    g = tf.Graph()
    with g.as_default():
        with open(path, "rb") as f:
            g.import_graph_def(f.read())
        with tf.Session(graph=g) as sess:
            return sess.run("output:0", feed_dict={"x:0": x})


def train_here(tmp_path):
    """A resource-variable MLP trained by us, saved with tf.train.Saver; the live output."""
    rng = np.random.default_rng(3)
    x_train = rng.normal(size=(8, 3)).astype(np.float32)
    y_train = rng.normal(size=(8, 2)).astype(np.float32)
    x_eval = rng.normal(size=(5, 3)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 2], name="y")
        w1 = tf.Variable(rng.normal(size=(3, 4)).astype(np.float32), name="w1")
        b1 = tf.Variable(np.zeros(4, np.float32), name="b1")
        w2 = tf.Variable(rng.normal(size=(4, 2)).astype(np.float32), name="w2")
        b2 = tf.Variable(np.zeros(2, np.float32), name="b2")
        hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
        out = tf.identity(tf.matmul(hidden, w2) + b2, name="output")
        loss = tf.reduce_mean(tf.square(out - y))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(4):
                sess.run(train, {x: x_train, y: y_train})
            prefix = saver.save(sess, str(tmp_path / "model.ckpt"))
            live = sess.run(out, {x: x_eval})
    graph_path = tmp_path / "graph.pb"
    graph_path.write_bytes(graph_bytes(g))
    return graph_path, prefix, x_eval, live


def test_resource_variables_trained_here_round_trip(tmp_path):
    graph_path, prefix, x_eval, live = train_here(tmp_path)
    out = tmp_path / "frozen.pb"
    r = tw("freeze", "--input_graph", str(graph_path), "--input_checkpoint", prefix,
           "--output_node_names", "output", "--output_graph", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "Converted 4 variables to const ops."
    gd = decode(out)
    check_frozen(gd, 4)
    np.testing.assert_array_equal(run_frozen(out, x_eval), live)


@pytest.mark.parametrize("name", ["ref_mlp", "res_mlp"])
def test_tensorflow_graph_and_checkpoint_match_tensorflows_freeze(tmp_path, name):
    data = np.load(os.path.join(DATA, name + ".npz"))
    out = tmp_path / "frozen.pb"
    r = tw("freeze", "--input_graph", os.path.join(DATA, name + ".pb"), "--input_binary",
           "--input_checkpoint", os.path.join(DATA, name + "_ckpt", "model.ckpt"),
           "--output_node_names", "output", "--output_graph", str(out))
    assert r.returncode == 0, r.stderr
    ours, theirs = decode(out), decode(os.path.join(DATA, name + "_frozen_tf.pb"))
    check_frozen(ours, 4)
    # The same nodes as TensorFlow's freeze kept, of the same ops, holding the same values.
    assert sorted((n.name, n.op) for n in ours.node) == sorted((n.name, n.op) for n in theirs.node)
    tf_consts = {n.name: n.attr["value"].tensor for n in theirs.node if n.op == "Const"}
    for n in ours.node:
        if n.op == "Const":
            a = _core_tensor_values(n.attr["value"].tensor)
            b = _core_tensor_values(tf_consts[n.name])
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(run_frozen(out, data["x"]), data["output"])


def _core_tensor_values(proto):
    """A TensorProto's values decoded here (tensor_content or the typed fields)."""
    dtype = {1: np.float32, 2: np.float64, 3: np.int32, 9: np.int64}[proto.dtype]
    shape = tuple(d.size for d in proto.tensor_shape.dim)
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=dtype).reshape(shape)
    field = {np.float32: proto.float_val, np.float64: proto.double_val, np.int32: proto.int_val,
             np.int64: proto.int64_val}[dtype]
    values = np.array(list(field), dtype=dtype)
    if values.size <= 1:  # one value (or none: zeros) fills the shape, as TensorFlow writes it
        return np.full(shape, values[0] if values.size else 0, dtype)
    return values.reshape(shape)


def test_reference_variables_trained_here_round_trip(tmp_path):
    """TensorFlow's reference-variable MLP graph, trained again by our engine (its own train op
    and Saver ops), then frozen from the checkpoint our engine wrote."""
    data = np.load(os.path.join(DATA, "ref_mlp.npz"))
    with open(os.path.join(DATA, "ref_mlp.pb"), "rb") as f:
        graph_def = f.read()
    prefix = str(tmp_path / "model.ckpt")
    g = tf.Graph()
    with g.as_default():
        g.import_graph_def(graph_def)
        with tf.Session(graph=g) as sess:
            sess.run("init")
            for _ in range(int(data["steps"]) + 2):
                sess.run("train", {"x:0": data["train_x"], "y:0": data["train_y"]})
            sess.run("save/control_dependency:0", {"save/Const:0": prefix})
            live = sess.run("output:0", {"x:0": data["x"]})
    out = tmp_path / "frozen.pb"
    r = tw("freeze", "--input_graph", os.path.join(DATA, "ref_mlp.pb"), "--input_checkpoint", prefix,
           "--output_node_names", "output", "--output_graph", str(out))
    assert r.returncode == 0, r.stderr
    gd = decode(out)
    check_frozen(gd, 4)
    assert {n.name for n in gd.node if n.op == "Const"} == {"w1", "b1", "w2", "b2"}
    np.testing.assert_array_equal(run_frozen(out, data["x"]), live)
    assert not np.array_equal(live, data["output"])  # trained further than TensorFlow did


def test_meta_graph_and_saved_model_inputs(tmp_path):
    data = np.load(os.path.join(DATA, "res_mlp.npz"))
    for args in (["--input_meta_graph", os.path.join(DATA, "res_mlp_ckpt", "model.ckpt.meta"),
                  "--input_checkpoint", os.path.join(DATA, "res_mlp_ckpt", "model.ckpt")],
                 ["--input_saved_model_dir", os.path.join(DATA, "res_mlp_saved_model"), "--saved_model_tags", "serve"]):
        out = tmp_path / "frozen.pb"
        r = tw("freeze", *args, "--output_node_names", "output", "--output_graph", str(out))
        assert r.returncode == 0, r.stderr
        check_frozen(decode(out), 4)
        np.testing.assert_array_equal(run_frozen(out, data["x"]), data["output"])


def test_whitelist_blacklist_and_devices(tmp_path):
    graph = os.path.join(DATA, "res_mlp.pb")
    ckpt = os.path.join(DATA, "res_mlp_ckpt", "model.ckpt")
    out = tmp_path / "frozen.pb"
    r = tw("freeze", "--input_graph", graph, "--input_checkpoint", ckpt, "--output_node_names", "output",
           "--output_graph", str(out), "--variable_names_blacklist", "w1,b2")
    assert r.returncode == 0, r.stderr
    nodes = decode(out).node
    ops = {n.name: n.op for n in nodes}
    assert (ops["w1"], ops["b2"], ops["w2"], ops["b1"]) == ("VarHandleOp", "VarHandleOp", "Const", "Const")
    # Reads of the kept handles stay reads; those of the frozen ones became Identities.
    assert {n.input[0] for n in nodes if n.op == "ReadVariableOp"} == {"w1", "b2"}
    assert {"w2", "b1"} <= {n.input[0] for n in nodes if n.op == "Identity"}
    r = tw("freeze", "--input_graph", graph, "--input_checkpoint", ckpt, "--output_node_names", "output",
           "--output_graph", str(out), "--variable_names_whitelist", "w2")
    assert r.returncode == 0, r.stderr
    consts = {n.name for n in decode(out).node if n.op == "Const"}
    assert consts == {"w2"}
    # The Python entry point (for convert_variables_to_constants) keeps devices unless asked.
    gd = graph_pb2.GraphDef()
    gd.ParseFromString(open(graph, "rb").read())
    for n in gd.node:
        n.device = "/device:CPU:0"
    values = {name: np.full(shape, 0.5, np.float32) for name, shape in
              (("w1", (3, 4)), ("b1", (4,)), ("w2", (4, 2)), ("b2", (2,)))}
    frozen = graph_pb2.GraphDef()
    frozen.ParseFromString(_core.freeze_graph_def(gd.SerializeToString(), values, ["output"]))
    assert {n.device for n in frozen.node if n.op != "Const"} == {"/device:CPU:0"}
    frozen.ParseFromString(_core.freeze_graph_def(gd.SerializeToString(), values, ["output"], clear_devices=True))
    assert {n.device for n in frozen.node} == {""}
    with pytest.raises(Exception, match="variable 'w1': no value was given for it"):
        _core.freeze_graph_def(gd.SerializeToString(), {}, ["output"])
    with pytest.raises(Exception, match="variable 'w1' has shape \\[3,4\\] but its value has \\[2\\]"):
        _core.freeze_graph_def(gd.SerializeToString(), dict(values, w1=np.zeros(2, np.float32)), ["output"])


def test_errors_name_what_is_wrong(tmp_path):
    graph = os.path.join(DATA, "ref_mlp.pb")
    ckpt = os.path.join(DATA, "ref_mlp_ckpt", "model.ckpt")
    out = str(tmp_path / "frozen.pb")
    cases = [
        (["--input_graph", graph, "--input_checkpoint", ckpt, "--output_node_names", "output,nope"],
         "tw freeze: output node 'nope' is not in the graph"),
        (["--input_graph", str(tmp_path / "missing.pb"), "--input_checkpoint", ckpt, "--output_node_names", "output"],
         f"tw freeze: cannot open '{tmp_path / 'missing.pb'}'"),
        (["--input_graph", graph, "--input_checkpoint", str(tmp_path / "none"), "--output_node_names", "output"],
         f"tw freeze: no checkpoint at '{tmp_path / 'none'}' (neither {tmp_path / 'none'}.index nor "
         f"{tmp_path / 'none'} exists)"),
        (["--input_graph", graph, "--input_checkpoint", ckpt], "tw freeze: --output_node_names is required"),
    ]
    # A checkpoint lacking one of the variables: the other model's, written without b2.
    partial = tmp_path / "partial.ckpt"
    g = tf.Graph()
    with g.as_default():
        keep = [tf.Variable(np.zeros((3, 4), np.float32), name=n) for n in ("w1",)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver(keep).save(sess, str(partial))
    cases.append((["--input_graph", graph, "--input_checkpoint", str(partial), "--output_node_names", "output"],
                  "tw freeze: variable 'b1': checkpoint '" + str(partial) + "' has no tensor 'b1'"))
    truncated = tmp_path / "truncated.pb"
    truncated.write_bytes(open(graph, "rb").read()[:777])
    cases.append((["--input_graph", str(truncated), "--input_binary", "--input_checkpoint", ckpt,
                   "--output_node_names", "output"],
                  f"tw freeze: {truncated}: not a valid binary GraphDef (truncated or not a GraphDef)"))
    for args, message in cases:
        r = tw("freeze", *args, "--output_graph", out)
        assert r.returncode != 0, args
        assert r.stderr.splitlines() == [message], r.stderr
        assert "Traceback" not in r.stderr and r.returncode in (1, 2)


def test_help():
    r = tw("freeze", "--help")
    assert r.returncode == 0
    for flag in ("--input_graph", "--input_checkpoint", "--output_node_names", "--output_graph",
                 "--input_saved_model_dir", "--saved_model_tags", "--input_meta_graph", "--clear_devices",
                 "--variable_names_whitelist", "--variable_names_blacklist", "--input_binary"):
        assert flag in r.stdout, flag


@pytest.mark.parametrize("name,outputs", [("tf2_module", ["y"]), ("tf2_two_heads", ["logits", "scaled"])])
def test_tf2_saved_model_functions_inlined_and_frozen(tmp_path, name, outputs):
    """A TF2 SavedModel: its calls inlined, variables found by their object-based checkpoint
    keys; output k>0 of the call is kept as "<call>/_output_k"."""
    expected = np.load(os.path.join(os.path.dirname(DATA), "tf_saved_models", "expected.npz"))
    out = tmp_path / "frozen.pb"
    r = tw("freeze", "--input_saved_model_dir", os.path.join(os.path.dirname(DATA), "tf_saved_models", name),
           "--output_node_names", "StatefulPartitionedCall", "--output_graph", str(out))
    assert r.returncode == 0, r.stderr
    gd = decode(out)
    ops = {n.op for n in gd.node}
    assert not ops & {"VarHandleOp", "ReadVariableOp", "StatefulPartitionedCall", "PartitionedCall", "RestoreV2"}, ops
    g = tf.Graph()
    with g.as_default():
        g.import_graph_def(out.read_bytes())
        with tf.Session(graph=g) as sess:
            fetches = ["StatefulPartitionedCall:0"] + [f"StatefulPartitionedCall/_output_{k}:0"
                                                        for k in range(1, len(outputs))]
            got = sess.run(fetches, feed_dict={"serving_default_x:0": expected[f"{name}/x"]})
    for key, value in zip(outputs, got):
        np.testing.assert_allclose(value, expected[f"{name}/{key}"], rtol=1e-6, atol=1e-6)


def test_text_output_and_deterministic_bytes(tmp_path):
    from google.protobuf import text_format
    args = ["--input_graph", os.path.join(DATA, "ref_mlp.pb"), "--input_checkpoint",
            os.path.join(DATA, "ref_mlp_ckpt", "model.ckpt"), "--output_node_names", "output"]
    outs = [tmp_path / "a.pb", tmp_path / "b.pb", tmp_path / "c.pbtxt"]
    for out in outs:
        r = tw("freeze", *args, "--output_graph", str(out))
        assert r.returncode == 0, r.stderr
    assert outs[0].read_bytes() == outs[1].read_bytes()
    from_text = text_format.Parse(outs[2].read_text(), graph_pb2.GraphDef())
    assert from_text == decode(outs[0])
    data = np.load(os.path.join(DATA, "ref_mlp.npz"))
    np.testing.assert_array_equal(run_frozen(outs[0], data["x"]), data["output"])


@pytest.mark.parametrize("name,feeds,fetches", [("builder", {"x": "x:0"}, {"y": "y:0", "total": "total:0"}),
                                                ("simple", {"a": "a:0", "b": "b:0"}, {"out": "out:0"})])
def test_tf1_saved_models_frozen(tmp_path, name, feeds, fetches):
    expected = np.load(os.path.join(os.path.dirname(DATA), "tf_saved_models", "expected.npz"))
    out = tmp_path / "frozen.pb"
    r = tw("freeze", "--input_saved_model_dir", os.path.join(os.path.dirname(DATA), "tf_saved_models", name),
           "--output_node_names", ",".join(t.split(":")[0] for t in fetches.values()), "--output_graph", str(out))
    assert r.returncode == 0, r.stderr
    assert not {n.op for n in decode(out).node} & {"VarHandleOp", "ReadVariableOp", "VariableV2", "RestoreV2"}
    g = tf.Graph()
    with g.as_default():
        g.import_graph_def(out.read_bytes())
        with tf.Session(graph=g) as sess:
            got = sess.run(list(fetches.values()), {t: expected[f"{name}/{k}"] for k, t in feeds.items()})
    for key, value in zip(fetches, got):
        np.testing.assert_allclose(value, expected[f"{name}/{key}"], rtol=1e-6, atol=1e-6)


def test_our_frozen_graphs_run_in_tensorflow(tmp_path):
    """The frozen files `tw freeze` writes are TensorFlow's format: TensorFlow imports and runs
    them and computes what its own frozen graphs compute."""
    from tf_peer import require_tensorflow, run_tf_script
    python = require_tensorflow("test_tw_freeze")
    items = []
    for name in ("ref_mlp", "res_mlp"):
        out = tmp_path / f"{name}.pb"
        r = tw("freeze", "--input_graph", os.path.join(DATA, name + ".pb"), "--input_checkpoint",
               os.path.join(DATA, name + "_ckpt", "model.ckpt"), "--output_node_names", "output",
               "--output_graph", str(out))
        assert r.returncode == 0, r.stderr
        items.append(f"{out}={os.path.join(DATA, name + '.npz')}")
    run_tf_script(python, "run_frozen.py", str(tmp_path / "tf_out.npz"), *items)
    got = np.load(tmp_path / "tf_out.npz")
    for name in ("ref_mlp", "res_mlp"):
        np.testing.assert_array_equal(got[str(tmp_path / f"{name}.pb")], np.load(os.path.join(DATA, name + ".npz"))["output"])


def test_checkpoint_directory_means_its_latest_checkpoint(tmp_path):
    import shutil
    src = os.path.join(DATA, "ref_mlp_ckpt")
    ckpt_dir = tmp_path / "ckpt"
    shutil.copytree(src, ckpt_dir)
    args = ["--input_graph", os.path.join(DATA, "ref_mlp.pb"), "--input_checkpoint", str(ckpt_dir),
            "--output_node_names", "output", "--output_graph", str(tmp_path / "f.pb")]
    r = tw("freeze", *args)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [f"tw freeze: '{ckpt_dir}' has no checkpoint state file ({ckpt_dir}/checkpoint)"]
    (ckpt_dir / "checkpoint").write_text('model_checkpoint_path: "model.ckpt"\nall_model_checkpoint_paths: "model.ckpt"\n')
    r = tw("freeze", *args)
    assert r.returncode == 0, r.stderr
    data = np.load(os.path.join(DATA, "ref_mlp.npz"))
    np.testing.assert_array_equal(run_frozen(tmp_path / "f.pb", data["x"]), data["output"])
