"""Shared fixtures: every test starts on a fresh default graph."""
import os
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


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


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
            out, err = proc.communicate(timeout=30)
            outputs.append((proc.returncode, out, err))
        return outputs
