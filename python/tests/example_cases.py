"""Shared by test_parse_example*.py: random tf.train.Examples built with our message
classes, the feature specs as the TensorFlow side (tf_side/parse_examples.py) reads them,
and our parse of the same bytes encoded as that script encodes TensorFlow's."""
import json

import numpy as np

import tensorweave as tf
from tf_peer import run_tf_script

DTYPES = {"float32": tf.float32, "int64": tf.int64, "string": tf.string}
# Edge values that must come through exactly: signed zero, a denormal, extremes.
FLOATS = [0.0, -0.0, 1.5, -2.25, 1e-40, 3.4028235e38, -1.1754944e-38, 0.1]
INTS = [0, 1, -1, 2**63 - 1, -2**63, 123456789012]
BYTES = [b"", b"a", b"\x00\xff", "\u00e9t\u00e9".encode(), b"x" * 40]


def random_values(rng, dtype, n):
    pool = {"float32": FLOATS, "int64": INTS, "string": BYTES}[dtype]
    return [pool[i] for i in rng.integers(0, len(pool), size=n)]


def make_feature(dtype, values):
    if dtype == "float32":
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    if dtype == "int64":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))


def make_example(features):
    """features: {key: (dtype, values)}."""
    return tf.train.Example(features=tf.train.Features(
        feature={k: make_feature(d, v) for k, (d, v) in features.items()})).SerializeToString()


def spec_object(spec):
    dtype = DTYPES[spec["dtype"]]
    default = spec.get("default")
    if spec["dtype"] == "string" and default is not None:
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


def run_ours(case, records):
    """Our result for one case, in tf_side/parse_examples.py's encoding."""
    with tf.Graph().as_default():
        features = {k: spec_object(s) for k, s in case["features"].items()}
        if case["mode"] == "single":
            out = tf.parse_single_example(tf.constant(records[0], dtype=tf.string), features)
        else:
            serialized = tf.constant(np.array(records, dtype=object).reshape([len(records)]), dtype=tf.string)
            out = tf.parse_example(serialized, features, example_names=case.get("names"))
        with tf.Session() as sess:
            try:
                values = sess.run(out)
            except tf.errors.OpError as e:
                return {"ok": False, "class": type(e).__name__, "message": e.message}
    result = {}
    for key, v in values.items():
        if isinstance(v, tf.SparseTensorValue):
            result[key] = {"indices": encode(v.indices), "values": encode(v.values),
                           "dense_shape": encode(v.dense_shape)}
        else:
            result[key] = {"dense": encode(v)}
    return {"ok": True, "outputs": result}


def run_tf(python, tmp_path, cases):
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    run_tf_script(python, "parse_examples.py", str(tmp_path / "cases.json"), str(tmp_path / "tf_out.json"))
    return json.loads((tmp_path / "tf_out.json").read_text())


def error_text(message):
    """Our message without the node prefix the executor adds ("node 'x' (Op): ")."""
    import re
    return re.sub(r"^node '[^']*' \([^)]*\): ", "", message)
