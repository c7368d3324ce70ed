"""While loops whose body runs on another device or task than the loop (TF1's distributed
while loop): the partitioner's control loops start each iteration's receives on every
device, rendezvous keys name the iteration, and the last iteration's dead tensors travel.
Values and gradients equal the same program on one device; on a real 2-task cluster too."""
import threading

import numpy as np
import pytest

import tensorweave as tf
from conftest import ServerProcesses, free_port

TWO_CPUS = tf.ConfigProto(device_count={"CPU": 2})
W0 = np.array([[0.5, -0.2, 0.1], [0.1, 0.3, -0.4], [0.2, 0.0, 0.6]], np.float32)


@pytest.fixture(scope="module")
def cluster():
    addresses = ["localhost:%d" % free_port(), "localhost:%d" % free_port()]
    servers = ServerProcesses("local|" + ";".join(addresses), "local", 2)
    try:
        yield ["grpc://" + address for address in addresses]
    finally:
        servers.stop()


def _recurrence(loop_device, body_device):
    """x <- tanh(x W) + 0.1, n times, and the gradient of sum(x^2) with respect to W."""
    tf.reset_default_graph()
    with tf.device(loop_device):
        n = tf.placeholder(tf.int32, [], name="n")
        w = tf.Variable(W0, name="w")
        x0 = tf.constant([[1.0, 2.0, -1.0]])

    def body(i, x):
        with tf.device(body_device):
            y = tf.tanh(tf.matmul(x, w))
        return i + 1, y + 0.1

    with tf.device(loop_device):
        i, x = tf.while_loop(lambda i, x: i < n, body, [0, x0], name="recurrence")
        loss = tf.reduce_sum(x * x)
        (grad,) = tf.gradients(loss, [w])
    return n, [i, x, grad]


def _run(fetches, n, target="", config=None, steps=(0, 1, 4, 25)):
    with tf.Session(target, config=config) as sess:
        sess.run(tf.global_variables_initializer())
        return [sess.run(fetches, {n: k}, options=tf.RunOptions(timeout_in_ms=60000)) for k in steps]


def _assert_same(got, expected):
    for step_got, step_expected in zip(got, expected):
        for a, b in zip(step_got, step_expected):
            np.testing.assert_array_equal(a, b)


def test_loop_with_its_body_on_another_device_equals_one_device():
    n, fetches = _recurrence("/cpu:0", "/cpu:1")
    across = _run(fetches, n, config=TWO_CPUS)
    n, fetches = _recurrence("/cpu:0", "/cpu:0")
    _assert_same(across, _run(fetches, n))
    assert [int(step[0]) for step in across] == [0, 1, 4, 25]


def test_loop_with_its_body_on_another_task_equals_one_process(cluster):
    n, fetches = _recurrence("/job:local/task:0", "/job:local/task:1")
    across = _run(fetches, n, target=cluster[0])
    n, fetches = _recurrence("/cpu:0", "/cpu:0")
    _assert_same(across, _run(fetches, n))


def test_loop_run_from_the_task_that_holds_its_body(cluster):
    """The master is task 1, the loop's predicate is on task 0: each side pulls the other's
    tensors iteration by iteration."""
    n, fetches = _recurrence("/job:local/task:0", "/job:local/task:1")
    across = _run(fetches, n, target=cluster[1])
    n, fetches = _recurrence("/cpu:0", "/cpu:0")
    _assert_same(across, _run(fetches, n))


def test_power_iteration_on_a_ps_matrix_finds_numpy_top_eigenvalue(cluster):
    rng = np.random.default_rng(18)
    a = rng.standard_normal((16, 16))
    a = (a + a.T).astype(np.float64)
    tf.reset_default_graph()
    with tf.device("/job:local/task:0"):  # the "ps": the matrix and the loop's bookkeeping
        matrix = tf.Variable(a, name="matrix")
        v0 = tf.constant(np.ones((16, 1)) / 4.0)

    def body(i, v):
        with tf.device("/job:local/task:1"):  # the "worker": the products
            w = tf.matmul(matrix, tf.matmul(matrix, v))  # A^2: its top eigenvalue is the largest |lambda|^2
            return i + 1, w / tf.norm(w)

    with tf.device("/job:local/task:0"):
        _, v = tf.while_loop(lambda i, v: i < 300, body, [0, v0])
        rayleigh = tf.reduce_sum(v * tf.matmul(matrix, v))
    with tf.Session(cluster[0]) as sess:
        sess.run(tf.global_variables_initializer())
        value = sess.run(rayleigh, options=tf.RunOptions(timeout_in_ms=60000))
    eigenvalues = np.linalg.eigvalsh(a)
    np.testing.assert_allclose(value, eigenvalues[np.argmax(np.abs(eigenvalues))], rtol=1e-9)


def test_training_through_a_loop_across_tasks_matches_one_process(cluster):
    def losses(loop_device, body_device, target=""):
        n, (_, x, _) = _recurrence(loop_device, body_device)
        with tf.device(loop_device):
            loss = tf.reduce_sum(tf.square(x - 0.5))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session(target) as sess:
            sess.run(tf.global_variables_initializer())
            return [sess.run([loss, train], {n: 6})[0] for _ in range(5)]
    across = losses("/job:local/task:0", "/job:local/task:1", cluster[0])
    np.testing.assert_array_equal(across, losses("/cpu:0", "/cpu:0"))
    assert across[-1] < across[0]


def test_a_nested_loop_spanning_devices_is_unimplemented():
    tf.reset_default_graph()

    def inner(j, x):
        with tf.device("/cpu:1"):
            return j + 1, x * 2.0

    def outer(i, x):
        return i + 1, tf.while_loop(lambda j, y: j < 2, inner, [0, x], name="inner")[1]

    with tf.device("/cpu:0"):
        _, x = tf.while_loop(lambda i, x: i < 3, outer, [0, tf.constant(1.0)], name="outer")
    with tf.Session(config=TWO_CPUS) as sess:
        with pytest.raises(tf.errors.UnimplementedError, match="^while loop 'outer/inner' is nested in loop 'outer' "
                                                               "and spans devices or tasks"):
            sess.run(x)


def test_an_endless_loop_across_tasks_stops_at_its_deadline_and_the_cluster_stays_usable(cluster):
    tf.reset_default_graph()
    with tf.device("/job:local/task:0"):
        limit = tf.placeholder(tf.int32, [])

    def body(i):
        with tf.device("/job:local/task:1"):
            return i + 1

    with tf.device("/job:local/task:0"):
        i = tf.while_loop(lambda i: i < limit, body, [0])
    with tf.Session(cluster[1]) as sess:
        done = threading.Event()
        result = {}

        def endless():
            try:
                sess.run(i, {limit: 2 ** 31 - 1}, options=tf.RunOptions(timeout_in_ms=1500))
            except tf.errors.OpError as e:
                result["error"] = e
            done.set()
        threading.Thread(target=endless, daemon=True).start()
        assert done.wait(60), "the endless loop did not stop at its deadline"
        assert isinstance(result.get("error"), tf.errors.DeadlineExceededError), result
        assert sess.run(i, {limit: 10}) == 10
