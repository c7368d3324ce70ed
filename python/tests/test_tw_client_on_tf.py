"""A tensorweave client runs the seed programs, unchanged, on a cluster of real TensorFlow
servers (tf.distribute.Server in TensorFlow's own python, tf_side/tf_server.py): the
grpc:// session finds the target does not speak our protocol and speaks TensorFlow's
MasterService. Results equal tensorweave's single-process runs; TensorFlow's errors reach
us as our error classes with TensorFlow's messages."""
import json
import os
import subprocess

import numpy as np
import pytest

import tensorweave as tf

from conftest import free_port
from tf_peer import TF_SIDE_DIR, require_tensorflow
from tf_side import seed003
from tw_tasks import TensorweaveTasks


class TensorFlowServers:
    """One tf_side/tf_server.py per (job, task) of `cluster` given in `tasks`; killed by stop()."""

    def __init__(self, python, cluster, tasks):
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "PYTHONPATH")}
        env["TF_CPP_MIN_LOG_LEVEL"] = "2"
        self.procs = []
        try:
            for job, task in tasks:
                proc = subprocess.Popen([python, os.path.join(TF_SIDE_DIR, "tf_server.py"), json.dumps(cluster), job,
                                         str(task)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                self.procs.append(proc)
                line = proc.stdout.readline()
                assert line.startswith("ready"), line + proc.stderr.read()
        except BaseException:
            self.stop()
            raise

    def stop(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=30)


@pytest.fixture(scope="module")
def tf_python():
    return require_tensorflow("test_tw_client_on_tf")


@pytest.fixture
def tf_cluster(tf_python):
    addresses = ["localhost:%d" % free_port(), "localhost:%d" % free_port()]
    servers = TensorFlowServers(tf_python, {"local": addresses}, [("local", 0), ("local", 1)])
    yield addresses
    servers.stop()


VALUES = np.random.RandomState(11).random_sample(100)


# The seed programs as written for TensorFlow 1.x (seed 000), with tensorweave as tf.
def hello(target):
    x = tf.constant(2)
    y1 = x + 300
    y2 = x - 66
    y = y1 + y2
    with tf.Session(target) as sess:
        return sess.run(y)


def mean(target):
    x = tf.placeholder(tf.float32, 100)
    mean = tf.reduce_mean(x)
    with tf.Session(target) as sess:
        return sess.run(mean, feed_dict={x: VALUES})


def distributed_238(target):
    x = tf.constant(2)
    with tf.device("/job:local/task:1"):
        y2 = x - 66
    with tf.device("/job:local/task:0"):
        y1 = x + 300
        y = y1 + y2
    with tf.Session(target) as sess:
        return sess.run(y)


def map_reduce_mean(target):
    x = tf.placeholder(tf.float32, 100)
    with tf.device("/job:local/task:1"):
        first_batch = tf.slice(x, [0], [50])
        mean1 = tf.reduce_mean(first_batch)
    with tf.device("/job:local/task:0"):
        second_batch = tf.slice(x, [50], [-1])
        mean2 = tf.reduce_mean(second_batch)
        mean = (mean1 + mean2) / 2
    with tf.Session(target) as sess:
        return sess.run(mean, feed_dict={x: VALUES})


def single_process(program):
    tf.reset_default_graph()
    return program("")


def on_cluster(program, target):
    tf.reset_default_graph()
    return program(target)


def test_seed_programs_on_tensorflow_servers(tf_cluster):
    target = "grpc://" + tf_cluster[0]
    assert on_cluster(hello, target) == single_process(hello) == 238
    assert on_cluster(distributed_238, target) == 238
    expected = single_process(mean)
    assert expected == pytest.approx(VALUES.astype(np.float32).mean(dtype=np.float64), rel=1e-6)
    got = on_cluster(mean, target)
    assert got.dtype == np.float32 and got.shape == ()
    assert got == pytest.approx(expected, rel=1e-6)
    assert on_cluster(map_reduce_mean, target) == pytest.approx(expected, rel=1e-6)


def test_session_on_tensorflow_servers_lists_their_devices_and_extends(tf_cluster):
    x = tf.placeholder(tf.float32, [None])
    total = tf.reduce_sum(x)
    with tf.Session("grpc://" + tf_cluster[0]) as sess:
        assert sess.run(total, {x: [1.0, 2.0]}) == 3.0
        doubled = total * 2  # Added after the first run: the session's graph is extended.
        assert sess.run(doubled, {x: [1.0, 2.0, 4.0]}) == 14.0
        devices = sess.list_devices()
    assert any(d.endswith("/job:local/replica:0/task:1/device:CPU:0") for d in devices), devices


def test_tensorflow_errors_reach_the_tensorweave_client(tf_cluster):
    x = tf.placeholder(tf.float32, [None])
    y = tf.reduce_sum(x)
    with tf.Session("grpc://" + tf_cluster[0]) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="You must feed a value for placeholder tensor"):
            sess.run(y)
        assert sess.run(y, {x: [5.0]}) == 5.0


def test_a_tensorflow_master_cannot_place_work_on_a_tensorweave_task(tf_python):
    """A mixed cluster: task 0 is TensorFlow, task 1 tensorweave. TensorFlow's master would
    need our task to serve TensorFlow's WorkerService, which it refuses by name."""
    addresses = ["localhost:%d" % free_port(), "localhost:%d" % free_port()]
    tf_servers = TensorFlowServers(tf_python, {"local": addresses}, [("local", 0)])
    tw_task = None
    try:
        tw_task = TensorweaveTasks("local|" + ";".join(addresses), {("local", 1): addresses[1]})
        x = tf.constant(2)
        with tf.device("/job:local/task:1"):
            y = x - 66
        with tf.Session("grpc://" + addresses[0]) as sess:
            with pytest.raises(tf.errors.OpError, match="does not serve TensorFlow's WorkerService"):
                sess.run(y)
    finally:
        if tw_task is not None:
            tw_task.stop()
        tf_servers.stop()


def data_parallel_losses(target):
    tf.reset_default_graph()
    return seed003.data_parallel_losses(tf, target)


def test_seed_003_data_parallel_training_on_tensorflow_servers(tf_python):
    """Our gradient and Adam nodes run by TensorFlow's tasks: the losses follow tensorweave's
    single-process training."""
    ports = {job: "localhost:%d" % free_port() for job in ("master", "worker", "worker_")}
    servers = TensorFlowServers(tf_python, {job: [address] for job, address in ports.items()},
                                [(job, 0) for job in ports])
    try:
        remote = data_parallel_losses("grpc://" + ports["master"])
    finally:
        servers.stop()
    local = data_parallel_losses("")
    assert remote[-1] < remote[0] / 2  # It learns.
    # The halves' averaged gradient is the whole batch's, up to float32 rounding.
    np.testing.assert_allclose(remote, local, rtol=1e-4)
