"""Public TensorFlow 1.x programs that others wrote, run unmodified but for their imports
(tf1_programs/run_tf1_program.py) on synthetic MNIST-shaped data, each checked by what it
prints. The programs are not copied into this repository (third-party code), nor fetched by
any script of ours: a developer who wants these tests clones each repository named in
tf1_programs/README.md at its pinned commit and copies the named files into
TW_TF1_PROGRAMS_DIR (default build/tf1_programs). Without them the tests skip, saying so
(they fail instead when TW_REQUIRE_TF1_PROGRAMS=1). The project's own TF1 programs, which
always run, are in test_tf1_own_programs.py."""
import os
import re
import signal
import subprocess
import sys

import numpy as np

import pytest

from conftest import free_port, python_env
from tf_peer import BUILD_DIR

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf1_programs", "run_tf1_program.py")
PROGRAMS_DIR = os.environ.get("TW_TF1_PROGRAMS_DIR", os.path.join(BUILD_DIR, "tf1_programs"))


def _program(name):
    path = os.path.join(PROGRAMS_DIR, name)
    if not os.path.exists(path):
        reason = ("%s is not in %s: clone the repository python/tests/tf1_programs/README.md names for it, check "
                  "out the commit given there and copy the file into that folder (or set TW_TF1_PROGRAMS_DIR)"
                  % (name, PROGRAMS_DIR))
        if os.environ.get("TW_REQUIRE_TF1_PROGRAMS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def _run(name, *args, timeout=300, env_extra=None):
    env = python_env()
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, RUNNER, _program(name)] + list(args), capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=PROGRAMS_DIR)
    assert proc.returncode == 0, "%s exited %d:\n%s\n%s" % (name, proc.returncode, proc.stdout[-3000:],
                                                            proc.stderr[-3000:])
    return proc.stdout


def _accuracies(out, label):
    return [float(v) for v in re.findall(label + r"\s*([0-9.]+)", out)]


def _costs(out):
    return [float(v) for v in re.findall(r"cost=\s*([0-9.eE+-]+)", out)]


# (program, accuracy label printed, extra environment): each trains on synthetic MNIST.
ACCURACY_PROGRAMS = [
    ("logistic_regression.py", "Accuracy:", {"TW_MNIST_TRAIN": "2200"}),
    ("multilayer_perceptron.py", "Accuracy:", {"TW_MNIST_TRAIN": "2200"}),
    ("neural_network_raw.py", "Testing Accuracy:", {}),
    ("nearest_neighbor.py", "Accuracy:", {}),
]


@pytest.mark.parametrize("name,label,env", ACCURACY_PROGRAMS, ids=[p[0] for p in ACCURACY_PROGRAMS])
def test_program_learns(name, label, env):
    out = _run(name, env_extra=env)
    accuracies = _accuracies(out, label)
    assert accuracies and accuracies[-1] > 0.8, out[-2000:]
    costs = _costs(out)
    if len(costs) >= 2:
        assert costs[-1] < costs[0], costs


def test_mnist_softmax():
    out = _run("mnist_softmax.py")
    assert float(out.strip().splitlines()[-1]) > 0.8, out


def test_save_restore_model():
    out = _run("save_restore_model.py", env_extra={"TW_MNIST_TRAIN": "2200"})
    assert "Model saved in file: /tmp/model.ckpt" in out and "Model restored from file: /tmp/model.ckpt" in out
    first, second = _accuracies(out, "Accuracy:")[-2:]
    assert first > 0.8 and second >= first - 0.02, out
    # The second session continued from the restored weights: its first cost is the
    # first session's last, not an untrained model's.
    costs = _costs(out)
    assert costs[3] < costs[0] / 2, costs


@pytest.mark.parametrize("sync", [False, True], ids=["async", "sync_replicas"])
def test_mnist_replica_on_a_cluster(sync):
    """TensorFlow's distributed test program as its docstring runs it: one process per task
    (a ps and two workers, each starting its own tf.train.Server), the chief initializing
    through its Supervisor, the other worker waiting for it."""
    program = _program("mnist_replica.py")
    ps, w0, w1 = ("localhost:%d" % free_port() for _ in range(3))
    common = ["--ps_hosts=" + ps, "--worker_hosts=%s,%s" % (w0, w1), "--num_gpus=0", "--train_steps=30",
              "--sync_replicas=%s" % sync]
    procs = {}
    try:
        for job, index in (("ps", 0), ("worker", 1), ("worker", 0)):  # The non-chief waits for the chief.
            procs[job, index] = subprocess.Popen(
                [sys.executable, RUNNER, program, "--job_name=" + job, "--task_index=%d" % index] + common,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=python_env(), cwd=PROGRAMS_DIR)
        outputs = {key: procs[key].communicate(timeout=240) for key in (("worker", 0), ("worker", 1))}
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)  # The ps serves until stopped (server.join()).
                try:
                    proc.communicate(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.communicate()
    for key, (out, err) in outputs.items():
        assert procs[key].returncode == 0, out[-2000:] + err[-3000:]
        assert "Session initialization complete." in out
        xent = float(re.search(r"validation cross entropy = ([0-9.eE+-]+)", out).group(1))
        # Untrained, the summed cross-entropy over the 500 validation examples is 500 ln 10.
        assert xent < 500 * np.log(10) / 4, out[-1500:]
    steps = [int(n) for n in re.findall(r"global step: (\d+)", outputs["worker", 0][0])]
    assert steps[-1] >= 30


def test_runner_changes_only_the_imports_and_the_stand_in_has_mnist_shapes(tmp_path):
    """Runs without the fetched programs: the rewrite and the synthetic data set."""
    sys.path.insert(0, os.path.dirname(RUNNER))
    try:
        import input_data
        import run_tf1_program
    finally:
        sys.path.pop(0)
    source = ("import tensorflow as tf\nfrom tensorflow.examples.tutorials.mnist import input_data\n"
              "from tensorflow.contrib import rnn\nx = 'import tensorflow as tf'\n")
    assert run_tf1_program.rewrite_imports(source) == (
        "import tensorweave as tf\nimport input_data\nfrom tensorweave.contrib import rnn\n"
        "x = 'import tensorflow as tf'\n")
    # The --tensorflow mode: TF 2's compat.v1 with TF 1 behaviour and the contrib names.
    assert run_tf1_program.rewrite_imports("import tensorflow as tf\n", tensorflow=True).startswith(
        "import tensorflow.compat.v1 as tf; tf.disable_v2_behavior(); import tf_shim")
    mnist = input_data.read_data_sets("/nonexistent", one_hot=True)
    assert mnist.train.images.shape == (5500, 784) and mnist.train.labels.shape == (5500, 10)
    assert mnist.test.images.dtype == np.float32 and 0 <= mnist.test.images.min() <= mnist.test.images.max() <= 1
    xs, ys = mnist.train.next_batch(100)
    assert xs.shape == (100, 784) and np.all(ys.sum(axis=1) == 1)
    assert input_data.read_data_sets(None).validation.labels.dtype == np.uint8
    # A TF1 program of ours, through the runner: the flags reach it, __main__ is the program.
    program = tmp_path / "prog.py"
    program.write_text("import tensorflow as tf\nfrom tensorflow.examples.tutorials.mnist import input_data\n"
                       "tf.app.flags.DEFINE_integer('steps', 1, '')\nFLAGS = tf.app.flags.FLAGS\n"
                       "def main(_):\n  mnist = input_data.read_data_sets('/tmp', one_hot=True)\n"
                       "  with tf.Session() as s:\n    print(s.run(tf.reduce_sum(mnist.test.labels)) * FLAGS.steps)\n"
                       "if __name__ == '__main__':\n  tf.app.run()\n")
    out = subprocess.run([sys.executable, RUNNER, str(program), "--steps=3"], capture_output=True, text=True,
                         env=python_env(), timeout=60)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) == 3 * 1100
