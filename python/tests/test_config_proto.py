"""tf.ConfigProto and tf.RunOptions: TensorFlow's fields accepted as protobuf does, and the
ones honoured here shown by their effect (device_filters on a cluster, operation and run
timeouts, placement, thread counts); the others warn once."""
import logging as py_logging
import time

import numpy as np
import pytest

import tensorweave as tf

from conftest import ServerProcesses, free_port


def test_fields_defaults_and_nested_messages():
    config = tf.ConfigProto(allow_soft_placement=True, device_count={"CPU": 2, "GPU": 0},
                            device_filters=["/job:ps", "/job:worker/task:1"], inter_op_parallelism_threads=2,
                            intra_op_parallelism_threads=3, operation_timeout_in_ms=500,
                            gpu_options=tf.GPUOptions(allow_growth=True, per_process_gpu_memory_fraction=0.5,
                                                      visible_device_list="0"),
                            graph_options=tf.GraphOptions(optimizer_options=tf.OptimizerOptions(
                                opt_level=tf.OptimizerOptions.L0, do_constant_folding=True)))
    assert config.allow_soft_placement is True and config.log_device_placement is False
    assert config.device_count == {"CPU": 2, "GPU": 0} and config.device_filters == ["/job:ps", "/job:worker/task:1"]
    assert config.gpu_options.allow_growth and config.gpu_options.per_process_gpu_memory_fraction == 0.5
    assert config.graph_options.optimizer_options.opt_level == -1
    assert config.use_per_session_threads is False and config.isolate_session_state is False
    # As protobuf: nested messages are changed in place, repeated fields are lists.
    config.gpu_options.allow_growth = False
    config.device_filters.append("/job:chief")
    assert config.device_filters[-1] == "/job:chief" and not config.gpu_options.allow_growth
    plain = tf.ConfigProto()
    assert plain.gpu_options == tf.GPUOptions() and plain.operation_timeout_in_ms == 0
    copy = tf.ConfigProto()
    copy.CopyFrom(config)
    assert copy == config and copy != plain
    assert tf.RunOptions(timeout_in_ms=5, trace_level=tf.RunOptions.FULL_TRACE).trace_level == 3


def test_bad_fields_are_refused_as_protobuf_does():
    with pytest.raises(ValueError, match='Protocol message ConfigProto has no "allow_growth" field'):
        tf.ConfigProto(allow_growth=True)
    with pytest.raises(TypeError):  # Also a TypeError: an unexpected keyword.
        tf.GPUOptions(allow_soft_placement=True)
    with pytest.raises(TypeError, match="'yes' has type str"):
        tf.ConfigProto(intra_op_parallelism_threads="yes")
    config = tf.ConfigProto()
    with pytest.raises(AttributeError, match='Assignment not allowed to field "gpu_options"'):
        config.gpu_options = tf.GPUOptions()
    with pytest.raises(AttributeError):
        config.no_such_field = 1
    with pytest.raises(ValueError, match="operation_timeout_in_ms must not be negative"):
        tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=-1))


def test_ignored_fields_warn_once_naming_the_field(caplog):
    logger = py_logging.getLogger("tensorweave")
    logger.propagate = True
    try:
        with caplog.at_level(py_logging.WARNING, logger="tensorweave"):
            config = tf.ConfigProto(gpu_options=tf.GPUOptions(allow_growth=True), isolate_session_state=True)
            tf.Session(config=config).close()
            tf.Session(config=config).close()
    finally:
        logger.propagate = False
    messages = [r.getMessage() for r in caplog.records]
    assert messages.count("ConfigProto.gpu_options.allow_growth is accepted and ignored by tensorweave") == 1
    assert messages.count("ConfigProto.isolate_session_state is accepted and ignored by tensorweave") == 1
    assert not any("allow_soft_placement" in m for m in messages)


def test_operation_timeout_fails_a_blocked_step():
    queue = tf.FIFOQueue(1, tf.float32, shapes=[[]])
    item = queue.dequeue()  # Never fed: blocks.
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=200)) as sess:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out waiting for notification"):
            sess.run(item)
        assert 0.15 < time.monotonic() - start < 10
        assert sess.run(tf.constant(3.0)) == 3.0  # The session stays usable.


def test_run_options_timeout_overrides_the_session():
    queue = tf.FIFOQueue(1, tf.float32, shapes=[[]])
    item = queue.dequeue()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DeadlineExceededError, match="ran longer than 100 ms"):
            sess.run(item, options=tf.RunOptions(timeout_in_ms=100))
        sess.run(queue.enqueue(4.0))
        assert sess.run(item, options=tf.RunOptions(timeout_in_ms=5000)) == 4.0
        with pytest.raises(TypeError, match="options must be a tf.RunOptions"):
            sess.run(item, options={"timeout_in_ms": 5})


def test_soft_placement_and_device_count():
    with tf.device("/cpu:1"):
        x = tf.constant(2.0) * 3.0
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        assert sess.run(x) == 6.0
        assert len(sess.list_devices()) == 2
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="allow_soft_placement"):
            sess.run(x)
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        assert sess.run(x) == 6.0


def test_log_device_placement_prints_placement(capfd):
    x = tf.constant(1.0, name="placed_const")
    with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
        sess.run(x)
    assert "placed_const" in capfd.readouterr().err


@pytest.fixture
def ps_worker_cluster():
    """ps:0 and worker:0,1 as server processes, as mnist_replica.py runs them."""
    ps, w0, w1 = ("localhost:%d" % free_port() for _ in range(3))
    spec = "ps|%s,worker|%s;%s" % (ps, w0, w1)
    servers = [ServerProcesses(spec, "ps", 1)]
    try:
        servers.append(ServerProcesses(spec, "worker", 2))
        yield {"ps": ps, "worker": [w0, w1]}
    finally:
        for s in servers:
            s.stop()


def test_device_filters_keep_workers_apart(ps_worker_cluster):
    workers = ps_worker_cluster["worker"]
    with tf.device("/job:worker/task:1"):
        other = tf.constant(5.0) + 1.0
    with tf.device("/job:ps/task:0"):
        on_ps = tf.constant(2.0) * 4.0
    filters = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:0"])
    with tf.Session("grpc://" + workers[0], config=filters) as sess:
        devices = sess.list_devices()
        assert sorted(devices) == ["/job:ps/replica:0/task:0/device:CPU:0",
                                   "/job:worker/replica:0/task:0/device:CPU:0"], devices
        assert sess.run(on_ps) == 8.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="worker/task:1|job:worker.*task:1"):
            sess.run(other)  # Pinned outside the filter: an error, as in TF.
    soft = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:0"], allow_soft_placement=True)
    with tf.Session("grpc://" + workers[0], config=soft) as sess:
        assert sess.run(other) == 6.0  # Placed on a device the filter keeps instead.
    with tf.Session("grpc://" + workers[0]) as sess:
        assert len(sess.list_devices()) == 3 and sess.run(other) == 6.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="device_filters: '/job:ps/bogus:1' is not a device name"):
        with tf.Session("grpc://" + workers[0], config=tf.ConfigProto(device_filters=["/job:ps/bogus:1"])) as sess:
            sess.run(on_ps)


def test_operation_timeout_on_a_cluster(ps_worker_cluster):
    with tf.device("/job:ps/task:0"):
        queue = tf.FIFOQueue(1, tf.float32, shapes=[[]], shared_name="never_fed")
        item = queue.dequeue()
    config = tf.ConfigProto(operation_timeout_in_ms=300)
    with tf.Session("grpc://" + ps_worker_cluster["worker"][0], config=config) as sess:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out"):
            sess.run(item)
        assert time.monotonic() - start < 20
        assert np.isclose(sess.run(tf.constant(1.5)), 1.5)


def test_thread_counts_size_the_session_pools():
    """inter/intra_op_parallelism_threads: each extra thread asked for is one more thread in
    the process (sessions kept open, counted in a fresh process)."""
    import subprocess
    import sys
    from conftest import python_env
    script = """
import os, tensorweave as tf
x = tf.constant(1.0) + 1.0
def threads(): return len(os.listdir('/proc/self/task'))
sessions = []
for inter, intra in [(1, 1), (7, 1), (1, 5)]:
    before = threads()
    sessions.append(tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=inter,
                                                     intra_op_parallelism_threads=intra)))
    sessions[-1].run(x)
    print(threads() - before)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=python_env(), timeout=60)
    assert out.returncode == 0, out.stderr
    first, more_inter, more_intra = (int(v) for v in out.stdout.split())
    # Each session: its inter-op pool plus its device's intra-op pool (the first session
    # also starts a thread the process keeps).
    assert (more_inter, more_intra) == (7 + 1, 1 + 5) and first >= 2, out.stdout
