"""The GraphDef versions Graph.as_graph_def writes (src/graph/graph.cc): producer 134 (TF
1.15's TF_GRAPH_DEF_VERSION), min_consumer 0; TensorFlow imports and runs such a graph
without a warning or log line and computes what we compute."""
import json

import numpy as np

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script


def _graph():
    rng = np.random.RandomState(3)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        w = tf.constant(rng.normal(size=(4, 3)).astype(np.float32), name="w")
        logits = tf.nn.bias_add(tf.matmul(x, w), tf.constant([0.5, -1.0, 2.0]), name="logits")
        tf.reduce_sum(tf.nn.softmax(logits) * tf.nn.relu(logits), axis=1, name="out")
    return g, rng.normal(size=(5, 4)).astype(np.float32)


def test_as_graph_def_writes_tf_1_15_producer():
    g, _ = _graph()
    versions = g.as_graph_def().versions
    assert (versions.producer, versions.min_consumer) == (134, 0)


def test_tensorflow_imports_our_graph_without_warnings(tmp_path):
    python = require_tensorflow("test_tensorflow_imports_our_graph_without_warnings")
    g, feed = _graph()
    (tmp_path / "g.pb").write_bytes(g.as_graph_def().SerializeToString())
    np.savez(tmp_path / "feeds.npz", **{"x:0": feed})
    theirs = json.loads(run_tf_script(python, "import_versions.py", str(tmp_path / "g.pb"),
                                      str(tmp_path / "feeds.npz"), "out:0").strip().splitlines()[-1])
    assert theirs["warnings"] == [] and theirs["log"] == [], theirs
    with tf.Session(graph=g) as sess:
        ours = sess.run("out:0", {"x:0": feed})
    np.testing.assert_allclose(ours, np.array(theirs["value"], np.float32), rtol=1e-6)
