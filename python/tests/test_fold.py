"""tf.foldl / tf.foldr / tf.scan / tf.map_fn against TensorFlow: values and gradients (nested structures, with and
without initializer)."""
import json
import time

import numpy as np
import pytest

import tensorweave as tf
from fold_programs import build
from tf_peer import require_tensorflow, run_tf_script


def test_fold_values_and_gradients_match_tensorflow():
    python = require_tensorflow("test_fold_values_and_gradients_match_tensorflow")
    theirs = json.loads(run_tf_script(python, "fold_programs.py").strip().splitlines()[-1])
    with tf.Graph().as_default():
        fetches = build(tf)
        with tf.Session() as sess:
            ours = sess.run(fetches)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, np.array(t), rtol=1e-9, atol=1e-12)


def test_fold_rejects_a_function_that_is_not_callable():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="fn must be callable."):
            tf.foldl(3, tf.constant([1.0]))


def test_map_fn_and_scan_over_zero_one_and_four_rows_match_tensorflow():
    # On TensorArrays, as TF1's: zero rows give [0, ...] results of fn's static shape.
    from fold_programs import EMPTY_FEEDS, build_empty
    python = require_tensorflow("test_map_fn_and_scan_over_zero_one_and_four_rows_match_tensorflow")
    theirs = json.loads(run_tf_script(python, "fold_programs.py", "empty").strip().splitlines()[-1])
    with tf.Graph().as_default():
        rows, fetches = build_empty(tf)
        static = [None if f.shape.dims is None else list(f.shape.dims) for f in fetches]
        with tf.Session() as sess:
            for key, value in EMPTY_FEEDS.items():
                got = sess.run(fetches, {rows: value})
                assert len(theirs[key]) == len(fetches) - (key == "0")
                for o, (t_value, t_shape, t_static), s in zip(got, theirs[key], static):
                    assert list(np.shape(o)) == t_shape, key
                    assert s == t_static, key
                    np.testing.assert_allclose(o, np.array(t_value).reshape(t_shape), rtol=1e-12, atol=1e-14)
            # Ours knows the rows' shape at run time, so zero rows have a (zero) gradient too.
            np.testing.assert_array_equal(sess.run(fetches[-1], {rows: EMPTY_FEEDS["0"]}), np.zeros([0, 2]))


def test_scan_takes_linear_time():
    # A select per step made scan O(n^2); with TensorArrays 20,000 steps take well under a second.
    with tf.Graph().as_default():
        rows = tf.placeholder(tf.float32, [None, 4])
        out = tf.scan(lambda acc, x: acc * 0.5 + x, rows)
        grad = tf.gradients(tf.reduce_sum(out), rows)[0]
        with tf.Session() as sess:
            sess.run([out, grad], {rows: np.ones([3, 4], np.float32)})
            start = time.time()
            value, g = sess.run([out, grad], {rows: np.ones([20000, 4], np.float32)})
            elapsed = time.time() - start
    np.testing.assert_allclose(value[-1], np.full(4, 2.0), rtol=1e-5)
    np.testing.assert_allclose(g[0], np.full(4, 2.0), rtol=1e-5)
    assert elapsed < 10.0, elapsed
