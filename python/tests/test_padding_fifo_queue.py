"""tf.PaddingFIFOQueue (PaddingFIFOQueueV2) and tf.train.batch(dynamic_pad=True) against
TensorFlow (TW_TF_PYTHON): the same program on both sides; padded batches (zeros, "" for
strings), dequeue_up_to on a closed queue, static shapes and the failures must agree."""
import json
import subprocess

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, tf_env

PROGRAM = r"""
def run(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as sess:
        q = tf.PaddingFIFOQueue(10, [tf.int32, tf.string, tf.float32], shapes=[[None, 2], [None], []])
        sess.run(q.enqueue([[[1, 2]], ["a"], 0.5]))
        sess.run(q.enqueue([[[3, 4], [5, 6], [7, 8]], ["b", "c"], 1.5]))
        sess.run(q.enqueue_many([np.array([[[1, 1]], [[2, 2]]], np.int32), [["x"], ["y"]], [2.5, 3.5]]))
        ints, strs, floats = sess.run(q.dequeue_many(3))
        out["many"] = [ints.tolist(), [s.decode() for s in strs.ravel()], list(strs.shape), floats.tolist()]
        sess.run(q.enqueue([[[9, 9], [9, 9]], ["d", "e", "f"], 4.5]))
        sess.run(q.close())
        ints, strs, floats = sess.run(q.dequeue_up_to(5))
        out["up_to"] = [ints.tolist(), [s.decode() for s in strs.ravel()], list(strs.shape), floats.tolist()]
        d = q.dequeue_many(2)
        out["static"] = [t.shape.as_list() for t in d]
        try:
            sess.run(d)
        except tf.errors.OutOfRangeError as e:
            out["closed_error"] = "OutOfRangeError"
        bad = tf.PaddingFIFOQueue(3, [tf.int32], shapes=[[None, 2]])
        try:
            bad.enqueue([[[1, 2, 3]]])
        except ValueError as e:
            out["static_error"] = str(e)
        fed = tf.placeholder(tf.int32, [None, None])
        try:
            sess.run(bad.enqueue([fed]), {fed: [[1, 2, 3]]})
        except tf.errors.InvalidArgumentError:
            out["shape_error"] = "InvalidArgumentError"
    with tf.Graph().as_default(), tf.Session() as sess:
        i = tf.train.range_input_producer(7, shuffle=False).dequeue()
        seq = tf.range(i)
        word = tf.strings.join(["w", tf.as_string(i)])
        batch = tf.train.batch([seq, word, i], batch_size=3, dynamic_pad=True)
        out["batch_static"] = [t.shape.as_list() for t in batch]
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        out["batches"] = []
        for _ in range(3):
            s, w, n = sess.run(batch)
            out["batches"].append([s.tolist(), [x.decode() for x in w], n.tolist()])
        coord.request_stop()
        coord.join(threads)
    return out
"""

TF_SIDE = r"""
import json
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
""" + PROGRAM + r"""
print(json.dumps(run(tf)))
"""


def _ours():
    scope = {"np": np}
    exec(PROGRAM, scope)  # noqa: S102 - the same program TensorFlow runs
    return json.loads(json.dumps(scope["run"](tf)))


def test_padding_queue_and_dynamic_pad_batch_match_tensorflow():
    python = require_tensorflow("test_padding_queue_and_dynamic_pad_batch_match_tensorflow")
    done = subprocess.run([python, "-c", TF_SIDE], env=tf_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    ours = _ours()
    assert ours["many"] == theirs["many"]
    assert ours["up_to"] == theirs["up_to"]
    assert ours["closed_error"] == theirs["closed_error"] == "OutOfRangeError"
    assert ours["shape_error"] == theirs["shape_error"] == "InvalidArgumentError"
    assert ours["static_error"] == theirs["static_error"] == "Shapes (1, 3) and (None, 2) are incompatible"
    assert ours["batches"] == theirs["batches"]
    # Static shapes: TF knows [2, None, 2]; ours at least the rank and the known dims.
    for mine, want in zip(ours["static"] + ours["batch_static"], theirs["static"] + theirs["batch_static"]):
        assert len(mine) == len(want) and all(m in (w, None) for m, w in zip(mine, want)), (mine, want)


def test_values_and_errors_without_tensorflow():
    ours = _ours()
    assert ours["many"][0] == [[[1, 2], [0, 0], [0, 0]], [[3, 4], [5, 6], [7, 8]], [[1, 1], [0, 0], [0, 0]]]
    assert ours["many"][1] == ["a", "", "b", "c", "x", ""] and ours["many"][2] == [3, 2]
    assert ours["batches"][0] == [[[0, 0], [0, 0], [0, 1]], ["w0", "w1", "w2"], [0, 1, 2]]
    with pytest.raises(ValueError, match="Shapes must be provided for all components, but received 2 dtypes and 1 "
                                         "shapes."):
        tf.PaddingFIFOQueue(3, [tf.int32, tf.int32], shapes=[[None]])
    with tf.Graph().as_default(), tf.Session() as sess:
        q = tf.PaddingFIFOQueue(3, [tf.int32], shapes=[[None, 2]])
        fed = tf.placeholder(tf.int32, [None, None])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"PaddingFIFOQueue '.*' has shape \[\?,2\] but "
                                                                 r"was given \[1,3\]"):
            sess.run(q.enqueue([fed]), {fed: [[1, 2, 3]]})
        with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
            tf.train.batch([tf.placeholder(tf.int32)], 2, dynamic_pad=True)
