"""Clusters driven from Python: servers as separate processes (python3 -m tensorweave.server),
in-process servers beside a session in another thread, and a task that is down."""
import re
import signal
import subprocess
import threading

import numpy as np
import pytest

import tensorweave as tf

from conftest import PYTHON, ServerProcesses, free_port, python_env


@pytest.fixture
def two_task_cluster():
    addresses = ["localhost:%d" % free_port(), "localhost:%d" % free_port()]
    spec = "local|" + ";".join(addresses)
    servers = ServerProcesses(spec, "local", 2)
    yield spec, addresses
    servers.stop()


def test_multi_process_cluster_runs_placed_graphs(two_task_cluster):
    spec, addresses = two_task_cluster
    cluster = tf.train.ClusterSpec(spec)
    assert cluster.as_dict() == {"local": addresses}
    x = tf.placeholder(tf.float32, [100])
    with tf.device("/job:local/task:1"):
        mean1 = tf.reduce_mean(tf.slice(x, [0], [40]))
        size1 = tf.size(tf.slice(x, [0], [40]))
    with tf.device("/job:local/task:0"):
        second = tf.slice(x, [40], [-1])
        mean = (tf.cast(size1, tf.float32) * mean1 + tf.cast(tf.size(second), tf.float32) * tf.reduce_mean(second)) / 100
    values = np.random.random(100)
    with tf.Session("grpc://" + addresses[0]) as sess:
        np.testing.assert_allclose(sess.run(mean, {x: values}), values.mean(), rtol=1e-5)
        assert any("/job:local/replica:0/task:1" in d for d in sess.list_devices())


def test_string_tensors_cross_tasks_both_ways(two_task_cluster):
    # Strings are objects: their bytes must cross (feeds, _Send/_Recv, fetches), long ones
    # too (no small-string buffer to hide a byte copy of std::string).
    _, addresses = two_task_cluster
    long_a = "é" * 3000
    fed = tf.placeholder(tf.string, [2])
    with tf.device("/job:local/task:1"):
        from_1 = tf.constant([long_a, b"\x00\xff"])
    with tf.device("/job:local/task:0"):
        joined = tf.strings.join([from_1, fed, "!"], separator="|")
    with tf.device("/job:local/task:1"):
        back = tf.identity(joined)
        same = tf.equal(joined, [long_a + "|x|!", "nope"])
        vars_on_1 = tf.Variable(["v0", long_a], name="words")
    report = tf.report_uninitialized_variables()
    with tf.Session("grpc://" + addresses[0]) as sess:
        assert sess.run(report).tolist() == [b"words"]
        sess.run(vars_on_1.initializer)
        assert sess.run(report).tolist() == []
        for _ in range(2):
            got = sess.run([from_1, joined, back, same, vars_on_1], {fed: ["x", "y" * 3000]})
            expected = [(long_a + "|x|!").encode(), b"\x00\xff|" + b"y" * 3000 + b"|!"]
            assert got[0].tolist() == [long_a.encode(), b"\x00\xff"]
            assert got[1].tolist() == expected and got[2].tolist() == expected
            assert got[3].tolist() == [True, False]
            assert got[4].tolist() == [b"v0", long_a.encode()]


def test_variables_outlive_sessions_on_the_cluster(two_task_cluster):
    _, addresses = two_task_cluster
    with tf.device("/job:local/task:1"):
        w = tf.Variable([1.0, 2.0], name="shared_w")
    with tf.Session("grpc://" + addresses[0]) as sess:
        sess.run(w.initializer)
        sess.run(w.assign_add([10.0, 10.0]))
    with tf.Session("grpc://" + addresses[1]) as other:
        np.testing.assert_array_equal(other.run(w), [11, 12])


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_server_process_stops_cleanly_on_a_signal(signum):
    port = free_port()
    servers = ServerProcesses("worker|localhost:%d" % port, "worker", 1)
    [(code, out, err)] = servers.stop(signum)
    assert code == 0, err
    assert "Server /job:worker/task:0 stopped" in out


def test_server_module_rejects_bad_flags():
    result = subprocess.run([PYTHON, "-m", "tensorweave.server", "--cluster_spec=local|nohost", "--job_name=local"],
                            capture_output=True, text=True, env=python_env(), timeout=60)
    assert result.returncode == 2
    assert "nohost" in result.stderr
    result = subprocess.run([PYTHON, "-m", "tensorweave.server", "--cluster_spec=local|localhost:2",
                             "--job_name=other"], capture_output=True, text=True, env=python_env(), timeout=60)
    assert result.returncode == 2 and "other" in result.stderr


def test_server_in_a_thread_and_a_session_in_another():
    port = free_port()
    cluster = tf.train.ClusterSpec({"local": ["localhost:%d" % port]})
    server = tf.train.Server(cluster, job_name="local", task_index=0)
    assert server.target == "grpc://localhost:%d" % port
    joiner = threading.Thread(target=server.join)
    joiner.start()
    results = []

    def client():
        g = tf.Graph()
        with g.as_default():
            y = tf.constant(2) + 236
            with tf.Session(server.target) as sess:
                results.append(sess.run(y))

    worker = threading.Thread(target=client)
    worker.start()
    worker.join(60)
    server.stop()
    joiner.join(60)
    assert results == [238]
    assert not joiner.is_alive()


def test_create_local_server():
    server = tf.train.Server.create_local_server()
    assert re.match(r"grpc://localhost:\d+", server.target)
    with tf.Session(server.target) as sess:
        assert sess.run(tf.constant(3) * 2) == 6


def test_a_task_that_is_down_is_unavailable():
    dead = "localhost:%d" % free_port()
    spec = tf.train.ClusterSpec({"local": ["localhost:%d" % free_port(), dead]})
    server = tf.train.Server(spec, job_name="local", task_index=0, rpc_timeout_ms=3000)
    with tf.device("/job:local/task:1"):
        y = tf.constant(1) + 1
    with tf.Session(server.target) as sess:
        with pytest.raises((tf.errors.UnavailableError, tf.errors.DeadlineExceededError)) as info:
            sess.run(y)
    assert "task:1" in info.value.message or dead in info.value.message


def test_cluster_spec_forms_and_validation():
    sparse = tf.train.ClusterSpec({"ps": ["h:1"], "worker": {1: "h:3"}})
    assert sparse.task_indices("worker") == [1]
    assert sparse.task_address("worker", 1) == "h:3"
    assert sparse.as_dict() == {"ps": ["h:1"], "worker": {1: "h:3"}}
    assert tf.train.ClusterSpec(sparse) == sparse
    assert tf.train.ClusterSpec("ps|h:1,worker|h:2;h:3").num_tasks("worker") == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="port"):
        tf.train.ClusterSpec({"local": ["localhost:0"]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="no_job"):
        tf.train.ClusterSpec({"local": ["h:1"]}).task_address("no_job", 0)
    with pytest.raises(ValueError, match="job_name"):
        tf.train.Server({"a": ["localhost:1"], "b": ["localhost:2"]})


def test_cluster_spec_with_a_job_of_no_tasks():
    # Seed 002: tf.train.ClusterSpec({"ps": [], "worker": [server_addr]}).
    address = "localhost:%d" % free_port()
    cluster = tf.train.ClusterSpec({"ps": [], "worker": [address]})
    assert cluster.jobs == ["ps", "worker"]
    assert cluster.as_dict() == {"ps": [], "worker": [address]}
    assert cluster.num_tasks("ps") == 0 and cluster.task_indices("ps") == [] and cluster.job_tasks("ps") == []
    assert tf.train.ClusterSpec(cluster) == cluster
    server = tf.train.Server(cluster, job_name="worker", task_index=0)
    # No ps task: replica_device_setter changes nothing, as TF's returns None.
    with tf.device(tf.train.replica_device_setter(cluster=cluster)):
        v = tf.Variable(20.0)
    assert v.device == ""
    with tf.Session("grpc://" + address) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(v + 22) == 42.0
    server.stop()
