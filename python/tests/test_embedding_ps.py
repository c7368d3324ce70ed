"""An embedding table partitioned over two parameter servers (separate processes), trained
between-graph by two workers (each its own graph and client thread, as TF1's
replica_device_setter programs run): each shard lives on its own ps with its gather and its
sparse update, both workers' steps land in the same shards, and the loss falls."""
import threading

import numpy as np
import pytest

import tensorweave as tf
from conftest import ServerProcesses, free_port

VOCAB, DIM, BATCH, STEPS = 40, 8, 16, 60


@pytest.fixture
def two_ps_two_workers():
    ps = ["localhost:%d" % free_port() for _ in range(2)]
    workers = ["localhost:%d" % free_port() for _ in range(2)]
    spec = "ps|%s,worker|%s" % (";".join(ps), ";".join(workers))
    servers = [ServerProcesses(spec, "ps", 2)]
    try:
        servers.append(ServerProcesses(spec, "worker", 2))
        yield {"ps": ps, "worker": workers}
    finally:
        for s in servers:
            s.stop()


def _model(cluster, task):
    """The worker's graph: ids -> embedding rows (table split over the ps tasks) -> a linear
    read-out; the target is +1 for even ids and -1 for odd ones."""
    with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:%d" % task)):
        table = tf.get_variable("emb", shape=[VOCAB, DIM], initializer=tf.random_uniform_initializer(-0.1, 0.1),
                                partitioner=tf.fixed_size_partitioner(2))
        readout = tf.get_variable("readout", initializer=np.linspace(-1, 1, DIM).astype(np.float32))
        step = tf.train.get_or_create_global_step()
        ids = tf.placeholder(tf.int64, [BATCH], name="ids")
        target = 1.0 - 2.0 * tf.cast(tf.floormod(ids, 2), tf.float32)
        rows = tf.nn.embedding_lookup(table, ids, partition_strategy="div")
        prediction = tf.reduce_sum(rows * readout, 1)
        loss = tf.reduce_mean(tf.square(prediction - target))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
    return table, ids, loss, train


def test_embedding_partitioned_over_two_ps_trains_between_graph(two_ps_two_workers):
    cluster = tf.train.ClusterSpec(two_ps_two_workers)
    losses, errors, initialized = {0: [], 1: []}, [], threading.Event()

    def worker(task):
        try:
            g = tf.Graph()
            with g.as_default():
                table, ids, loss, train = _model(cluster, task)
                assert [v.device for v in table] == ["/job:ps/task:0", "/job:ps/task:1"]
                # Only rows cross the wire: each shard's gather and sparse update run on its ps.
                for kind in ("ResourceGather", "ResourceSparseApplyProximalGradientDescent"):
                    placed = sorted(op.device for op in g.get_operations() if op.type == kind
                                    and not op.name.startswith("gradients"))
                    assert placed == ["/job:ps/task:0", "/job:ps/task:1"], (kind, placed)
                rng = np.random.default_rng(task)
                with tf.Session("grpc://" + two_ps_two_workers["worker"][task]) as sess:
                    if task == 0:
                        sess.run(tf.global_variables_initializer())
                        initialized.set()
                    else:
                        assert initialized.wait(60)
                    for _ in range(STEPS):
                        batch = rng.integers(0, VOCAB, BATCH)
                        losses[task].append(sess.run([loss, train], {ids: batch})[0])
        except Exception as e:  # noqa: BLE001 - reported by the test thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(240)
    assert not errors, errors
    for task in (0, 1):
        first, last = np.mean(losses[task][:5]), np.mean(losses[task][-5:])
        assert last < 0.25 * first, (task, first, last)
    # Both workers stepped the one global step on the ps, and every row of both shards moved
    # away from its initial range only where ids were seen (all of them, at this many steps).
    g = tf.Graph()
    with g.as_default():
        table, _, _, _ = _model(cluster, 0)
        step = tf.train.get_or_create_global_step()
        with tf.Session("grpc://" + two_ps_two_workers["ps"][1]) as sess:
            assert sess.run(step) == 2 * STEPS
            shards = sess.run(list(table))
    assert [s.shape for s in shards] == [(VOCAB // 2, DIM), (VOCAB // 2, DIM)]
    assert np.abs(np.concatenate(shards)).max() > 0.1
