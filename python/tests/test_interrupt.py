"""Ctrl-C during a long Session.run: the step is cancelled (on a cluster the master aborts it
on the workers), KeyboardInterrupt is raised, and the session runs the next step."""
import signal
import subprocess
import textwrap
import threading
import time

import pytest

from conftest import PYTHON, ServerProcesses, free_port, python_env

# Blocks in a dequeue from an empty queue until interrupted, then runs another step; blocks
# again, and this second interrupt is left uncaught.
_SCRIPT = textwrap.dedent("""
    import sys
    import tensorweave as tf
    q = tf.FIFOQueue(10, tf.float32, shapes=[])
    waits = q.dequeue()
    x = tf.placeholder(tf.float32, [])
    with tf.Session(sys.argv[1]) as sess:
        try:
            print("running", flush=True)
            sess.run(waits)
            print("the dequeue returned", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        print("next step", sess.run(x * 2, {x: 21}), flush=True)
        print("running again", flush=True)
        sess.run(waits)
""")


# The same inside a MonitoredTrainingSession (a training loop's usual session).
_MONITORED_SCRIPT = _SCRIPT.replace(
    "with tf.Session(sys.argv[1]) as sess:",
    "tf.train.get_or_create_global_step()\n"
    "with tf.train.MonitoredTrainingSession(master=sys.argv[1], log_step_count_steps=0) as sess:")


def _interrupt_twice(target, script=_SCRIPT):
    proc = subprocess.Popen([PYTHON, "-c", script, target], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=python_env())
    # A run that Ctrl-C does not end would block the reads below: kill the child then.
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        assert proc.stdout.readline() == "running\n", proc.stderr.read()
        time.sleep(0.5)  # Most likely inside the run by then (either way it is interrupted).
        proc.send_signal(signal.SIGINT)
        assert proc.stdout.readline() == "interrupted\n", proc.stderr.read()
        assert proc.stdout.readline() == "next step 42.0\n", proc.stderr.read()
        assert proc.stdout.readline() == "running again\n", proc.stderr.read()
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    # An uncaught KeyboardInterrupt: the traceback, and Python ends the process by SIGINT.
    assert proc.returncode == -signal.SIGINT, (proc.returncode, out, err)
    assert "KeyboardInterrupt" in err
    assert "the dequeue returned" not in out


def test_ctrl_c_interrupts_a_local_run():
    _interrupt_twice("")


@pytest.fixture
def server_process():
    address = "localhost:%d" % free_port()
    servers = ServerProcesses("local|" + address, "local", 1)
    yield "grpc://" + address
    servers.stop()


def test_ctrl_c_interrupts_a_grpc_run(server_process):
    _interrupt_twice(server_process)


def test_ctrl_c_interrupts_a_monitored_training_session_run(server_process):
    _interrupt_twice(server_process, _MONITORED_SCRIPT)
