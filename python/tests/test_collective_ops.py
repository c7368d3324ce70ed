"""Collective ops across real server processes (`python3 -m tensorweave.server`), checked
against NumPy: all-reduce (ring) of every dtype and merge/final op, sizes 0, 1, not
divisible by the group and several pieces, on 2, 3 and 4 tasks; broadcast; each task's
own session (between-graph); a killed member failing the collective within its deadline
naming the task, with the survivors' sessions still usable."""
import signal
import threading
import time

import numpy as np
import pytest

import tensorweave as tf
from tensorweave import collective_ops
from conftest import ServerProcesses, free_port


def _cluster(n):
    spec = "worker|" + ";".join("localhost:%d" % free_port() for _ in range(n))
    return spec, ServerProcesses(spec, "worker", n)


def _target(spec, task):
    return "grpc://" + spec.split("|")[1].split(";")[task]


@pytest.fixture(params=[2, 3, 4])
def cluster(request):
    spec, servers = _cluster(request.param)
    yield request.param, spec
    servers.stop()


def _in_graph_reduce(spec, n, values, merge_op="Add", final_op="Id", group_key=1):
    """One session, one CollectiveReduce per task (in-graph): the members' results."""
    g = tf.Graph()
    with g.as_default():
        feeds, outs = {}, []
        for t in range(n):
            with tf.device("/job:worker/task:%d" % t):
                x = tf.placeholder(tf.as_dtype(values[t].dtype), values[t].shape)
                feeds[x] = values[t]
                outs.append(collective_ops.all_reduce(x, n, group_key, 1, merge_op, final_op))
        with tf.Session(_target(spec, 0), graph=g) as s:
            return s.run(outs, feeds)


SIZES = [0, 1, 5, 1000003, 3 * (1 << 18) + 1]  # 1000003 is prime; the last spans several 1 MiB pieces


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_all_reduce_sum_matches_numpy(cluster, dtype):
    n, spec = cluster
    rng = np.random.default_rng(n)
    for size in SIZES:
        if dtype in (np.float32, np.float64):
            values = [rng.standard_normal(size).astype(dtype) for _ in range(n)]
        else:
            values = [rng.integers(-1000, 1000, size).astype(dtype) for _ in range(n)]
        want = np.sum(np.stack(values), axis=0, dtype=dtype) if size else np.zeros(0, dtype)
        for got in _in_graph_reduce(spec, n, values, group_key=100 + size % 97):
            assert got.dtype == dtype and got.shape == (size,)
            if dtype in (np.float32, np.float64):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
            else:
                np.testing.assert_array_equal(got, want)


def test_merge_and_final_ops():
    spec, servers = _cluster(3)
    try:
        rng = np.random.default_rng(0)
        values = [rng.uniform(0.5, 2.0, (7, 11)).astype(np.float32) for _ in range(3)]
        stacked = np.stack(values)
        for merge_op, final_op, want in (("Max", "Id", stacked.max(0)), ("Min", "Id", stacked.min(0)),
                                         ("Mul", "Id", stacked.prod(0)), ("Add", "Div", stacked.sum(0) / 3)):
            for got in _in_graph_reduce(spec, 3, values, merge_op, final_op, group_key=7):
                np.testing.assert_allclose(got, want, rtol=1e-6)
        ints = [np.array([7, -7, 8], np.int32), np.array([1, 1, 1], np.int32), np.array([0, 0, 0], np.int32)]
        for got in _in_graph_reduce(spec, 3, ints, "Add", "Div", group_key=8):
            np.testing.assert_array_equal(got, np.array([8 // 3, -6 // 3 + (1 if -6 % 3 else 0), 3], np.int32))
    finally:
        servers.stop()


def _run_in_threads(fns):
    results = [None] * len(fns)

    def call(i):
        try:
            results[i] = fns[i]()
        except Exception as e:  # noqa: BLE001 - handed back to the test
            results[i] = e
    threads = [threading.Thread(target=call, args=(i,)) for i in range(len(fns))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results


class _Worker:
    """One task's own client: its graph (ops on its task) and session, as between-graph."""

    def __init__(self, spec, task):
        self.task = task
        self.graph = tf.Graph()
        with self.graph.as_default(), tf.device("/job:worker/task:%d" % task):
            self.x = tf.placeholder(tf.float32, [None])
            self.reduced = {}
        self.sess = tf.Session(_target(spec, task), graph=self.graph)

    def reduce(self, value, group_size, group_key, timeout=0):
        key = (group_size, group_key, timeout)
        if key not in self.reduced:
            with self.graph.as_default(), tf.device("/job:worker/task:%d" % self.task):
                self.reduced[key] = collective_ops.all_reduce(self.x, group_size, group_key, 1, "Add", "Id",
                                                              timeout=timeout)
        return self.sess.run(self.reduced[key], {self.x: value})


def test_broadcast_and_own_sessions():
    spec, servers = _cluster(3)
    try:
        # Broadcast: task 1 sends, the others receive (each from its own session).
        value = np.arange(300000, dtype=np.float64).reshape(1000, 300)
        graphs = []
        for t in range(3):
            g = tf.Graph()
            with g.as_default(), tf.device("/job:worker/task:%d" % t):
                if t == 1:
                    out = collective_ops.broadcast_send(tf.constant(value), value.shape, tf.float64, 3, 3, 1)
                else:
                    out = collective_ops.broadcast_recv(value.shape, tf.float64, 3, 3, 1)
            graphs.append((g, out))

        def run(t):
            g, out = graphs[t]
            with tf.Session(_target(spec, t), graph=g) as s:
                return [s.run(out) for _ in range(2)]  # Two runs: the n-th meets the n-th.
        for got in _run_in_threads([lambda t=t: run(t) for t in range(3)]):
            assert not isinstance(got, Exception), got
            for v in got:
                np.testing.assert_array_equal(v, value)

        # All-reduce between-graph: each task's session runs its own op, three steps.
        workers = [_Worker(spec, t) for t in range(3)]
        for step in range(3):
            values = [np.full(10, t + 10 * step, np.float32) for t in range(3)]
            got = _run_in_threads([lambda w=w: w.reduce(values[w.task], 3, 4) for w in workers])
            for v in got:
                assert not isinstance(v, Exception), v
                np.testing.assert_array_equal(v, np.full(10, 3 + 30 * step, np.float32))
    finally:
        servers.stop()


def test_killed_member_fails_within_deadline_and_survivors_go_on():
    spec, servers = _cluster(3)
    try:
        workers = [_Worker(spec, t) for t in range(3)]
        ones = np.ones(2000000, np.float32)  # Several pieces per step.
        for v in _run_in_threads([lambda w=w: w.reduce(ones, 3, 9, timeout=3) for w in workers]):
            assert not isinstance(v, Exception), v
            np.testing.assert_array_equal(v, ones * 3)
        servers.procs[2].send_signal(signal.SIGKILL)
        servers.procs[2].wait()
        start = time.time()
        got = _run_in_threads([lambda w=w: w.reduce(ones, 3, 9, timeout=3) for w in workers[:2]])
        elapsed = time.time() - start
        for e in got:
            assert isinstance(e, tf.errors.OpError), e
            assert "/job:worker/replica:0/task:2" in str(e), str(e)
        # Task 1's send to the dead task fails at once, and its abort reaches task 0: neither
        # waits out the 3 s deadline (measured: 0.04 s).
        assert elapsed < 2.5, elapsed
        # A group that never forms (task 2 is gone) fails naming it too.
        got = _run_in_threads([lambda w=w: w.reduce(ones, 3, 10, timeout=2) for w in workers[:2]])
        for e in got:
            assert isinstance(e, tf.errors.DeadlineExceededError), e
            assert "tasks that never joined: /job:worker/replica:0/task:2" in str(e), str(e)
        # The survivors' sessions still work, with a live group.
        for v in _run_in_threads([lambda w=w: w.reduce(ones * (w.task + 1), 2, 11) for w in workers[:2]]):
            assert not isinstance(v, Exception), v
            np.testing.assert_array_equal(v, ones * 3)
    finally:
        servers.stop()


def test_errors_without_a_group():
    x = tf.constant([1.0, 2.0])
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(collective_ops.all_reduce(x, 1, 1, 1, "Add", "Div")), [1.0, 2.0])
        with pytest.raises(tf.errors.FailedPreconditionError, match="need a server"):
            s.run(collective_ops.all_reduce(x, 2, 1, 1))
        with pytest.raises(tf.errors.InvalidArgumentError, match="merge_op must be Add, Mul, Max or Min"):
            s.run(collective_ops.all_reduce(x, 2, 1, 1, merge_op="Sum"))


def test_all_reduce_in_a_cluster_with_a_token():
    # The tasks present the cluster token to each other's CollectiveService too.
    token = "collective-token-0123456789abcdef"
    security = tf.train.TransportSecurity(cluster_token=token)
    cluster = tf.train.ClusterSpec({"worker": ["localhost:%d" % free_port(), "localhost:%d" % free_port()]})
    servers = [tf.train.Server(cluster, job_name="worker", task_index=t, security=security) for t in range(2)]
    g = tf.Graph()
    with g.as_default():
        outs = []
        for t in range(2):
            with tf.device("/job:worker/task:%d" % t):
                outs.append(collective_ops.all_reduce(tf.constant([1.0, 2.0]) * (t + 1), 2, 1, 1, "Add", "Id"))
        with tf.Session(servers[0].target, graph=g, security=security) as s:
            for v in s.run(outs):
                np.testing.assert_array_equal(v, [3.0, 6.0])
    for server in servers:
        server.stop()


def test_members_with_different_sizes_fail_with_a_clear_error():
    from tensorweave.local_cluster import start_local_cluster
    _, servers = start_local_cluster("worker", 2)
    g = tf.Graph()
    with g.as_default():
        outs = []
        for t, size in enumerate((10, 12)):
            with tf.device("/job:worker/task:%d" % t):
                outs.append(collective_ops.all_reduce(tf.ones([size]), 2, 1, 1, "Add", "Id", timeout=20))
        start = time.time()
        with tf.Session(servers[0].target, graph=g) as s:
            with pytest.raises(tf.errors.OpError, match="the members' tensors differ in size"):
                s.run(outs)
        assert time.time() - start < 15  # The abort reaches the other member: no waiting out its deadline.
