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

    threads = [threading.Thread(target=worker, args=(t,)) for t in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert not any(t.is_alive() for t in threads)
    assert results[0] is not None and results[0] >= last_step
    # The shared state on the ps: the global step and w after that many averaged updates.
    graph, opt, train, step, w, x, y = _build(cluster, 0)
    with graph.as_default(), tf.Session("grpc://" + cluster.task_address("worker", 0)) as sess:
        global_step = sess.run(step)
        assert global_step >= last_step
        np.testing.assert_allclose(sess.run(w), _sgd(global_step), rtol=1e-5, atol=1e-6)
