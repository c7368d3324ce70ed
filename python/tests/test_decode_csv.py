"""DecodeCSV (tf.io.decode_csv / tf.decode_csv) against TensorFlow: the same records, defaults
and attrs run on both sides (TensorFlow out of process, TW_TF_PYTHON); values, dtypes, shapes
and the error texts of bad records and bad attrs must agree."""
import json
import subprocess

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, tf_env

# (records, defaults as [dtype, values] ([] = required), attrs)
CASES = [
    (["1,2.5,\"a,b\",x", "3,,\"q\"\"r\",", "-7,1e3,plain,"], [["int32", [0]], ["float32", [9.0]],
                                                          ["string", ["d"]], ["string", ["e"]]], {}),
    (["NA,2,NA", "4,NA,z"], [["int64", [-1]], ["float64", [0.5]], ["string", ["dflt"]]], {"na_value": "NA"}),
    (["a;b;c;d;e", "f;g;h;i;j"], [["string", []], ["string", []]], {"field_delim": ";", "select_cols": [1, 3]}),
    (["10\t\"x\"\t3"], [["int32", []], ["string", []], ["int64", []]], {"field_delim": "\t",
                                                                      "use_quote_delim": False}),
    ([" 7 , 8.25 ,9223372036854775807"], [["int32", []], ["float64", []], ["int64", []]], {}),
    ([["1,2", "3,4"], ["5,6", "7,8"]], [["float32", []], ["int32", []]], {}),
    (["x,1", "y,2"], [["string", []]], {"select_cols": [0]}),
    (["\r\n1,2"], [["int32", []], ["int32", []]], {}),  # CR/LF before a field is skipped...
    ([], [["int32", [0]]], {}),
    # Bad records: each fails with TensorFlow's text.
    (["1,2,3\r\n"], [["int32", []], ["int32", []], ["int32", []]], {}),  # ...inside one it is an error
    (["1,2"], [["int32", []], ["int32", []], ["int32", []]], {}),
    (["1,,3"], [["int32", []], ["int32", []], ["int32", []]], {}),
    (["1,x"], [["int32", []], ["int32", []]], {}),
    (["1.5x"], [["float32", []]], {}),
    (["2147483648"], [["int32", []]], {}),
    (["\"ab\"c\",1"], [["string", []], ["int32", []]], {}),
    (["\"abc,1"], [["string", []], ["int32", []]], {}),
    (["a\"b,1"], [["string", []], ["int32", []]], {}),
    (["1,2"], [["int32", []], ["int32", []]], {"field_delim": "ab"}),
    (["1,2"], [["int32", []], ["int32", []]], {"select_cols": [1, 1]}),
]


def _defaults(spec, module):
    return [module.constant(values, dtype=getattr(module, dtype)) for dtype, values in spec]


TF_SIDE = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
out = []
for records, spec, attrs in json.loads(sys.stdin.read()):
    with tf.Graph().as_default(), tf.Session() as sess:
        try:
            defaults = [tf.constant(v, dtype=getattr(tf, d)) for d, v in spec]
            got = sess.run(tf.io.decode_csv(tf.constant(records, dtype=tf.string, shape=np.shape(records)),
                                            defaults, **attrs))
            out.append({"values": [v.tolist() if v.dtype != object else [x.decode() for x in v.ravel()]
                                   for v in got], "shapes": [list(v.shape) for v in got],
                        "dtypes": [str(v.dtype) for v in got]})
        except Exception as e:
            out.append({"error": type(e).__name__, "message": str(e)})
print(json.dumps(out))
"""


def _ours(records, spec, attrs):
    with tf.Graph().as_default(), tf.Session() as sess:
        try:
            got = sess.run(tf.io.decode_csv(tf.constant(records, dtype=tf.string, shape=np.shape(records)),
                                            _defaults(spec, tf), **attrs))
            return {"values": [v.tolist() if v.dtype != object else [x.decode() for x in v.ravel()] for v in got],
                    "shapes": [list(v.shape) for v in got], "dtypes": [str(v.dtype) for v in got]}
        except Exception as e:  # noqa: BLE001 - compared with TensorFlow's
            # Our errors name the node first ("node 'DecodeCSV' (DecodeCSV): ..."); TF's wrap the kernel's text.
            return {"error": type(e).__name__, "message": str(e).split("(DecodeCSV): ")[-1]}


def test_decode_csv_matches_tensorflow():
    python = require_tensorflow("test_decode_csv_matches_tensorflow")
    done = subprocess.run([python, "-c", TF_SIDE], input=json.dumps(CASES), env=tf_env(), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    errors = 0
    for case, want in zip(CASES, theirs):
        got = _ours(*case)
        if "error" in want:
            errors += 1
            assert "error" in got, (case, got, want)
            assert got["message"] in want["message"], (case, got, want)
            assert got["error"] == want["error"], (case, got, want)
        else:
            assert got == want, case
    assert errors == 11


def test_values_shapes_and_errors_without_tensorflow():
    with tf.Graph().as_default(), tf.Session() as sess:
        a, b, c = tf.decode_csv([["1,\"x,y\",", "2,z,w"]], [[0], [""], ["dflt"]])
        assert a.shape.as_list() == [1, 2] and b.dtype == tf.string
        va, vb, vc = sess.run([a, b, c])
        assert va.tolist() == [[1, 2]] and vb.tolist() == [[b"x,y", b"z"]] and vc.tolist() == [[b"dflt", b"w"]]
        [x] = tf.decode_csv(["1.5"], [tf.constant([], tf.float64)])
        assert sess.run(x).tolist() == [1.5] and x.dtype == tf.float64
        [bad] = tf.decode_csv(["1,2"], [[0]])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 1 fields but have 2 in record 0"):
            sess.run(bad)
    with pytest.raises(ValueError, match="Length of select_cols and record_defaults do not match."):
        tf.decode_csv(["1"], [[0], [0]], select_cols=[0])
    with pytest.raises(ValueError, match="select_cols is not strictly increasing."):
        tf.decode_csv(["1"], [[0], [0]], select_cols=[1, 0])
    with pytest.raises(ValueError, match="select_cols contains negative values."):
        tf.decode_csv(["1"], [[0]], select_cols=[-1])
    with tf.Graph().as_default():
        with pytest.raises(Exception, match="Shape of a default must be a length-0 or length-1 vector, or a scalar."):
            tf.decode_csv(["1"], [[0, 1]])
        with pytest.raises(Exception, match="Shape must be at most rank 1 but is rank 2"):
            tf.decode_csv(["1"], [[[0]]])


def test_decode_csv_has_no_gradient_as_in_tensorflow():
    # TensorFlow registers no gradient for DecodeCSV: tf.gradients raises LookupError there.
    # Ours fails too, naming the op.
    with tf.Graph().as_default():
        default = tf.placeholder(tf.float32, [1])
        [col] = tf.decode_csv(["1.5"], [default])
        with pytest.raises(Exception, match="DecodeCSV"):
            tf.gradients(col, [default])
