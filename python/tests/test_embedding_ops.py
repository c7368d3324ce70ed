"""Embeddings over shards, compared with TensorFlow (tf_side/embedding_cases.py): a table
split by get_variable(partitioner=fixed_size_partitioner(3)), embedding_lookup with 'mod'
and 'div' (and max_norm), embedding_lookup_sparse's combiners with and without weights,
the gradients of each with respect to the shards, and the partitioners' answers. Also: an
id outside the table is InvalidArgument naming the node and the id; Unique has no gradient
(as in TensorFlow)."""
import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

MINMAX = [((1000, 64), tf.float32, (4, 0, 64 << 10)), ((10, 3), tf.float32, (8, 0, 16)),
          ((7, 5), tf.float64, (3, 1, 8)), ((100,), tf.int32, (2, 0, 256 << 10))]
AXIS_SIZE = [((1000, 64), (64 << 10,)), ((10, 3), (20, 0, 16, 3)), ((50, 4), (100, 1))]


def _inputs():
    rng = np.random.default_rng(7)
    return dict(table=rng.normal(size=(11, 4)).astype(np.float32), ids=np.array([[0, 10, 3], [4, 4, 7]], np.int64),
                sp_idx=np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]], np.int64),
                sp_vals=np.array([1, 9, 5, 5, 0, 7], np.int64),
                sp_w=np.array([0.5, 2, 1, 1.5, -1, 3], np.float32), sp_shape=np.array([3, 3], np.int64))


def _ours(a):
    g = tf.Graph()
    with g.as_default():
        pv = tf.get_variable("emb", initializer=a["table"], partitioner=tf.fixed_size_partitioner(3))
        shards = list(pv)
        fetches = {f"shard{i}": v.value() for i, v in enumerate(shards)}
        looked = {}
        for strategy in ("mod", "div"):
            for max_norm in (None, 1.5):
                looked[f"lookup_{strategy}_{max_norm}"] = tf.nn.embedding_lookup(
                    pv, a["ids"], partition_strategy=strategy, max_norm=max_norm)
        sp_ids = tf.SparseTensor(a["sp_idx"], a["sp_vals"], a["sp_shape"])
        weights = tf.SparseTensor(a["sp_idx"], a["sp_w"], a["sp_shape"])
        for combiner in ("sum", "mean", "sqrtn"):
            for weighted in (False, True):
                looked[f"sparse_{combiner}_{weighted}"] = tf.nn.embedding_lookup_sparse(
                    pv, sp_ids, weights if weighted else None, partition_strategy="div", combiner=combiner)
        for key, y in looked.items():
            fetches[key] = y
            for i, gr in enumerate(tf.gradients(tf.reduce_sum(y * y), shards)):
                assert isinstance(gr, tf.IndexedSlices), (key, gr)  # as TensorFlow's
                fetches[f"{key}_grad{i}"] = tf.convert_to_tensor(gr)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            keys = sorted(fetches)
            values = dict(zip(keys, sess.run([fetches[k] for k in keys])))
    for shape, dtype, args in MINMAX:
        values[f"minmax_{shape}_{dtype.name}_{args}"] = np.array(
            tf.min_max_variable_partitioner(*args)(tf.TensorShape(shape), dtype))
    for shape, args in AXIS_SIZE:
        values[f"axis_size_{shape}_{args}"] = np.array(
            tf.variable_axis_size_partitioner(*args)(tf.TensorShape(shape), tf.float32))
    return values


def test_embeddings_over_shards_match_tensorflow(tmp_path):
    python = require_tensorflow("test_embeddings_over_shards_match_tensorflow")
    a = _inputs()
    np.savez(tmp_path / "in.npz", **a)
    run_tf_script(python, "embedding_cases.py", str(tmp_path / "in.npz"), str(tmp_path / "out.npz"))
    theirs = np.load(tmp_path / "out.npz")
    ours = _ours(a)
    assert sorted(ours) == sorted(theirs.files)
    for key in sorted(ours):
        expected = theirs[key]
        assert ours[key].shape == expected.shape, (key, ours[key].shape, expected.shape)
        if key.startswith(("shard", "minmax", "axis_size")) or key in ("lookup_mod_None", "lookup_div_None"):
            np.testing.assert_array_equal(ours[key], expected, err_msg=key)  # row copies and counts: exact
        else:
            np.testing.assert_allclose(ours[key], expected, rtol=1e-5, atol=1e-6, err_msg=key)


def test_partitioned_variable_shards():
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope("m"):
            pv = tf.get_variable("emb", shape=[10, 3], partitioner=tf.fixed_size_partitioner(4))
        assert isinstance(pv, tf.PartitionedVariable)
        assert pv.name == "m/emb" and pv.get_shape().as_list() == [10, 3]
        assert [v.name for v in pv] == [f"m/emb/part_{i}:0" for i in range(4)]
        assert [v.shape.as_list() for v in pv] == [[3, 3], [3, 3], [2, 3], [2, 3]]
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            spread = tf.get_variable("spread", shape=[9, 2], partitioner=tf.fixed_size_partitioner(3))
        assert [v.device for v in spread] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"]
        with pytest.raises(ValueError, match="fully defined"):
            tf.get_variable("bad", partitioner=tf.fixed_size_partitioner(2))


def test_saver_takes_a_partitioned_variable(tmp_path):
    g = tf.Graph()
    with g.as_default():
        table = np.arange(14, dtype=np.float32).reshape(7, 2)
        pv = tf.get_variable("emb", initializer=table, partitioner=tf.fixed_size_partitioner(3))
        saver = tf.train.Saver([pv])
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model"))
            sess.run([v.assign(tf.zeros_like(v)) for v in pv])
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(pv.as_tensor()), table)


@pytest.mark.parametrize("ids, bad", [([1, 5, 2], 5), ([0, -1], -1)])
def test_an_id_outside_the_table_is_refused_naming_node_and_id(ids, bad):
    g = tf.Graph()
    with g.as_default():
        table = tf.constant(np.ones((5, 2), np.float32))
        for op in ("GatherV2", "Gather"):  # tf.gather, and TF1's Gather as imported GraphDefs hold it
            inputs = [table, tf.constant(ids)] + ([tf.constant(0)] if op == "GatherV2" else [])
            y = g.create_op(op, inputs, {}, "look_" + op).outputs[0]
            with tf.Session(graph=g) as sess:
                with pytest.raises(tf.errors.InvalidArgumentError, match=rf"node 'look.*= {bad} is not in \[0, 5\)"):
                    sess.run(y)
        parts = tf.dynamic_partition(table, tf.constant([0, 1, 7, 0, 1]), 2, name="route")
        with tf.Session(graph=g) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"node 'route'.*partitions\[2\] = 7 is not in"):
                sess.run(parts)


def test_unique_has_no_gradient_as_in_tensorflow():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([1.0, 2.0, 1.0])
        y, _ = tf.unique(x)
        with pytest.raises(Exception, match="Unique"):
            tf.gradients(tf.reduce_sum(y), [x])
