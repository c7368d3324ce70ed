"""Shared fixtures: every test starts on a fresh default graph."""
import errno
import os
import random
import signal
import socket
import subprocess
import sys

import pytest

import tensorweave as tf

SOURCE_DIR = os.environ.get("TW_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
EXAMPLES_DIR = os.path.join(SOURCE_DIR, "python", "examples")


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


@pytest.fixture
def sess():
    with tf.Session() as s:
        yield s


def python_env():
    """The environment for a child python3 that must import the same tensorweave."""
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(tf.__file__))
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    return env


PYTHON = sys.executable


_PORTS_GIVEN = set()


def _ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(v) for v in f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32768, 60999


def _bindable(port):
    """Free on 127.0.0.1 and ::1 (a server on "localhost" may take either)."""
    for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.bind((host, port))
        except OSError as e:
            if family == socket.AF_INET6 and e.errno == errno.EADDRNOTAVAIL:
                continue  # no IPv6 loopback here
            return False
    return True


def free_port():
    """A loopback port free now, never given twice in this process. Picked at random below
    the kernel's ephemeral range: a port bind(0) hands out comes from that range, where the
    many client connections of concurrently running tests take their local ports too (a
    port picked there and released was seen taken by another process before the server
    that was to bind it started)."""
    low, _ = _ephemeral_range()
    low = min(low, 32768)
    rng = random.SystemRandom()
    for _ in range(1000):
        port = rng.randrange(max(1024, low - 12000), low)
        if port not in _PORTS_GIVEN and _bindable(port):
            _PORTS_GIVEN.add(port)
            return port
    raise RuntimeError("no free loopback port found below %d" % low)


class ServerProcesses:
    """`python3 -m tensorweave.server` (with `flags`) for each task of `spec`; stopped with SIGINT."""

    def __init__(self, spec, job, tasks, flags=()):
        self.procs = []
        for task in range(tasks):
            proc = subprocess.Popen(
                [PYTHON, "-m", "tensorweave.server", "--cluster_spec=" + spec, "--job_name=" + job,
                 "--task_index=%d" % task] + list(flags), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env=python_env())
            self.procs.append(proc)
            line = proc.stdout.readline()  # Printed once the task serves.
            assert line.startswith("Started server /job:%s/task:%d" % (job, task)), line + proc.stderr.read()

    def stop(self, signum=signal.SIGINT):
        outputs = []
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signum)
            # Generous: under AddressSanitizer the exit's leak check alone can take tens of seconds.
            out, err = proc.communicate(timeout=120)
            outputs.append((proc.returncode, out, err))
        return outputs


@pytest.fixture
def ps_and_worker():
    """(cluster dict, worker Server): a `python3 -m tensorweave.server` ps task and an in-process
    worker task, both stopped after the test."""
    cluster = {"ps": ["localhost:%d" % free_port()], "worker": ["localhost:%d" % free_port()]}
    spec = "ps|%s,worker|%s" % (cluster["ps"][0], cluster["worker"][0])
    ps = ServerProcesses(spec, "ps", 1)
    worker = tf.train.Server(tf.train.ClusterSpec(cluster), job_name="worker", task_index=0)
    try:
        yield cluster, worker
    finally:
        worker.stop()
        ps.stop()
