"""The per-step byte counter on real processes: RunMetadata.wire_bytes (what one step moved
between tasks) and the process-wide tf.train.Server.wire_byte_counts. A ps process holds a
1,000,000 x 64 float table (256 MB); the worker task lives in this process, as TF1's
between-graph workers do. One training step that looks up 512 ids and applies their sparse
gradient moves the 512 rows each way, not the table: O(512 x 64 x 4) bytes."""
import numpy as np

import tensorweave as tf

VOCAB, DIM, BATCH = 1_000_000, 64, 512
ROW_BYTES = BATCH * DIM * 4


def _delta(before, after):
    return {k: after[k] - before[k] for k in before}


def test_a_sparse_step_moves_rows_not_the_table(ps_and_worker):
    cluster, worker = ps_and_worker
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(cluster=tf.train.ClusterSpec(cluster))):
            table = tf.get_variable("emb", shape=[VOCAB, DIM], initializer=tf.zeros_initializer())
            ids = tf.placeholder(tf.int64, [BATCH], name="ids")
            rows = tf.nn.embedding_lookup(table, ids)
            loss = tf.reduce_sum(tf.square(rows - 1.0))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session(worker.target) as sess:
            sess.run(tf.global_variables_initializer())
            batch = np.random.default_rng(0).choice(VOCAB, BATCH, replace=False)
            sess.run([loss, train], {ids: batch})  # The first step registers the graphs.
            before = tf.train.Server.wire_byte_counts()
            metadata = tf.RunMetadata()
            first_loss, _ = sess.run([loss, train], {ids: batch}, run_metadata=metadata)
            step = _delta(before, tf.train.Server.wire_byte_counts())
            after_loss = sess.run(loss, {ids: batch})
    # The step trained (SGD on sum (x - 1)^2 twice: x = 0 -> 0.2 -> 0.36).
    np.testing.assert_allclose(first_loss, BATCH * DIM * 0.8 ** 2, rtol=1e-4)
    np.testing.assert_allclose(after_loss, BATCH * DIM * 0.64 ** 2, rtol=1e-4)
    # The gathered rows came in, the gradient's rows went out, and nothing much else moved.
    assert step["tensor_bytes_received"] >= ROW_BYTES, step
    assert step["tensor_bytes_sent"] >= ROW_BYTES, step
    total = sum(step.values())
    assert total < 4 * ROW_BYTES, step
    assert total < VOCAB * DIM * 4 / 100, step
    # The step's own count: the rows pulled by the worker and the gradient's rows (values
    # and int64 indices) pulled by the ps, and RunGraph messages of a few hundred bytes.
    wire = metadata.wire_bytes
    assert 2 * ROW_BYTES <= wire.tensor_bytes <= 2 * ROW_BYTES + 2 * BATCH * 8 + 4096, wire
    assert 0 < wire.run_graph_bytes < 4096, wire
    assert wire.tensor_bytes + wire.run_graph_bytes <= total, (wire, step)
    # It travels as TF's RunMetadata bytes (tensorweave's field number 1001).
    assert tf.RunMetadata.FromString(metadata.SerializeToString()).wire_bytes.tensor_bytes == wire.tensor_bytes
    print("one step moved", step, "bytes (RunMetadata: %d tensor, %d RunGraph); the table holds %d"
          % (wire.tensor_bytes, wire.run_graph_bytes, VOCAB * DIM * 4))


def test_run_metadata_counts_each_step_alone(ps_and_worker):
    """A dense read of a ps variable by the worker pulls all of it, every step; a step on the
    worker alone moves nothing; a session in one process reports nothing."""
    cluster, worker = ps_and_worker
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            dense = tf.get_variable("dense", shape=[1000, DIM], initializer=tf.ones_initializer())
        with tf.device("/job:worker/task:0"):
            total = tf.reduce_sum(dense)
            local = tf.constant(2.0) * 3.0
        with tf.Session(worker.target) as sess:
            sess.run(tf.global_variables_initializer())
            pulled = []
            for _ in range(3):
                metadata = tf.RunMetadata()
                assert sess.run(total, run_metadata=metadata) == 1000 * DIM
                pulled.append(metadata.wire_bytes.tensor_bytes)
            assert pulled == [1000 * DIM * 4] * 3, pulled
            metadata = tf.RunMetadata()
            assert sess.run(local, run_metadata=metadata) == 6.0
            assert metadata.wire_bytes.tensor_bytes == 0 and metadata.wire_bytes.run_graph_bytes == 0
    with tf.Graph().as_default(), tf.Session() as sess:
        metadata = tf.RunMetadata(wire_bytes={"tensor_bytes": 5})
        assert sess.run(tf.constant(1.0) + 1.0, run_metadata=metadata) == 2.0
        assert metadata.wire_bytes.tensor_bytes == 0
