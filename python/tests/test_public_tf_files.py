"""Files real TensorFlow wrote for other public projects (tests/data/public_tf_files/, the
README there names each origin, commit, licence and writer): training GraphDefs with TF1
reference variables, V2 checkpoints, MetaGraphs and SavedModels, loaded as TF1 code loads
them. Expected values come from the files' own bytes: the checkpoints decoded by
public_tf_bundle (an independent reader), constants by make_ndarray, and gradient descent
replayed in NumPy; TensorFlow itself (TW_TF_PYTHON) runs the same files for the oracle test."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tensorweave as tf
from public_tf_bundle import read_bundle
from tf_peer import require_tensorflow, tf_env

SOURCE_DIR = os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(SOURCE_DIR, "tests", "data", "public_tf_files")
BUILD_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(tf.__file__))))
TW = os.path.join(BUILD_DIR, "tools", "tw")


def path(*parts):
    return os.path.join(DATA, *parts)


def test_every_file_has_its_origin_in_the_readme():
    readme = open(path("README.md")).read()
    for folder in sorted(os.listdir(DATA)):
        if os.path.isdir(path(folder)):
            assert "`%s/`" % folder in readme, folder


def _import(name):
    graph_def = tf.GraphDef()
    with open(path(name), "rb") as f:
        graph_def.ParseFromString(f.read())
    tf.import_graph_def(graph_def, name="")
    return graph_def


def _const(graph_def, name):
    [node] = [n for n in graph_def.node if n.name == name]
    return tf.make_ndarray(node.attr["value"].tensor)


def _gd_steps(w, b, x, y, lr, steps, denominator=None):
    """Plain gradient descent on mean((w x + b - y)^2) (or its sum over `denominator`)."""
    out = []
    for _ in range(steps):
        err = w * x + b - y
        scale = 2.0 / (denominator if denominator is not None else x.size)
        w, b = (w - lr * scale * np.sum(err * x)).astype(np.float32), (b - lr * scale * np.sum(err)).astype(np.float32)
        out.append((w, b))
    return out


X = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
Y = np.array([0.3, 0.5, 0.7, 0.9], np.float32)


@pytest.mark.parametrize("name", ["rust_regression_checkpoint/model.pb", "rust_regression/model.pb"])
def test_training_graph_runs_gradient_descent_as_the_graph_says(name):
    with tf.Graph().as_default() as g, tf.Session() as sess:
        graph_def = _import(name)
        ops = {n.op for n in graph_def.node}
        assert "ApplyGradientDescent" in ops and ("VariableV2" in ops or "Variable" in ops)
        lr = float(_const(graph_def, "train/learning_rate"))
        assert lr == 0.5
        sess.run("init")
        w, b = sess.run(["w:0", "b:0"])
        assert w.shape == (1,) and -1.0 <= w[0] < 1.0 and b.tolist() == [0.0]  # random_uniform(-1, 1), zeros
        for want_w, want_b in _gd_steps(w, b, X, Y, lr, 4):
            sess.run("train", {"x:0": X, "y:0": Y})
            got_w, got_b = sess.run(["w:0", "b:0"])
            np.testing.assert_allclose(got_w, want_w, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(got_b, want_b, rtol=1e-5, atol=1e-6)
        assert abs(got_w[0] - w[0]) > 1e-3  # the values moved
        # Before GraphDef version 22 an unset Placeholder shape was written as a scalar one:
        # TF reads it as unknown (this 2016 file has no versions), later files say so themselves.
        assert g.get_tensor_by_name("x:0").shape.ndims is None


def test_training_graph_saver_subgraph_writes_and_restores_a_checkpoint(tmp_path):
    prefix = str(tmp_path / "model.ckpt")
    with tf.Graph().as_default(), tf.Session() as sess:
        _import("rust_regression_checkpoint/model.pb")
        sess.run("init")
        sess.run("train", {"x:0": X, "y:0": Y})
        saved = sess.run(["w:0", "b:0"])
        # As the Rust example drives it: the filename fed to save/Const, then save or restore.
        sess.run("save/control_dependency:0", {"save/Const:0": prefix})
        sess.run("train", {"x:0": X, "y:0": Y})
        assert sess.run("w:0")[0] != saved[0][0]
        sess.run("save/restore_all", {"save/Const:0": prefix})
        np.testing.assert_array_equal(sess.run(["w:0", "b:0"]), saved)
    decoded = read_bundle(prefix)
    assert sorted(decoded) == ["b", "w"]
    np.testing.assert_array_equal(decoded["w"], saved[0])
    np.testing.assert_array_equal(decoded["b"], saved[1])


@pytest.mark.parametrize("prefix, names", [("tf2onnx_regression_checkpoint/model", ["W", "b"]),
                                           ("serving_half_plus_two_export/export", ["Variable", "Variable_1"])])
def test_checkpoint_reads_as_its_bytes_decode(prefix, names):
    decoded = read_bundle(path(prefix))
    assert sorted(decoded) == names
    reader = tf.train.NewCheckpointReader(path(prefix))
    assert reader.get_variable_to_shape_map() == {k: list(v.shape) for k, v in decoded.items()}
    for name, value in decoded.items():
        got = reader.get_tensor(name)
        assert got.dtype == value.dtype and got.shape == value.shape
        np.testing.assert_array_equal(got, value)
    assert tf.train.list_variables(path(prefix)) == sorted((k, list(v.shape)) for k, v in decoded.items())
    np.testing.assert_array_equal(tf.train.load_variable(path(prefix), names[0] + ":0"), decoded[names[0]])
    assert reader.get_variable_to_dtype_map() == {k: tf.float32 for k in names}
    with pytest.raises(tf.errors.NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    with pytest.raises(tf.errors.NotFoundError, match="Unsuccessful TensorSliceReader constructor: Failed to find "
                       "any matching files for " + path("nope")):
        tf.train.NewCheckpointReader(path("nope"))


def test_meta_graph_restores_its_checkpoint_and_trains():
    decoded = read_bundle(path("tf2onnx_regression_checkpoint", "model"))
    with tf.Graph().as_default() as g, tf.Session() as sess:
        saver = tf.train.import_meta_graph(path("tf2onnx_regression_checkpoint", "model.meta"))
        assert sorted(v.name for v in tf.global_variables()) == ["W:0", "b:0"]
        assert sorted(v.name for v in tf.trainable_variables()) == ["W:0", "b:0"]
        saver.restore(sess, tf.train.latest_checkpoint(path("tf2onnx_regression_checkpoint")))
        w, b = decoded["W"], decoded["b"]
        np.testing.assert_array_equal(sess.run(["W:0", "b:0"]), [w, b])
        np.testing.assert_allclose(sess.run("pred:0", {"X:0": X}), X * w + b, rtol=1e-6)
        [train_op] = tf.get_collection("train_op")
        assert train_op.name == "GradientDescent"
        graph_def = g.as_graph_def()
        lr = float(_const(graph_def, "GradientDescent/learning_rate"))
        denominator = float(_const(graph_def, "truediv/y"))  # the loss is sum((pred - Y)^2) / 34
        for want_w, want_b in _gd_steps(w, b, X, Y, lr, 3, denominator):
            sess.run(train_op, {"X:0": X, "Y:0": Y})
            np.testing.assert_allclose(sess.run(["W:0", "b:0"]), [want_w, want_b], rtol=1e-5)


def test_pre_1_0_meta_graph_with_v2_checkpoint():
    # TF 0.12 (GraphDef version 19): `Variable` ops, a Placeholder of no shape.
    decoded = read_bundle(path("serving_half_plus_two_export", "export"))
    with tf.Graph().as_default() as g, tf.Session() as sess:
        saver = tf.train.import_meta_graph(path("serving_half_plus_two_export", "export.meta"))
        saver.restore(sess, path("serving_half_plus_two_export", "export"))
        assert g.get_tensor_by_name("Placeholder:0").shape.ndims is None
        got = sess.run("Add:0", {"Placeholder:0": np.array([0.0, 1.0, 2.0, 5.0], np.float32)})
        np.testing.assert_allclose(got, decoded["Variable"] * np.array([0, 1, 2, 5]) + decoded["Variable_1"])
        np.testing.assert_allclose(got, [2.0, 2.5, 3.0, 4.5])


def _signature(mg, key):
    sig = mg.signature_def[key]
    return ({k: v.name for k, v in sig.inputs.items()}, {k: v.name for k, v in sig.outputs.items()})


def _example(x):
    ex = tf.train.Example()
    ex.features.feature["x"].float_list.value.append(x)
    return ex.SerializeToString()


def test_saved_model_half_plus_two_every_signature():
    decoded = read_bundle(path("serving_half_plus_two_cpu", "variables", "variables"))
    assert {k: float(v) for k, v in decoded.items()} == {"a": 0.5, "a2": 0.5, "b": 2.0, "c": 3.0, "c2": 3.0}
    x = np.array([[0.0], [1.0], [3.0]], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], path("serving_half_plus_two_cpu"))
        assert mg.meta_info_def.tensorflow_version == "1.14.0"
        assert _signature(mg, "serving_default") == ({"x": "x:0"}, {"y": "y:0"})
        np.testing.assert_allclose(sess.run("y:0", {"x:0": x}), x / 2 + 2)
        assert _signature(mg, "regress_x2_to_y3") == ({"inputs": "x2:0"}, {"outputs": "y3:0"})
        np.testing.assert_allclose(sess.run("y3:0", {"x2:0": x}), x / 2 + 3)
        # The Example signatures: serialized tf.Examples through the graph's ParseExample.
        got = sess.run("y:0", {"tf_example:0": [_example(0.0), _example(1.0), _example(3.0)]})
        np.testing.assert_allclose(got, x / 2 + 2)
        np.testing.assert_allclose(sess.run("y2:0", {"tf_example:0": [_example(4.0)]}), [[4.0 / 2 + 3]])


def test_saved_model_with_training_graph_serves_and_trains():
    export_dir = path("rust_regression_model")
    decoded = read_bundle(os.path.join(export_dir, "variables", "variables"))
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(RuntimeError, match=r"MetaGraphDef associated with tags 'serve' could not be found in "
                           r"SavedModel, with available tags '\[\{'train', 'serve'\}\]'"):
            tf.saved_model.loader.load(sess, ["serve"], export_dir)
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["train", "serve"], export_dir)
        assert mg.meta_info_def.tensorflow_version == "1.2.1"
        inputs, outputs = _signature(mg, "tensorflow/serving/regress")
        assert inputs == {"x": "x:0", "y": "y:0"} and outputs == {"out": "y_hat:0"}
        w, b = decoded["w"], decoded["b"]
        np.testing.assert_allclose(sess.run("y_hat:0", {"x:0": X}), w * X + b, rtol=1e-6)
        for want_w, want_b in _gd_steps(w, b, X, Y, 0.5, 3):
            sess.run("train", {"x:0": X, "y:0": Y})
            np.testing.assert_allclose(sess.run(["w:0", "b:0"]), [want_w, want_b], rtol=1e-5, atol=1e-6)


def test_saved_model_tf2onnx_regression():
    export_dir = path("tf2onnx_regression_saved_model")
    decoded = read_bundle(os.path.join(export_dir, "variables", "variables"))
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        assert _signature(mg, "serving_default") == ({"X": "X:0"}, {"pred": "pred:0"})
        np.testing.assert_allclose(sess.run("pred:0", {"X:0": X}), X * decoded["W"] + decoded["b"], rtol=1e-6)


def _tw_run(*args):
    done = subprocess.run([TW, "run", *args], capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_tw_run_saved_models():
    rc, out = _tw_run("--saved_model", path("serving_half_plus_two_cpu"), "--feed", "x=[[1],[2],[5]]", "--fetch", "y")
    assert rc == 0 and out.strip() == "y = float32 [3,1] [[2.5] [3] [4.5]]", out
    rc, out = _tw_run("--saved_model", path("serving_half_plus_two_cpu"), "--signature", "regress_x2_to_y3",
                      "--feed", "inputs=[[4]]", "--fetch", "outputs")
    assert rc == 0 and out.strip() == "outputs = float32 [1,1] [[5]]", out
    decoded = read_bundle(path("rust_regression_model", "variables", "variables"))
    rc, out = _tw_run("--saved_model", path("rust_regression_model"), "--tag", "train", "--tag", "serve",
                      "--signature", "tensorflow/serving/regress", "--feed", "x=[1,2]", "--feed", "y=[0,0]",
                      "--fetch", "out")
    want = decoded["w"][0] * np.array([1, 2], np.float32) + decoded["b"][0]
    assert rc == 0 and out.startswith("out = float32 [2] ["), out
    np.testing.assert_allclose([float(v) for v in out.strip().split("[")[-1].rstrip("]").split()], want, rtol=1e-5)
    rc, out = _tw_run("--saved_model", path("serving_half_plus_two_cpu"), "--feed", "x=[1,2]", "--fetch", "y")
    assert rc != 0 and "feed 'x:0' has shape [2] but the graph expects [?,1]" in out, out


TF_SIDE = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
data, x, y = sys.argv[1], np.array(json.loads(sys.argv[2]), np.float32), np.array(json.loads(sys.argv[3]), np.float32)
out = {}
with tf.Graph().as_default(), tf.Session() as sess:
    saver = tf.train.import_meta_graph(data + "/tf2onnx_regression_checkpoint/model.meta")
    saver.restore(sess, data + "/tf2onnx_regression_checkpoint/model")
    for step in range(3):
        sess.run(tf.get_collection("train_op")[0], {"X:0": x, "Y:0": y})
    out["meta"] = [float(v) for v in sess.run(["W:0", "b:0"])]
with tf.Graph().as_default(), tf.Session() as sess:
    tf.saved_model.loader.load(sess, ["train", "serve"], data + "/rust_regression_model")
    for step in range(3):
        sess.run("train", {"x:0": x, "y:0": y})
    out["rust"] = [float(v[0]) for v in sess.run(["w:0", "b:0"])]
with tf.Graph().as_default(), tf.Session() as sess:
    tf.saved_model.loader.load(sess, ["serve"], data + "/serving_half_plus_two_cpu")
    out["half"] = sess.run("y:0", {"x:0": x.reshape(-1, 1)}).ravel().tolist()
print(json.dumps(out))
"""


def test_tensorflow_gives_the_same_values_on_the_same_files():
    python = require_tensorflow("test_tensorflow_gives_the_same_values_on_the_same_files")
    done = subprocess.run([python, "-c", TF_SIDE, DATA, json.dumps(X.tolist()), json.dumps(Y.tolist())],
                          env=tf_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    want = json.loads(done.stdout.strip().splitlines()[-1])
    with tf.Graph().as_default(), tf.Session() as sess:
        saver = tf.train.import_meta_graph(path("tf2onnx_regression_checkpoint", "model.meta"))
        saver.restore(sess, path("tf2onnx_regression_checkpoint", "model"))
        for _ in range(3):
            sess.run(tf.get_collection("train_op")[0], {"X:0": X, "Y:0": Y})
        np.testing.assert_allclose(sess.run(["W:0", "b:0"]), want["meta"], rtol=1e-6)
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["train", "serve"], path("rust_regression_model"))
        for _ in range(3):
            sess.run("train", {"x:0": X, "y:0": Y})
        np.testing.assert_allclose([v[0] for v in sess.run(["w:0", "b:0"])], want["rust"], rtol=1e-6)
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["serve"], path("serving_half_plus_two_cpu"))
        np.testing.assert_allclose(sess.run("y:0", {"x:0": X.reshape(-1, 1)}).ravel(), want["half"], rtol=1e-6)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
