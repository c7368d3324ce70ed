"""GraphDefs written by real TensorFlow run in tensorweave and give what TensorFlow computed.

The fixtures in tests/data/tf_graphdefs/ were written by tests/data/tf_graphdefs/generate.py
with the pinned TensorFlow (its MANIFEST.txt names the version): each NAME.pb is the binary
GraphDef as TensorFlow serialized it, NAME.npz the feeds and what TensorFlow fetched. A
training graph (TensorFlow's own gradient and optimizer nodes) is run the same number of
steps first."""
import glob
import os

import numpy as np
import pytest

import tensorweave as tf

FIXTURES = os.path.join(os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                        "tests", "data", "tf_graphdefs")
NAMES = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(FIXTURES, "*.pb")))


def test_the_fixtures_are_there():
    assert NAMES == ["mlp_inference", "regression_training", "seed_238", "seed_mean"]
    assert "written by TensorFlow 2." in open(os.path.join(FIXTURES, "MANIFEST.txt")).read()


def _entries(data, prefix):
    return [(k[len(prefix):], data[k]) for k in data.files if k.startswith(prefix)]


@pytest.mark.parametrize("name", NAMES)
def test_tensorflow_graphdef_runs_with_tensorflows_results(name):
    data = np.load(os.path.join(FIXTURES, name + ".npz"))
    g = tf.Graph()
    with open(os.path.join(FIXTURES, name + ".pb"), "rb") as f:
        g.import_graph_def(f.read())
    feeds = {g.get_tensor_by_name(k): v for k, v in _entries(data, "feed:")}
    fetches = _entries(data, "fetch:")
    assert fetches, name
    with tf.Session(graph=g) as sess:
        for op, _ in _entries(data, "init:"):
            sess.run(g.get_operation_by_name(op))
        for op, steps in _entries(data, "step:"):
            for _ in range(int(steps)):
                sess.run(g.get_operation_by_name(op), feeds)
        got = sess.run([g.get_tensor_by_name(k) for k, _ in fetches], feeds)
    for (fetch, expected), value in zip(fetches, got):
        value = np.asarray(value)
        assert value.dtype == expected.dtype and value.shape == expected.shape, fetch
        if np.issubdtype(expected.dtype, np.floating):
            # Same float32 arithmetic, summed in another order: a few ulps (after 20 steps
            # of training too).
            np.testing.assert_allclose(value, expected, rtol=2e-6, atol=1e-6, err_msg=fetch)
        else:
            np.testing.assert_array_equal(value, expected, err_msg=fetch)
