"""Writes the tf.train.Example fixture of this folder with real TensorFlow, for
python/tests/test_parse_example_files.py.

    $(scripts/tf_env.sh) tests/data/tf_examples/generate.py
examples.tfrecord: Examples built with TensorFlow's tf.train.Example and written with
tf.io.TFRecordWriter. features.json: the feature specs to parse them with.
expected.npz: what tf.compat.v1.parse_example made of them (<key>.dense, or <key>.indices,
<key>.values, <key>.dense_shape; string values hex-encoded). parse_graph.pb / .json: that
parse as a TensorFlow GraphDef (a ParseExampleV2 node) and its tensor names.
MANIFEST.txt: the versions.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
FEATURES = {
    "label": {"kind": "fixed", "dtype": "int64", "shape": []},
    "pixels": {"kind": "fixed", "dtype": "float32", "shape": [2, 2]},
    "weight": {"kind": "fixed", "dtype": "float32", "shape": [], "default": 1.0},
    "name": {"kind": "fixed", "dtype": "string", "shape": [], "default": b"anon".hex()},
    "tags": {"kind": "varlen", "dtype": "string"},
    "ids": {"kind": "varlen", "dtype": "int64"},
    "scores": {"kind": "varlen", "dtype": "float32"},
    "frames": {"kind": "seq", "dtype": "float32", "shape": [3]},
}


def spec(s):
    dtype = {"float32": tf.float32, "int64": tf.int64, "string": tf.string}[s["dtype"]]
    default = s.get("default")
    if dtype == tf.string and default is not None:
        default = bytes.fromhex(default)
    if s["kind"] == "varlen":
        return tf.io.VarLenFeature(dtype)
    if s["kind"] == "fixed":
        return tf.io.FixedLenFeature(s["shape"], dtype, default_value=default)
    return tf.io.FixedLenSequenceFeature(s["shape"], dtype, allow_missing=True)


def example(i):
    f = {
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i - 3])),
        "pixels": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.25, -i, 1e-3 * i, 2.0 ** i])),
        "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"t%d" % j for j in range(i % 4)])),
        "frames": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5 * j for j in range(3 * (i % 3))])),
    }
    if i % 2:
        f["weight"] = tf.train.Feature(float_list=tf.train.FloatList(value=[0.1 * i]))
        f["ids"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[2**40 + i, -i]))
    if i % 3 == 0:
        f["name"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[("n\u00e9%d" % i).encode()]))
        f["scores"] = tf.train.Feature(float_list=tf.train.FloatList(value=[]))
    return tf.train.Example(features=tf.train.Features(feature=f))


def write_parse_graph():
    """parse_graph.pb: the GraphDef of TF 2.x's tf.compat.v1.parse_example (a ParseExampleV2
    node) on a fed string vector; parse_graph.json: the feed's and each output's names."""
    with tf.compat.v1.Graph().as_default() as g:
        serialized = tf.compat.v1.placeholder(tf.string, [None], name="serialized")
        out = tf.compat.v1.parse_example(serialized, {k: spec(s) for k, s in FEATURES.items()})
        names = {}
        for key, v in out.items():
            parts = {"indices": v.indices, "values": v.values, "dense_shape": v.dense_shape} \
                if hasattr(v, "indices") else {"dense": v}
            names.update({f"{key}.{part}": t.name for part, t in parts.items()})
        with open(os.path.join(HERE, "parse_graph.pb"), "wb") as f:
            f.write(g.as_graph_def().SerializeToString())
    with open(os.path.join(HERE, "parse_graph.json"), "w") as f:
        json.dump({"feed": serialized.name, "fetches": names}, f, indent=1, sort_keys=True)
        f.write("\n")


def main():
    records = [example(i).SerializeToString() for i in range(7)]
    with tf.io.TFRecordWriter(os.path.join(HERE, "examples.tfrecord")) as w:
        for r in records:
            w.write(r)
    with open(os.path.join(HERE, "features.json"), "w") as f:
        json.dump(FEATURES, f, indent=1, sort_keys=True)
        f.write("\n")
    tf.compat.v1.disable_eager_execution()
    with tf.compat.v1.Graph().as_default():
        out = tf.compat.v1.parse_example(tf.constant(records), {k: spec(s) for k, s in FEATURES.items()})
        with tf.compat.v1.Session() as sess:
            values = sess.run(out)
    arrays = {}
    for key, v in values.items():
        parts = {"indices": v.indices, "values": v.values, "dense_shape": v.dense_shape} if hasattr(v, "indices") \
            else {"dense": v}
        for part, a in parts.items():
            a = np.asarray(a)
            if a.dtype.kind in "OS":
                a = np.array([bytes(x).hex() for x in a.ravel()], dtype=str).reshape(a.shape)
            arrays[f"{key}.{part}"] = a
    np.savez(os.path.join(HERE, "expected.npz"), **arrays)
    write_parse_graph()
    with open(os.path.join(HERE, "MANIFEST.txt"), "w") as f:
        f.write(f"written by TensorFlow {tf.__version__} (tensorflow-cpu from PyPI: tf.train.Example,\n"
                f"tf.io.TFRecordWriter, tf.compat.v1.parse_example), Python {sys.version.split()[0]},\n"
                f"NumPy {np.__version__}, with generate.py of this folder.\n")


if __name__ == "__main__":
    main()
