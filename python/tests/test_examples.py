"""The Python examples run on their own (starting their servers) and print the seeds' results;
create_worker.py serves a cluster that the distributed examples then use."""
import os
import re
import signal
import subprocess

import pytest

from conftest import EXAMPLES_DIR, PYTHON, free_port, python_env


def run_example(name, *args):
    result = subprocess.run([PYTHON, os.path.join(EXAMPLES_DIR, name), *args], capture_output=True, text=True,
                            env=python_env(), timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _mean_lines(out):
    found = re.match(r"(\S+)\nnumpy: (\S+)\n$", out)
    assert found, out
    return float(found.group(1)), float(found.group(2))


@pytest.mark.parametrize("name", ["hello_238.py", "distributed_238.py"])
def test_238(name):
    assert run_example(name) == "238\n"


@pytest.mark.parametrize("name", ["mean_of_random.py", "map_reduce_mean.py"])
def test_means_match_numpy(name):
    ours, numpy_mean = _mean_lines(run_example(name))
    assert abs(ours - numpy_mean) < 1e-5
    assert 0 < ours < 1


def test_create_worker_cluster_serves_the_distributed_examples():
    spec = "local|localhost:%d;localhost:%d" % (free_port(), free_port())
    workers = [subprocess.Popen([PYTHON, os.path.join(EXAMPLES_DIR, "create_worker.py"), str(task), spec],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=python_env())
               for task in range(2)]
    try:
        for task, worker in enumerate(workers):
            assert worker.stdout.readline() == "Starting server #%d\n" % task
        assert run_example("distributed_238.py", spec) == "238\n"
        ours, numpy_mean = _mean_lines(run_example("map_reduce_mean.py", spec))
        assert abs(ours - numpy_mean) < 1e-5
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGINT)
    for task, worker in enumerate(workers):
        out, err = worker.communicate(timeout=30)
        assert worker.returncode == 0, err
        assert out == "Stopped server #%d\n" % task
