"""Issue 14, item 11, through real processes (`python3 -m tensorweave.server` tasks with a
2 s --rpc_timeout_ms; RELIABILITY.md, "Faults across network namespaces"):
- a step that times out on one task while another task is stopped (SIGSTOP) names the
  stopped task too: the task whose call timed out may only be waiting for it (as the ps's
  sync-replicas accumulator waits for a stopped worker's gradients);
- in synchronous training (SyncReplicasOptimizer, a client process per worker under
  MonitoredTrainingSession) a worker whose chief stopped does not end silently: its client
  says that training stopped because the token queue closed (OutOfRange)."""
import signal
import subprocess
import time

import pytest

import tensorweave as tf
from conftest import PYTHON, ServerProcesses, free_port, python_env

CLIENT = r'''
import sys
import numpy as np
import tensorweave as tf

spec, task, last_step, replicas = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
jobs = dict(part.split("|") for part in spec.split(","))
cluster = tf.train.ClusterSpec({job: hosts.split(";") for job, hosts in jobs.items()})
graph = tf.Graph()
with graph.as_default(), tf.device(tf.train.replica_device_setter(cluster=cluster,
                                                                  worker_device="/job:worker/task:%d" % task)):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    step = tf.train.get_or_create_global_step()
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.01), replicas_to_aggregate=replicas,
                                         total_num_replicas=replicas)
    train = opt.minimize(loss, global_step=step)
    hooks = [opt.make_session_run_hook(task == 0)]
    if task == 0:
        hooks.append(tf.train.StopAtStepHook(last_step=last_step))
    X = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    Y = np.array([[1.0], [-2.0]], np.float32)
    with tf.train.MonitoredTrainingSession(master="grpc://" + jobs["worker"].split(";")[task], is_chief=task == 0,
                                           hooks=hooks, log_step_count_steps=0) as sess:
        print("worker %d: session ready" % task, flush=True)
        while not sess.should_stop():
            sess.run(train, feed_dict={x: X, y: Y})
print("worker %d: loop ended" % task, flush=True)
'''


@pytest.fixture
def cluster():
    ports = [free_port() for _ in range(3)]
    spec = "ps|localhost:%d,worker|localhost:%d;localhost:%d" % tuple(ports)
    flags = ["--rpc_timeout_ms=2000"]
    ps = ServerProcesses(spec, "ps", 1, flags)
    workers = ServerProcesses(spec, "worker", 2, flags)
    yield spec, workers.procs, ps.procs[0]
    for proc in workers.procs + ps.procs:
        proc.send_signal(signal.SIGCONT)
    workers.stop()
    ps.stop()


def _dequeue_timeout_message(spec):
    """A step that waits on the ps (a dequeue nothing feeds) until the rpc deadline."""
    worker0 = spec.split(",")[1].split("|")[1].split(";")[0]
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:ps/task:0"):
            value = tf.FIFOQueue(1, [tf.float32], shapes=[[]]).dequeue()
        with tf.Session("grpc://" + worker0) as sess:
            start = time.time()
            with pytest.raises(tf.errors.DeadlineExceededError) as failure:
                sess.run(value)
            return str(failure.value), time.time() - start


def test_a_step_that_times_out_names_the_stopped_task(cluster):
    spec, workers, _ = cluster
    message, secs = _dequeue_timeout_message(spec)
    assert "/job:ps/replica:0/task:0" in message and "every other task answered a status probe" in message, message
    workers[1].send_signal(signal.SIGSTOP)
    try:
        message, secs = _dequeue_timeout_message(spec)
    finally:
        workers[1].send_signal(signal.SIGCONT)
    # The ps, whose call timed out, answered its probe; worker 1 did not.
    assert "/job:ps/replica:0/task:0" in message, message
    assert "no answer to a status probe within 500ms from /job:worker/replica:0/task:1 (stopped" in message, message
    assert secs < 2 + 0.5 + 5, secs  # One rpc timeout, the probe, slack for a loaded machine.


def test_the_stall_warning_names_the_stopped_task():
    """With an rpc timeout longer than the master's 5 s stall warning, the warning comes first
    and names the stopped task as well as the one the step waits for."""
    ports = [free_port() for _ in range(3)]
    spec = "ps|localhost:%d,worker|localhost:%d;localhost:%d" % tuple(ports)
    flags = ["--rpc_timeout_ms=7000"]
    ps = ServerProcesses(spec, "ps", 1, flags)
    workers = ServerProcesses(spec, "worker", 2, flags)
    try:
        workers.procs[1].send_signal(signal.SIGSTOP)
        message, _ = _dequeue_timeout_message(spec)
    finally:
        workers.procs[1].send_signal(signal.SIGCONT)
        outputs = workers.stop()
        ps.stop()
    assert "/job:worker/replica:0/task:1 (stopped" in message, message
    master_log = outputs[0][2]
    warning = [line for line in master_log.splitlines() if "WARNING: step " in line]
    assert warning, master_log
    assert "for /job:ps/replica:0/task:0" in warning[0] and "has not returned" in warning[0], warning[0]
    assert "no answer to a status probe within 500ms from /job:worker/replica:0/task:1" in warning[0], warning[0]


def test_a_worker_whose_chief_stopped_says_why(cluster):
    spec, _, _ = cluster
    clients = []
    try:
        # Worker 1 starts once the chief initialized (else it would wait for it 30 s, TF's
        # recovery_wait_secs, between its checks).
        for task in (0, 1):
            clients.append(subprocess.Popen([PYTHON, "-c", CLIENT, spec, str(task), "30", "2"], stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, text=True, env=python_env()))
            if task == 0:
                assert clients[0].stdout.readline() == "worker 0: session ready\n", clients[0].stderr.read()
        outputs = [proc.communicate(timeout=120) for proc in clients]
    finally:
        for proc in clients:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    (chief_out, chief_err), (other_out, other_err) = outputs
    assert clients[0].returncode == 0 and "worker 0: loop ended" in chief_out, chief_err
    # The chief's end closed the token queue; worker 1's step ended with OutOfRange, which
    # MonitoredTrainingSession's exit takes as the end of training (as TF's), saying so.
    assert clients[1].returncode == 0 and "worker 1: loop ended" in other_out, other_err
    assert "MonitoredTrainingSession: training stopped by OutOfRangeError" in other_err, other_err
    assert "sync_token_q" in other_err, other_err  # The error names the queue that closed.


def test_a_chief_whose_step_times_out_exits_with_the_error(cluster):
    """The chief alone (1 replica) while the ps is stopped: its step and its sync loop's time
    out. The sync hook's end then raises the loop's error while MonitoredTrainingSession
    closes: that used to escape its destructor and abort the process (SIGABRT)."""
    spec, _, ps_proc = cluster
    chief = subprocess.Popen([PYTHON, "-c", CLIENT, spec, "0", "100000", "1"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=python_env())
    try:
        assert chief.stdout.readline() == "worker 0: session ready\n", chief.stderr.read()
        time.sleep(0.5)  # Training.
        ps_proc.send_signal(signal.SIGSTOP)
        try:
            _, err = chief.communicate(timeout=30)
        finally:
            ps_proc.send_signal(signal.SIGCONT)
    finally:
        if chief.poll() is None:
            chief.kill()
            chief.communicate()
    assert chief.returncode == 1, (chief.returncode, err[-3000:])
    assert "DeadlineExceededError" in err and "/job:ps/replica:0/task:0 (stopped" in err, err[-3000:]
    assert "terminate called" not in err
