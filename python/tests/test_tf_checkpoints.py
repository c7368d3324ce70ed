"""Checkpoints both ways in TensorFlow's V2 format (an .index table and a data file).

TF -> tensorweave: tests/data/tf_checkpoints/ holds a checkpoint real TensorFlow's Saver
wrote (generate.py there; MANIFEST.txt names the version); tf.train.Saver restores it into
a tensorweave graph whose variables have the same names.
tensorweave -> TF: what our Saver writes is read by tf.train.load_checkpoint and restored by
TensorFlow's Saver (a subprocess with the pinned TensorFlow), every value bit-equal."""
import os

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

SOURCE_DIR = os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURE_DIR = os.path.join(SOURCE_DIR, "tests", "data", "tf_checkpoints")


def _variables_like(values):
    return {name: tf.get_variable(name, initializer=tf.constant(np.zeros_like(v))) for name, v in values.items()}


def test_saver_restores_a_checkpoint_tensorflow_wrote():
    expected = dict(np.load(os.path.join(FIXTURE_DIR, "expected.npz")))
    assert len(expected) == 7
    variables = _variables_like(expected)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.latest_checkpoint(FIXTURE_DIR)
        assert path == os.path.join(FIXTURE_DIR, "model.ckpt-7")
        tf.train.Saver().restore(sess, path)
        for name, v in variables.items():
            got = sess.run(v)
            assert got.dtype == expected[name].dtype and got.shape == expected[name].shape, name
            np.testing.assert_array_equal(got, expected[name], err_msg=name)


def test_saver_restores_partitioned_variables_tensorflow_saved_in_slices():
    # TensorFlow saved "embedding" in 3 row blocks and "wide" in 2 column blocks, each block
    # under its own key; restored here into whole variables.
    expected = dict(np.load(os.path.join(FIXTURE_DIR, "partitioned_expected.npz")))
    variables = _variables_like(expected)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().restore(sess, os.path.join(FIXTURE_DIR, "partitioned.ckpt-1"))
        for name, v in variables.items():
            np.testing.assert_array_equal(sess.run(v), expected[name], err_msg=name)


def test_a_tensorflow_checkpoint_with_another_shape_is_refused_by_name():
    tf.get_variable("dense/kernel", initializer=tf.constant(np.zeros((3, 4), np.float32)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"tensor 'dense/kernel' has shape \[4,3\] but variable 'dense/kernel' has shape \[3,4\]"):
            tf.train.Saver().restore(sess, os.path.join(FIXTURE_DIR, "model.ckpt-7"))


def test_tensorflow_reads_and_restores_our_checkpoint(tmp_path):
    python = require_tensorflow("test_tensorflow_reads_and_restores_our_checkpoint")
    rng = np.random.default_rng(5)
    values = {
        "layer/w": rng.normal(size=(5, 2)).astype(np.float32),
        "layer/b": np.array([1e-310, -0.0, np.inf]),  # a denormal, a signed zero, infinity
        "step": np.array(123456789012, np.int64),
        "ids": np.array([-7, 2**31 - 1], np.int32),
        "flags": np.array([[False, True]]),
    }
    variables = _variables_like(values)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for name, v in values.items():
            sess.run(variables[name].assign(v))
        prefix = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"), global_step=3)
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "model.ckpt-3.data-00000-of-00001", "model.ckpt-3.index",
                                            "model.ckpt-3.meta"]  # the MetaGraph, as TF1's Saver writes
    run_tf_script(python, "checkpoint_values.py", prefix, str(tmp_path / "tf.npz"))
    theirs = np.load(tmp_path / "tf.npz")
    assert sorted(theirs.files) == sorted(["read:" + n for n in values] + ["restored:" + n for n in values])
    for name, v in values.items():
        for view in ("read", "restored"):
            got = theirs[f"{view}:{name}"]
            assert got.dtype == v.dtype and got.shape == v.shape, (view, name)
            np.testing.assert_array_equal(got, v, err_msg=f"{view} {name}")
            if v.dtype.kind == "f":
                np.testing.assert_array_equal(np.signbit(got), np.signbit(v), err_msg=f"{view} {name}")


def _string_cases():
    import sys
    from tf_peer import TF_SIDE_DIR
    sys.path.insert(0, TF_SIDE_DIR)
    import string_cases
    return string_cases


def test_string_variables_round_trip_through_our_checkpoint(tmp_path):
    cases = _string_cases()
    values = cases.checkpoint_values()
    variables = {name: tf.get_variable(name, initializer=tf.constant(v)) for name, v in values.items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = tf.train.Saver().save(sess, str(tmp_path / "s.ckpt"))
        for v in variables.values():
            sess.run(v.assign(tf.zeros_like(v) if v.dtype != tf.string else tf.fill(v.shape.as_list(), "")))
        tf.train.Saver().restore(sess, prefix)
        for name, v in variables.items():
            got = sess.run(v)
            assert cases.canonical(got) == cases.canonical(values[name]), name


def test_tensorflow_reads_our_string_checkpoint_and_we_restore_its(tmp_path):
    python = require_tensorflow("test_tensorflow_reads_our_string_checkpoint_and_we_restore_its")
    import ast
    cases = _string_cases()
    values = cases.checkpoint_values()
    variables = {name: tf.get_variable(name, initializer=tf.constant(v)) for name, v in values.items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ours = tf.train.Saver().save(sess, str(tmp_path / "ours.ckpt"))
        # TensorFlow reads ours: load_checkpoint and its Saver.
        theirs_view = ast.literal_eval(run_tf_script(python, "string_checkpoint.py", "read", ours))
        for name, v in values.items():
            assert theirs_view[name] == (cases.canonical(v), cases.canonical(v)), name
        # We restore what TensorFlow's Saver wrote.
        theirs = str(tmp_path / "theirs.ckpt")
        run_tf_script(python, "string_checkpoint.py", "write", theirs)
        for v in variables.values():
            if v.dtype == tf.string:
                sess.run(v.assign(tf.fill(v.shape.as_list(), "stale")))
        tf.train.Saver().restore(sess, theirs)
        for name, v in variables.items():
            assert cases.canonical(sess.run(v)) == cases.canonical(values[name]), name


SMALL_DTYPE_VALUES = {
    "small/i8": np.array([-128, -1, 0, 127], np.int8),
    "small/u8": np.array([[0, 1], [254, 255]], np.uint8),
    "small/i16": np.array([-32768, 12345, 32767], np.int16),
    "small/u16": np.array([0, 40000, 65535], np.uint16),
    # Half: a subnormal, a signed zero, the largest finite value, infinity and NaN.
    "small/f16": np.array([6e-8, -0.0, 65504.0, -np.inf, np.nan, 1.0009765625], np.float16),
}


def _assert_bit_equal(got, want, what):
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape)
    np.testing.assert_array_equal(got.view(f"u{want.itemsize}"), want.view(f"u{want.itemsize}"), err_msg=what)


def test_small_dtypes_in_checkpoints_both_ways(tmp_path):
    python = require_tensorflow("test_small_dtypes_in_checkpoints_both_ways")
    # Ours -> TensorFlow: tf.train.load_checkpoint reads, TensorFlow's Saver restores.
    variables = _variables_like(SMALL_DTYPE_VALUES)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for name, v in SMALL_DTYPE_VALUES.items():
            sess.run(variables[name].assign(v))
        prefix = tf.train.Saver().save(sess, str(tmp_path / "ours.ckpt"))
    run_tf_script(python, "checkpoint_values.py", prefix, str(tmp_path / "tf.npz"))
    theirs = np.load(tmp_path / "tf.npz")
    for name, v in SMALL_DTYPE_VALUES.items():
        for view in ("read", "restored"):
            _assert_bit_equal(theirs[f"{view}:{name}"], v, f"{view} {name}")
    # TensorFlow -> ours: TensorFlow's Saver writes the values negated (so nothing left over
    # from the first half can pass), ours restores them.
    negated = {name: (-v if v.dtype.kind != "u" else v[::-1].copy()) for name, v in SMALL_DTYPE_VALUES.items()}
    np.savez(tmp_path / "values.npz", **negated)
    run_tf_script(python, "write_checkpoint.py", str(tmp_path / "values.npz"), str(tmp_path / "theirs.ckpt"))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().restore(sess, str(tmp_path / "theirs.ckpt"))
        for name, v in negated.items():
            _assert_bit_equal(sess.run(variables[name]), v, f"restored {name}")


def test_checkpoint_readers_list_and_load_what_tensorflow_saved(tmp_path):
    expected = dict(np.load(os.path.join(FIXTURE_DIR, "expected.npz")))
    listed = tf.train.list_variables(FIXTURE_DIR)  # a directory: its latest checkpoint
    assert listed == sorted((name, list(v.shape)) for name, v in expected.items())
    reader = tf.train.NewCheckpointReader(os.path.join(FIXTURE_DIR, "model.ckpt-7"))
    for name, value in expected.items():
        assert reader.has_tensor(name)
        assert reader.get_variable_to_dtype_map()[name].as_numpy_dtype == value.dtype
        np.testing.assert_array_equal(reader.get_tensor(name), value)
        np.testing.assert_array_equal(tf.train.load_variable(FIXTURE_DIR, name + ":0"), value)
    with pytest.raises(tf.errors.NotFoundError, match=r"Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    with pytest.raises(tf.errors.NotFoundError, match=r"Failed to find any matching files for .*missing.ckpt"):
        tf.train.load_checkpoint(str(tmp_path / "missing.ckpt"))
    with pytest.raises(ValueError, match=r"Couldn't find 'checkpoint' file or checkpoints in given directory"):
        tf.train.load_checkpoint(str(tmp_path))
