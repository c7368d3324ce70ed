"""replica_device_setter and SyncReplicasOptimizer on a cluster of real gRPC servers (1 ps,
2 workers, in this process): two between-graph replicas train synchronously under
MonitoredTrainingSessions, the chief running the sync loop through its hook."""
import threading

import numpy as np
import pytest

import tensorweave as tf

from conftest import free_port

LR = 0.1
X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [-2.0, 1.0]], np.float32)
Y = np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)


@pytest.fixture
def cluster():
    spec = tf.train.ClusterSpec({"ps": ["localhost:%d" % free_port()],
                                 "worker": ["localhost:%d" % free_port(), "localhost:%d" % free_port()]})
    servers = [tf.train.Server(spec, job, task) for job, task in (("ps", 0), ("worker", 0), ("worker", 1))]
    yield spec
    for server in servers:
        server.stop()


def _build(spec, task):
    """One worker's graph: linear regression, variables on the ps."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(cluster=spec,
                                                                      worker_device="/job:worker/task:%d" % task)):
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.placeholder(tf.float32, [None, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        step = tf.train.get_or_create_global_step()
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR), replicas_to_aggregate=2,
                                             total_num_replicas=2)
        train = opt.minimize(loss, global_step=step)
    return graph, opt, train, step, w, x, y


def _sgd(steps):
    w = np.zeros((2, 1))
    for _ in range(steps):
        w -= LR * 2 * X.T @ (X @ w - Y) / len(X)
    return w


def _run_both_workers(worker, errors):
    """worker(0) and worker(1) on threads of their own; fails on what they reported."""
    threads = [threading.Thread(target=worker, args=(t,)) for t in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert not any(t.is_alive() for t in threads)


def test_placement_by_replica_device_setter(cluster):
    graph, opt, train, step, w, x, y = _build(cluster, 1)
    assert w.device == "/job:ps/task:0"
    assert step.device == "/job:ps/task:0"
    assert x.device == "/job:worker/task:1"


def test_sync_training_of_two_replicas(cluster):
    last_step = 6
    chief_ready = threading.Event()
    results, errors = {}, []

    def worker(task):
        try:
            graph, opt, train, step, w, x, y = _build(cluster, task)
            with graph.as_default():
                hooks = [opt.make_session_run_hook(task == 0)]
                if task == 0:
                    hooks.append(tf.train.StopAtStepHook(last_step=last_step))
                else:
                    chief_ready.wait(60)
                target = "grpc://" + cluster.task_address("worker", task)
                # Both replicas feed the same batch: whichever gradients a step averages,
                # it applies the whole batch's gradient, as one process would.
                with tf.train.MonitoredTrainingSession(master=target, is_chief=task == 0, hooks=hooks,
                                                       log_step_count_steps=0) as sess:
                    chief_ready.set()
                    runs = 0
                    while not sess.should_stop():
                        sess.run(train, feed_dict={x: X, y: Y})
                        runs += 1
                    results[task] = runs
                # The chief's session ended the sync loop; the other replica ends when the
                # token queue closes (OutOfRange, which MonitoredTrainingSession's exit takes).
                results.setdefault(task, None)
        except Exception as e:  # pylint: disable=broad-except - reported below.
            errors.append((task, e))
            chief_ready.set()

    _run_both_workers(worker, errors)
    assert results[0] is not None and results[0] >= last_step
    # The shared state on the ps: the global step and w after that many averaged updates.
    graph, opt, train, step, w, x, y = _build(cluster, 0)
    with graph.as_default(), tf.Session("grpc://" + cluster.task_address("worker", 0)) as sess:
        global_step = sess.run(step)
        assert global_step >= last_step
        np.testing.assert_allclose(sess.run(w), _sgd(global_step), rtol=1e-5, atol=1e-6)


def _build_embedding(spec, task, ids, weights, bias_weight):
    """One worker's graph: a 6 x 2 embedding table looked up by this worker's ids (its
    gradient is IndexedSlices) and a dense bias, both on the ps; each loss is linear, so
    its gradients are constants: the worker's `weights` per looked-up row, bias_weight.
    bias_weight None: the bias takes no part in the loss (only sparse gradients)."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(cluster=spec,
                                                                      worker_device="/job:worker/task:%d" % task)):
        table = tf.get_variable("table", [6, 2], initializer=tf.zeros_initializer())
        bias = tf.get_variable("bias", [2], initializer=tf.zeros_initializer())
        rows = tf.nn.embedding_lookup(table, tf.constant(ids))
        loss = tf.reduce_sum(rows * tf.constant(weights))
        if bias_weight is not None:
            loss += tf.reduce_sum(bias * tf.constant(bias_weight))
        step = tf.train.get_or_create_global_step()
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR), replicas_to_aggregate=2,
                                             total_num_replicas=2)
        train = opt.minimize(loss, global_step=step)
    return graph, opt, train, step, table, bias


@pytest.mark.parametrize("with_dense", [True, False])
def test_sparse_gradients_are_accumulated_by_index(cluster, with_dense):
    # Worker 0 touches rows 0 and 2 (twice), worker 1 rows 2 and 5. The table's rows move by
    # the mean over the gradients that touched each (TF1's SparseConditionalAccumulator):
    # row 2 by the mean of both workers' gradients, rows 0 and 5 by one worker's alone.
    # Without a dense gradient the global step is counted after the sparse updates alone.
    workers = {0: ([0, 2, 2], [1.0, 2.0], [1.0, -1.0] if with_dense else None),
               1: ([2, 5], [3.0, -1.0], [3.0, 5.0] if with_dense else None)}
    runs = 3
    barrier, errors = threading.Barrier(2, timeout=60), []

    def worker(task):
        try:
            ids, weights, bias_weight = workers[task]
            graph, opt, train, step, table, bias = _build_embedding(cluster, task, ids, weights, bias_weight)
            assert any(op.type == "SparseAccumulatorApplyGradient" for op in graph.get_operations())
            with graph.as_default():
                # No initial tokens: each run's gradient is taken in that run's update, so
                # every update averages exactly one gradient of each worker.
                hooks = [opt.make_session_run_hook(task == 0, num_tokens=0)]
                target = "grpc://" + cluster.task_address("worker", task)
                if task == 1:
                    barrier.wait()  # The chief has initialized.
                with tf.train.MonitoredTrainingSession(master=target, is_chief=task == 0, hooks=hooks,
                                                       log_step_count_steps=0) as sess:
                    if task == 0:
                        barrier.wait()
                    for _ in range(runs):
                        sess.run(train)
                        barrier.wait()
        except Exception as e:  # pylint: disable=broad-except - reported below.
            errors.append((task, e))
            barrier.abort()

    _run_both_workers(worker, errors)
    graph, opt, train, step, table, bias = _build_embedding(cluster, 0, *workers[0])
    with graph.as_default(), tf.Session("grpc://" + cluster.task_address("worker", 0)) as sess:
        assert sess.run(step) == runs
        got_table, got_bias = sess.run([table, bias])
    w0, w1 = np.array(workers[0][1]), np.array(workers[1][1])
    per_step = np.zeros((6, 2))
    per_step[0] = w0
    per_step[2] = (2 * w0 + w1) / 2
    per_step[5] = w1
    np.testing.assert_allclose(got_table, -runs * LR * per_step, rtol=1e-6)
    want_bias = (np.array(workers[0][2]) + workers[1][2]) / 2 if with_dense else np.zeros(2)
    np.testing.assert_allclose(got_bias, -runs * LR * want_bias, rtol=1e-6)
