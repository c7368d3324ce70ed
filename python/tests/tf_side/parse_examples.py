"""TensorFlow's side of test_parse_example*.py: parses serialized tf.train.Examples with
tf.compat.v1.parse_example / parse_single_example in a graph and Session, and writes what
came out (or the error) as JSON.
    parse_examples.py CASES.json OUT.json
Each case: {"mode": "batch"|"single", "examples": [hex...] or "tfrecord": path (read with
tf.data.TFRecordDataset), "names": [..] or null, "features": {key: spec}} with spec
{"kind": "fixed"|"varlen"|"seq", "dtype", "shape", "default" (optional)}.
Each result: {"ok": true, "outputs": {key: {"dense": value} | {"indices", "values",
"dense_shape"}}} with value {"dtype", "shape", "values" (flat; strings in hex)}, or
{"ok": false, "class": the error's class name, "message": its message}."""
import json
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
DTYPES = {"float32": tf.float32, "int64": tf.int64, "string": tf.string}


def feature_spec(spec):
    dtype = DTYPES[spec["dtype"]]
    default = spec.get("default")
    if dtype == tf.string and default is not None:
        default = [bytes.fromhex(h) for h in default] if isinstance(default, list) else bytes.fromhex(default)
    if spec["kind"] == "varlen":
        return tf.io.VarLenFeature(dtype)
    if spec["kind"] == "fixed":
        return tf.io.FixedLenFeature(spec["shape"], dtype, default_value=default)
    return tf.io.FixedLenSequenceFeature(spec["shape"], dtype, allow_missing=True, default_value=default)


def encode(array):
    array = np.asarray(array)
    if array.dtype.kind in "OS":
        values = [bytes(v).hex() for v in array.ravel()]
    else:
        values = array.ravel().tolist()
    return {"dtype": "string" if array.dtype.kind in "OS" else str(array.dtype), "shape": list(array.shape),
            "values": values}


def run_case(case):
    with tf1.Graph().as_default():
        features = {k: feature_spec(s) for k, s in case["features"].items()}
        if "tfrecord" in case:  # the whole file as one batch, read in the graph
            dataset = tf.data.TFRecordDataset(case["tfrecord"]).batch(1 << 20)
            serialized = tf1.data.make_one_shot_iterator(dataset).get_next()
            out = tf1.parse_example(serialized, features)
        elif case["mode"] == "single":
            out = tf1.parse_single_example(tf1.constant(bytes.fromhex(case["examples"][0]), dtype=tf.string), features)
        else:
            records = [bytes.fromhex(h) for h in case["examples"]]
            serialized = tf1.constant(np.array(records, dtype=object), dtype=tf.string, shape=[len(records)])
            out = tf1.parse_example(serialized, features, example_names=case.get("names"))
        with tf1.Session() as sess:
            try:
                values = sess.run(out)
            except tf.errors.OpError as e:
                return {"ok": False, "class": type(e).__name__, "message": e.message}
    result = {}
    for key, v in values.items():
        if isinstance(v, tf1.SparseTensorValue):
            result[key] = {"indices": encode(v.indices), "values": encode(v.values),
                           "dense_shape": encode(v.dense_shape)}
        else:
            result[key] = {"dense": encode(v)}
    return {"ok": True, "outputs": result}


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    with open(sys.argv[2], "w") as f:
        json.dump([run_case(c) for c in cases], f)


if __name__ == "__main__":
    main()
