"""tf.train.Saver and partitioned variables, as TensorFlow saves them: each shard is a slice
of the whole variable, stored under the variable's full name (its entry lists the slices),
so the checkpoint restores onto any number of shards, in tensorweave and in TensorFlow.
TensorFlow (a subprocess with the pinned version) is the oracle for what it reads."""
import os

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

SOURCE_DIR = os.environ.get("TW_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
TF_PARTITIONED = os.path.join(SOURCE_DIR, "tests", "data", "tf_checkpoints", "partitioned.ckpt-1")
TABLE = np.arange(40, dtype=np.float32).reshape(10, 4) / 8


def _partitioned(name, value, shards, axis=0):
    parts = [1] * value.ndim
    parts[axis] = shards
    return tf.get_variable(name, shape=value.shape, dtype=tf.as_dtype(value.dtype),
                           partitioner=lambda shape, dtype: parts, initializer=tf.zeros_initializer())


def _save_table(tmp_path, shards):
    """Saves TABLE as "emb" in `shards` row blocks (and a plain "bias"); returns the prefix."""
    with tf.Graph().as_default():
        emb = _partitioned("emb", TABLE, shards)
        tf.get_variable("bias", initializer=tf.constant([1.5, -2.0]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            row = 0
            for part in emb:
                rows = part.shape.as_list()[0]
                sess.run(part.assign(TABLE[row:row + rows]))
                row += rows
            return tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"), global_step=1)


def _restored(prefix, shards, value_shape=TABLE.shape):
    with tf.Graph().as_default():
        emb = _partitioned("emb", np.zeros(value_shape, np.float32), shards)
        tf.get_variable("bias", initializer=tf.constant([0.0, 0.0]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().restore(sess, prefix)
            return [sess.run(p) for p in emb], sess.run(emb.as_tensor())


def test_shards_are_saved_as_slices_of_the_whole_variable(tmp_path):
    prefix = _save_table(tmp_path, 3)
    reader = tf.train.load_checkpoint(prefix)
    assert reader.get_variable_to_shape_map() == {"emb": [10, 4], "bias": [2]}
    np.testing.assert_array_equal(reader.get_tensor("emb"), TABLE)


@pytest.mark.parametrize("saved, restored", [(3, 2), (3, 4), (2, 5), (4, 1)])
def test_a_checkpoint_restores_onto_another_number_of_shards(tmp_path, saved, restored):
    prefix = _save_table(tmp_path, saved)
    parts, whole = _restored(prefix, restored)
    assert len(parts) == restored
    np.testing.assert_array_equal(whole, TABLE)
    np.testing.assert_array_equal(np.concatenate(parts), TABLE)


def test_a_whole_variable_restores_from_shards_and_shards_from_a_whole_one(tmp_path):
    prefix = _save_table(tmp_path, 3)
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", initializer=tf.zeros([10, 4]))
        tf.get_variable("bias", initializer=tf.constant([0.0, 0.0]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(emb), TABLE)
            sess.run(emb.assign(TABLE * 2))
            whole = tf.train.Saver().save(sess, str(tmp_path / "whole.ckpt"))
    parts, joined = _restored(whole, 3)
    assert [p.shape for p in parts] == [(4, 4), (3, 4), (3, 4)]
    np.testing.assert_array_equal(joined, TABLE * 2)


def test_a_tensorflow_partitioned_checkpoint_restores_onto_other_shards():
    # TensorFlow saved "embedding" [10, 3] in 3 row blocks and "wide" [2, 150] in 2 column blocks.
    expected = dict(np.load(os.path.join(os.path.dirname(TF_PARTITIONED), "partitioned_expected.npz")))
    with tf.Graph().as_default():
        embedding = _partitioned("embedding", expected["embedding"], 2)
        wide = _partitioned("wide", expected["wide"], 3, axis=1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().restore(sess, TF_PARTITIONED)
            np.testing.assert_array_equal(sess.run(embedding.as_tensor()), expected["embedding"])
            np.testing.assert_array_equal(sess.run(wide.as_tensor()), expected["wide"])
            assert [sess.run(p).shape for p in wide] == [(2, 50)] * 3


def test_a_shard_of_a_variable_of_another_shape_is_refused_naming_both(tmp_path):
    prefix = _save_table(tmp_path, 2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"tensor 'emb' is float32? \[10,4\] but the shard restored from it is float32? \[6,4\], "
                             r"slice '12 4 0,6:0,4' of a variable of shape \[12,4\]"):
        _restored(prefix, 2, value_shape=(12, 4))


def test_a_slice_info_that_does_not_fit_its_variable_is_refused():
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=tf.zeros([5, 4]))
        v._set_save_slice_info(tf.Variable.SaveSliceInfo("x", [10, 4], [0, 0], [3, 4]))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"variable 'v' has shape \[5,4\] but its slice '10 4 0,3:0,4' is \[3,4\]"):
            tf.train.Saver()
        v._set_save_slice_info(tf.Variable.SaveSliceInfo("x", [10, 4], [8, 0], [5, 4]))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"extent '8,5' is not a block of dimension 0"):
            tf.train.Saver()


def test_slices_that_do_not_tile_the_variable_are_not_saved(tmp_path):
    with tf.Graph().as_default():
        a = tf.get_variable("a", initializer=tf.zeros([4, 2]))
        b = tf.get_variable("b", initializer=tf.zeros([4, 2]))
        a._set_save_slice_info(tf.Variable.SaveSliceInfo("t", [10, 2], [0, 0], [4, 2]))
        b._set_save_slice_info(tf.Variable.SaveSliceInfo("t", [10, 2], [4, 0], [4, 2]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"the slices of 't' hold 16 of its 20 values"):
                tf.train.Saver().save(sess, str(tmp_path / "bad.ckpt"))
    assert not any(name.startswith("bad.ckpt") for name in os.listdir(tmp_path))


def test_tensorflow_reads_our_slices_and_restores_them_onto_its_own_shards(tmp_path):
    python = require_tensorflow("test_tensorflow_reads_our_slices_and_restores_them_onto_its_own_shards")
    prefix = _save_table(tmp_path, 3)
    run_tf_script(python, "checkpoint_values.py", prefix, str(tmp_path / "whole.npz"))
    whole = np.load(tmp_path / "whole.npz")
    assert sorted(whole.files) == ["read:bias", "read:emb", "restored:bias", "restored:emb"]
    np.testing.assert_array_equal(whole["read:emb"], TABLE)
    np.testing.assert_array_equal(whole["restored:emb"], TABLE)
    for shards, rows in ((2, [5, 5]), (4, [3, 3, 2, 2])):
        out = str(tmp_path / ("tf%d.npz" % shards))
        run_tf_script(python, "partitioned_restore.py", prefix, out, "emb:%d" % shards)
        theirs = np.load(out)
        np.testing.assert_array_equal(theirs["emb"], TABLE)
        assert theirs["rows:emb"].tolist() == rows


def test_tensorflow_restores_through_the_metagraph_our_saver_wrote(tmp_path):
    python = require_tensorflow("test_tensorflow_restores_through_the_metagraph_our_saver_wrote")
    prefix = _save_table(tmp_path, 3)
    run_tf_script(python, "partitioned_restore.py", "--meta", prefix, str(tmp_path / "meta.npz"))
    theirs = np.load(tmp_path / "meta.npz")
    assert sorted(theirs.files) == ["bias", "emb/part_0", "emb/part_1", "emb/part_2"]
    np.testing.assert_array_equal(np.concatenate([theirs["emb/part_%d" % i] for i in range(3)]), TABLE)
