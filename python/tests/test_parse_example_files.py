"""tf.train.Example records both ways: what real TensorFlow wrote (tests/data/tf_examples/)
read with our tf_record_iterator and parsed by our ParseExample, equal to what TensorFlow
parsed; and Examples built with our tf.train classes, written with our TFRecordWriter, read
and parsed by TensorFlow (tf.data.TFRecordDataset + parse_example), equal to ours."""
import json
import os

import numpy as np

import tensorweave as tf
from example_cases import make_example, random_values, run_ours, run_tf
from tf_peer import require_tensorflow, run_tf_script

SOURCE_DIR = os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURE_DIR = os.path.join(SOURCE_DIR, "tests", "data", "tf_examples")


def load_fixture():
    records = list(tf.python_io.tf_record_iterator(os.path.join(FIXTURE_DIR, "examples.tfrecord")))
    with open(os.path.join(FIXTURE_DIR, "features.json")) as f:
        features = json.load(f)
    return records, features, np.load(os.path.join(FIXTURE_DIR, "expected.npz"))


def test_parses_what_tensorflow_wrote():
    records, features, expected = load_fixture()
    assert len(records) == 7
    ours = run_ours({"mode": "batch", "features": features}, records)
    assert ours["ok"], ours
    seen = set()
    for key, parts in ours["outputs"].items():
        for part, got in parts.items():
            want = expected[f"{key}.{part}"]
            seen.add(f"{key}.{part}")
            assert got["shape"] == list(want.shape), (key, part)
            if got["dtype"] == "string":
                assert got["values"] == want.ravel().tolist(), (key, part)
            else:
                assert got["dtype"] == str(want.dtype), (key, part)
                assert np.array_equal(np.array(got["values"], dtype=want.dtype), want.ravel()), (key, part)
    assert seen == set(expected.files)


def test_our_example_class_reads_tensorflow_records():
    records, _, expected = load_fixture()
    labels = [tf.train.Example.FromString(r).features.feature["label"].int64_list.value[0] for r in records]
    assert labels == expected["label.dense"].tolist()
    first = tf.train.Example()
    first.ParseFromString(records[0])
    assert list(first.features.feature["pixels"].float_list.value) == expected["pixels.dense"][0].ravel().tolist()


FEATURES = {
    "x": {"kind": "fixed", "dtype": "float32", "shape": [2]},
    "y": {"kind": "fixed", "dtype": "int64", "shape": [], "default": 0},
    "words": {"kind": "varlen", "dtype": "string"},
    "nums": {"kind": "varlen", "dtype": "int64"},
    "steps": {"kind": "seq", "dtype": "float32", "shape": [1]},
}


def test_tensorflow_parses_what_we_write(tmp_path):
    python = require_tensorflow("test_tensorflow_parses_what_we_write")
    rng = np.random.default_rng(7)
    records = []
    for i in range(6):
        features = {"x": ("float32", random_values(rng, "float32", 2)),
                    "words": ("string", random_values(rng, "string", i % 4)),
                    "steps": ("float32", random_values(rng, "float32", i))}
        if i % 2:
            features["y"] = ("int64", random_values(rng, "int64", 1))
            features["nums"] = ("int64", random_values(rng, "int64", 3))
        records.append(make_example(features))
    path = tmp_path / "ours.tfrecord"
    with tf.python_io.TFRecordWriter(str(path)) as writer:
        for r in records:
            writer.write(r)
    case = {"mode": "batch", "tfrecord": str(path), "features": FEATURES}
    theirs = run_tf(python, tmp_path, [case])[0]
    assert theirs["ok"], theirs
    ours = run_ours(case, records)
    assert ours == theirs
    assert theirs["outputs"]["x"]["dense"]["shape"] == [6, 2]
    assert theirs["outputs"]["steps"]["dense"]["shape"] == [6, 5, 1]
    assert theirs["outputs"]["nums"]["values"]["shape"] == [9]  # the three int64 lists of the odd examples


def test_tensorflow_parse_graph_runs_here():
    """TF 2.x's tf.compat.v1.parse_example graph (a ParseExampleV2 node), imported and run
    on the fixture's records, gives what TensorFlow parsed."""
    records, _, expected = load_fixture()
    with open(os.path.join(FIXTURE_DIR, "parse_graph.json")) as f:
        names = json.load(f)
    g = tf.Graph()
    with open(os.path.join(FIXTURE_DIR, "parse_graph.pb"), "rb") as f:
        g.import_graph_def(f.read())
    assert g.get_operation_by_name("ParseExample/ParseExampleV2").type == "ParseExampleV2"
    keys = sorted(names["fetches"])
    assert set(keys) == set(expected.files)
    with tf.Session(graph=g) as sess:
        values = sess.run([g.get_tensor_by_name(names["fetches"][k]) for k in keys],
                          {g.get_tensor_by_name(names["feed"]): np.array(records, dtype=object)})
    for key, got in zip(keys, values):
        want = expected[key]
        if want.dtype.kind == "U":  # strings are stored hex-encoded
            got = np.array([bytes(x).hex() for x in got.ravel()], dtype=str).reshape(got.shape)
        assert got.shape == want.shape and np.array_equal(got, want), key


def test_tensorflow_runs_our_parse_graph(tmp_path):
    """Our GraphDef with ParseExample, ParseSingleExample and SparseToDense nodes, imported
    by TensorFlow (tf.import_graph_def, via tf_side/run_graphdefs.py), computes what we do."""
    python = require_tensorflow("test_tensorflow_runs_our_parse_graph")
    records = [make_example({"x": ("float32", [1.5, -2.0]), "n": ("int64", [3, 4, 5]), "q": ("float32", [1.0])}),
               make_example({"x": ("float32", [0.25, 8.0]), "y": ("int64", [9])})]
    features = {"x": tf.io.FixedLenFeature([2], tf.float32), "y": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
                "n": tf.io.VarLenFeature(tf.int64), "q": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}
    g = tf.Graph()
    with g.as_default():
        batch = tf.parse_example(tf.constant(np.array(records, dtype=object)), features)
        single = tf.parse_single_example(tf.constant(records[0]), features)
        fetches = {"x": batch["x"], "y": batch["y"], "q": batch["q"], "n_indices": batch["n"].indices,
                   "n_dense": tf.sparse.to_dense(batch["n"], default_value=-7), "single_x": single["x"],
                   "single_n": single["n"].values, "single_shape": single["n"].dense_shape}
        named = {k: tf.identity(v, name=k) for k, v in fetches.items()}
    assert {op.type for op in g.get_operations()} >= {"ParseExample", "ParseSingleExample", "SparseToDense"}
    with open(tmp_path / "parse.pb", "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    with tf.Session(graph=g) as sess:
        ours = dict(zip(named, sess.run(list(named.values()))))
    np.savez(tmp_path / "parse.npz", **{f"fetch:{k}:0": np.zeros(0) for k in named})
    run_tf_script(python, "run_graphdefs.py", str(tmp_path), "parse")
    theirs = np.load(tmp_path / "parse.tf.npz")
    for key, value in ours.items():
        want = theirs[f"{key}:0"]
        assert want.dtype == value.dtype and want.shape == value.shape and np.array_equal(want, value), key
    assert ours["n_dense"].tolist() == [[3, 4, 5], [-7, -7, -7]]
