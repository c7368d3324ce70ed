"""The project's own TensorFlow 1.x programs (tf1_programs/ourselves/, written in TF1 users'
style), each run twice through tf1_programs/run_tf1_program.py: on tensorweave and on real
TensorFlow (compat.v1), the import line the only change. Where the computation is
deterministic (NumPy data, NumPy starting values) both must print the same numbers within
a tolerance; elsewhere (dropout, asynchronous clusters) each system is checked by what it
printed and left on disk: learned, saved, resumed, stopped at the step asked."""
import os
import re
import signal
import subprocess
import sys

import pytest

from conftest import free_port, python_env
from tf_peer import require_tensorflow, tf_env

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "tf1_programs", "run_tf1_program.py")
PROGRAMS = os.path.join(HERE, "tf1_programs", "ourselves")
NUMBER = re.compile(r"^-?\d+(\.\d+)?(e[-+]?\d+)?$")


class System:
    """How to start a program on one system, and a scratch directory of its own."""

    def __init__(self, name, python, mode_args, env, scratch):
        self.name, self.python, self.mode_args, self.env, self.scratch = name, python, mode_args, env, scratch
        os.makedirs(scratch, exist_ok=True)

    def start(self, program, *args):
        return subprocess.Popen([self.python, RUNNER] + self.mode_args + [os.path.join(PROGRAMS, program)] +
                                list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env, cwd=self.scratch)

    def path(self, name):
        return os.path.join(self.scratch, name)


@pytest.fixture
def systems(tmp_path):
    tf_python = require_tensorflow("test_tf1_own_programs")
    return (System("tensorweave", sys.executable, [], python_env(), str(tmp_path / "tensorweave")),
            System("tensorflow", tf_python, ["--tensorflow"], tf_env(), str(tmp_path / "tensorflow")))


def _finish(system, proc, what, timeout=120):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail("%s on %s ran past %d s:\n%s" % (what, system.name, timeout, err[-3000:]))
    assert proc.returncode == 0, "%s on %s exited %d:\n%s\n%s" % (what, system.name, proc.returncode,
                                                                  out[-2000:], err[-3000:])
    return out, err


def _run_on_both(systems, program, *runs):
    """Runs `program` with each argument list of `runs` in turn (a later run sees what an
    earlier one left), on both systems at once; {system name: [(stdout, stderr) per run]}."""
    runs = runs or ((),)
    results = {s.name: [] for s in systems}
    for args in runs:
        procs = [(s, s.start(program, *[a.replace("{scratch}", s.scratch) for a in args])) for s in systems]
        for system, proc in procs:
            results[system.name].append(_finish(system, proc, program))
    return results


def _assert_same_output(ours, theirs, rtol=1e-4, atol=1e-5):
    """Same lines, same words; numbers equal within rtol / atol."""
    ours_lines, their_lines = ours.strip().splitlines(), theirs.strip().splitlines()
    assert len(ours_lines) == len(their_lines), "tensorweave:\n%s\nTensorFlow:\n%s" % (ours, theirs)
    for mine, other in zip(ours_lines, their_lines):
        mine_words, other_words = mine.split(), other.split()
        assert len(mine_words) == len(other_words), (mine, other)
        for a, b in zip(mine_words, other_words):
            if NUMBER.match(a) and NUMBER.match(b):
                assert float(a) == pytest.approx(float(b), rel=rtol, abs=atol), (mine, other)
            else:
                assert a == b, (mine, other)


def _numbers(pattern, text):
    return [float(v) for v in re.findall(pattern, text)]


def test_flags_gfile_and_logging(systems):
    results = _run_on_both(systems, "flags_gfile_logging.py",
                           ["--workdir={scratch}/work", "--num_shards=4", "--scale=2.5", "--keep=false",
                            "--words=one,two,three"])
    (ours, our_err), = results["tensorweave"]
    (theirs, their_err), = results["tensorflow"]
    _assert_same_output(ours, theirs, rtol=0, atol=0)
    # Shards 10, 20 (renamed) and 40 remain (30 was removed), scaled by 2.5.
    assert "total: 175.0000" in ours
    assert "listing: ['shard-0.txt', 'shard-1.txt', 'shard-2.txt', 'shard-3.txt']" in ours
    assert "flags: 4 2.5 False ['one', 'two', 'three']" in ours
    assert "backup: one two three 10" in ours
    assert "exists at the end: False" in ours and not os.path.exists(systems[0].path("work"))
    for err in (our_err, their_err):
        assert re.search(r"INFO:\w+:writing 4 shards to ", err), err[-2000:]


def test_linear_regression_matches_tensorflow(systems):
    results = _run_on_both(systems, "linear_regression.py", ["--steps=150"])
    ours, theirs = results["tensorweave"][0][0], results["tensorflow"][0][0]
    _assert_same_output(ours, theirs, rtol=1e-3, atol=1e-5)
    assert _numbers(r"final loss ([0-9.]+)", ours)[0] < 1e-3, ours


def test_each_optimizer_matches_tensorflow(systems):
    results = _run_on_both(systems, "optimizers.py", ["--steps=40"])
    ours, theirs = results["tensorweave"][0][0], results["tensorflow"][0][0]
    _assert_same_output(ours, theirs, rtol=1e-3, atol=1e-5)
    for name in ("sgd", "momentum", "adam", "adagrad", "rmsprop"):
        found = re.search(r"%s: step 40 loss ([0-9.]+) -> ([0-9.]+)" % name, ours)
        assert found, ours
        first, last = float(found.group(1)), float(found.group(2))
        assert last < first / 2, ours


def test_mnist_mlp_with_dropout_learns(systems):
    results = _run_on_both(systems, "mnist_mlp.py", ["--data_dir={scratch}/mnist", "--train_steps=100"])
    for name, [(out, _)] in results.items():
        initial, test_loss = _numbers(r"initial loss ([0-9.]+)", out)[0], _numbers(r"test loss ([0-9.]+)", out)[0]
        assert test_loss < initial / 4 and _numbers(r"test accuracy ([0-9.]+)", out)[0] > 0.8, (name, out)


def test_saver_save_and_restore(systems):
    results = _run_on_both(systems, "save_restore.py", ["--checkpoint_dir={scratch}/ckpt"])
    ours, theirs = results["tensorweave"][0][0], results["tensorflow"][0][0]
    _assert_same_output(ours, theirs, rtol=1e-4, atol=1e-5)
    assert "restored equal: True" in ours and "initialized before restore: False" in ours
    assert "kept ['model.ckpt-20.index', 'model.ckpt-30.index']" in ours  # max_to_keep=2


def test_supervisor_saves_and_resumes(systems):
    results = _run_on_both(systems, "supervisor_resume.py", ["--logdir={scratch}/logdir"],
                           ["--logdir={scratch}/logdir"])
    for ours, theirs in zip(results["tensorweave"], results["tensorflow"]):
        _assert_same_output(ours[0], theirs[0], rtol=1e-3, atol=1e-5)
    first, second = (out for out, _ in results["tensorweave"])
    assert "starting at step 0" in first and "stopped at step 20" in first
    assert "starting at step 20" in second and "stopped at step 40" in second
    files = os.listdir(systems[0].path("logdir"))
    assert "checkpoint" in files and "model.ckpt-40.index" in files, files
    loss_first, loss_second = _numbers(r"loss ([0-9.]+)", first)[0], _numbers(r"loss ([0-9.]+)", second)[0]
    assert loss_second < loss_first


def test_monitored_training_session_with_hooks_resumes(systems):
    results = _run_on_both(systems, "monitored_hooks.py", ["--checkpoint_dir={scratch}/ckpt"],
                           ["--checkpoint_dir={scratch}/ckpt", "--last_step=70"])
    for ours, theirs in zip(results["tensorweave"], results["tensorflow"]):
        _assert_same_output(ours[0], theirs[0], rtol=1e-3, atol=1e-5)
    first, second = (out for out, _ in results["tensorweave"])
    assert "steps run 40" in first and "checkpoint model.ckpt-40" in first
    assert "steps run 30" in second and "checkpoint model.ckpt-70" in second  # Continued from step 40.


def _start_cluster(system, program, workers, extra):
    """One process per task, each on a free loopback port: the ps first, the chief last
    (the others wait for it). The ps serves until it is stopped."""
    ps_hosts = "localhost:%d" % free_port()
    worker_hosts = ",".join("localhost:%d" % free_port() for _ in range(workers))
    common = ["--ps_hosts=" + ps_hosts, "--worker_hosts=" + worker_hosts] + list(extra)
    procs = [system.start(program, "--job_name=ps", "--task_index=0", *common)]
    for index in reversed(range(workers)):
        procs.append(system.start(program, "--job_name=worker", "--task_index=%d" % index, *common))
    return procs


def _stop(system, proc):
    if proc.poll() is None:
        # tensorweave's server.join() ends on Ctrl-C; TensorFlow's blocks in C++ and ignores it.
        proc.send_signal(signal.SIGINT if system.name == "tensorweave" else signal.SIGKILL)
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def _run_clusters(systems, program, workers, extra):
    """The program's cluster on each system at once; {system name: the workers' outputs,
    task 0 first}. Every process is stopped, whatever happens."""
    started = []
    try:
        for system in systems:
            started.append((system, _start_cluster(system, program, workers,
                                                   [a.replace("{scratch}", system.scratch) for a in extra])))
        results = {}
        for system, procs in started:
            outputs = [_finish(system, proc, "%s worker %d" % (program, index), timeout=150)[0]
                       for index, proc in zip(reversed(range(workers)), procs[1:])]
            results[system.name] = outputs[::-1]
        return results
    finally:
        for system, procs in started:
            for proc in procs:
                _stop(system, proc)


def _worker_lines(outputs):
    found = [re.search(r"worker (\d+): (\d+) local steps, global step (\d+), loss ([0-9.]+) -> ([0-9.]+)", out)
             for out in outputs]
    assert all(found), outputs
    return [(int(m.group(2)), int(m.group(3)), float(m.group(4)), float(m.group(5))) for m in found]


def test_async_cluster_with_supervisor(systems):
    results = _run_clusters(systems, "cluster_async_supervisor.py", 2,
                            ["--train_steps=60", "--logdir={scratch}/logdir"])
    for system in systems:
        outputs = results[system.name]
        (chief_steps, chief_global, chief_first, chief_last), (_, other_global, _, _) = _worker_lines(outputs)
        assert chief_global >= 60 and other_global >= 60, (system.name, outputs)
        assert chief_last < chief_first / 2, (system.name, outputs)
        assert any(f.endswith(".index") for f in os.listdir(system.path("logdir"))), system.name


def test_sync_replicas_cluster(systems):
    results = _run_clusters(systems, "cluster_sync_replicas.py", 2, ["--train_steps=30"])
    for system in systems:
        outputs = results[system.name]
        lines = _worker_lines(outputs)
        # The step read beside the sync train op is the one before the update: 29 when the
        # hook stops at 30. Each update averaged two gradients (a late worker's are few).
        assert all(global_step >= 29 and local_steps >= 1 for local_steps, global_step, _, _ in lines), outputs
        assert sum(local_steps for local_steps, _, _, _ in lines) >= 2 * 29, (system.name, outputs)
        _, _, chief_first, chief_last = lines[0]
        assert chief_last < chief_first / 10, (system.name, outputs)
