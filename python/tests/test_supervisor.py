"""tf.train.Supervisor and tf.train.Coordinator: a training loop under managed_session that
saves checkpoints and resumes from them, a chief and a non-chief on a two-task cluster,
request_stop from a thread, errors raised again after the stop."""
import os
import threading
import time

import numpy as np
import pytest

import tensorweave as tf

from conftest import ServerProcesses, free_port


def _model(device=None):
    """loss = (w - 3)^2 by SGD(0.1): w_{t+1} = w_t - 0.2 (w_t - 3), counted by the global step."""
    with tf.device(device):
        step = tf.train.get_or_create_global_step()
        w = tf.Variable(0.0, name="w")
    loss = tf.square(w - 3.0)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return step, w, loss, train


def _sgd(steps, w=0.0):
    for _ in range(steps):
        w -= 0.2 * (w - 3.0)
    return w


def test_managed_session_trains_saves_and_resumes(tmp_path):
    logdir = str(tmp_path)
    step, w, loss, train = _model()
    sv = tf.train.Supervisor(logdir=logdir, save_model_secs=3600, recovery_wait_secs=0.1)
    assert sv.is_chief and sv.global_step.name == "global_step:0" and sv.saver is not None
    assert sv.save_path == str(tmp_path / "model.ckpt")
    losses = []
    with sv.managed_session() as sess:
        while not sv.should_stop():
            losses.append(sess.run([train, loss])[1])
            if sess.run(step) >= 5:
                sv.request_stop()
    assert losses == sorted(losses, reverse=True) and len(losses) == 5
    # Saved when the checkpoint thread started and at the stop (step 5). The first save lands
    # at whatever step the training thread has reached by then: 0 on an idle machine, later
    # under a sanitizer's slowdown.
    assert tf.train.latest_checkpoint(logdir) == str(tmp_path / "model.ckpt-5")
    steps = sorted(int(p.name[len("model.ckpt-"):-len(".index")]) for p in tmp_path.glob("model.ckpt-*.index"))
    assert steps[-1] == 5 and 0 <= steps[0] <= 5, steps

    # A new program on the same logdir resumes at step 5 with w as it was.
    tf.reset_default_graph()
    step, w, loss, train = _model()
    sv = tf.train.Supervisor(logdir=logdir, save_model_secs=3600)
    with sv.managed_session() as sess:
        assert sess.run(step) == 5
        np.testing.assert_allclose(sess.run(w), _sgd(5), rtol=1e-6)
        for _ in range(3):
            sess.run(train)
        assert sess.run(step) == 8
    assert tf.train.latest_checkpoint(logdir) == str(tmp_path / "model.ckpt-8")


def test_checkpoints_every_save_model_secs(tmp_path):
    step, _, _, train = _model()
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0.2)
    saved = set()
    with sv.managed_session() as sess:
        deadline = time.time() + 20
        while len(saved) < 3 and time.time() < deadline:
            sess.run(train)
            time.sleep(0.05)
            saved = {p.name for p in tmp_path.glob("model.ckpt-*.index")}
    assert len(saved) >= 3, saved  # The timer saved while the loop ran, not only at start and stop.


def test_without_logdir_nothing_is_saved_and_init_runs(tmp_path):
    _, w, _, train = _model()
    sv = tf.train.Supervisor(logdir=None)
    with sv.managed_session() as sess:
        assert sess.run(w) == 0.0
        sess.run(train)
    assert sv.save_path is None and list(tmp_path.iterdir()) == []


def test_request_stop_from_a_thread(tmp_path):
    step, _, _, train = _model()
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=3600)
    with sv.managed_session() as sess:
        stopper = threading.Timer(0.3, sv.request_stop)
        stopper.start()
        steps = 0
        while not sv.should_stop():
            sess.run(train)
            steps += 1
            assert steps < 10 ** 6
        stopper.join()
        final = sess.run(step)
    assert final == steps > 0
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / ("model.ckpt-%d" % final))


def test_an_error_in_managed_session_is_raised_after_the_stop(tmp_path):
    _, _, _, train = _model()
    x = tf.placeholder(tf.float32, [2])
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=3600)
    with pytest.raises(ValueError, match="boom"):
        with sv.managed_session() as sess:
            sess.run(train)
            raise ValueError("boom")
    assert sv.should_stop()
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "model.ckpt-1")  # Saved at the stop.
    with pytest.raises(tf.errors.InvalidArgumentError):
        with sv.managed_session() as sess:
            sess.run(x * 2.0)  # x not fed: the op error is raised again after the stop.


def test_out_of_range_ends_managed_session_quietly():
    queue = tf.FIFOQueue(2, tf.float32, shapes=[[]])
    fill = queue.enqueue_many([[1.0, 2.0]])
    close = queue.close()
    item = queue.dequeue()
    sv = tf.train.Supervisor(logdir=None)
    seen = []
    with sv.managed_session() as sess:
        sess.run(fill)
        sess.run(close)
        while not sv.should_stop():
            seen.append(sess.run(item))
    assert seen == [1.0, 2.0]


def test_defaults_and_arguments():
    _, w, _, train = _model()
    assert tf.train.Supervisor.USE_DEFAULT == 0
    init_fn_calls = []
    init_all = tf.global_variables_initializer()
    sv = tf.train.Supervisor(init_op=None, init_fn=lambda sess: (init_fn_calls.append(1), sess.run(init_all)),
                             ready_op=None, summary_op=None, saver=None, global_step=None, logdir=None)
    assert sv.saver is None and sv.global_step is None and sv.ready_op is None
    with sv.managed_session() as sess:
        assert init_fn_calls == [1] and sess.run(w) == 0.0
    # A model no init op makes ready: TF's message names the variable.
    tf.reset_default_graph()
    _model()
    sv = tf.train.Supervisor(init_op=tf.no_op(), logdir=None)
    with pytest.raises(RuntimeError, match="Init operations did not make model ready.*Variables not initialized: "
                                           "global_step, w"):
        sv.prepare_or_wait_for_session()


def test_non_chief_needs_placed_variables():
    _model()
    with pytest.raises(ValueError, match="all Variables must have their device set"):
        tf.train.Supervisor(is_chief=False)


def test_coordinator_join_reraises_and_names_stragglers():
    coord = tf.train.Coordinator()

    def fails():
        with coord.stop_on_exception():
            raise KeyError("in a thread")

    t = threading.Thread(target=fails)
    t.start()
    with pytest.raises(KeyError, match="in a thread"):
        coord.join([t])
    coord.clear_stop()
    assert not coord.should_stop()
    hang = threading.Event()
    t = threading.Thread(target=hang.wait, name="straggler")
    t.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="threads still running: straggler"):
        coord.join([t], stop_grace_period_secs=0.1)
    hang.set()
    coord.clear_stop()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "end of input"))
    coord.join([])  # The end of the input is a clean stop.


@pytest.fixture
def two_task_cluster():
    addresses = ["localhost:%d" % free_port(), "localhost:%d" % free_port()]
    servers = ServerProcesses("local|" + ";".join(addresses), "local", 2)
    yield addresses
    servers.stop()


def test_chief_and_non_chief_on_a_cluster(two_task_cluster, tmp_path):
    addresses = two_task_cluster
    results = {}
    chief_done = threading.Event()

    def task(index):
        try:
            with tf.Graph().as_default():
                step, w, _, train = _model(device="/job:local/task:1")
                sv = tf.train.Supervisor(is_chief=index == 0, logdir=str(tmp_path) if index == 0 else None,
                                         recovery_wait_secs=0.1, save_model_secs=3600)
                if index == 0:
                    time.sleep(0.5)  # The non-chief waits for the chief's init.
                with sv.managed_session("grpc://" + addresses[index]) as sess:
                    results[index, "first"] = sess.run(w)
                    if index == 1:
                        assert chief_done.wait(30)  # One task at a time: the values are exact.
                    for _ in range(3):
                        sess.run(train)
                    if index == 0:
                        chief_done.set()
                    results[index, "ready"] = True
        except BaseException as e:  # pylint: disable=broad-except - reported below.
            results[index, "error"] = e

    threads = [threading.Thread(target=task, args=(i,)) for i in (1, 0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(k[1] == "error" for k in results), results
    assert results[1, "ready"] and results[0, "ready"]
    # The non-chief saw the model the chief initialized (w was not yet readable when it started).
    assert results[0, "first"] == 0.0 and results[1, "first"] in [np.float32(_sgd(n)) for n in range(4)]
    with tf.Graph().as_default():
        step, w, _, _ = _model(device="/job:local/task:1")
        with tf.Session("grpc://" + addresses[1]) as sess:
            assert sess.run(step) == 6
            np.testing.assert_allclose(sess.run(w), _sgd(6), rtol=1e-5)
    assert tf.train.latest_checkpoint(str(tmp_path)) is not None


def test_non_chief_times_out_when_no_chief_comes(two_task_cluster):
    _model(device="/job:local/task:1")
    sv = tf.train.Supervisor(is_chief=False, recovery_wait_secs=0.1)
    start = time.time()
    with pytest.raises(tf.errors.DeadlineExceededError, match="Session was not ready after waiting 1 secs"):
        sv.prepare_or_wait_for_session("grpc://" + two_task_cluster[1], max_wait_secs=1)
    assert time.time() - start < 10


def test_a_graph_other_than_the_default():
    other = tf.Graph()
    with other.as_default():
        step, w, _, train = _model()
    sv = tf.train.Supervisor(graph=other, logdir=None)
    assert tf.get_default_graph() is not other and sv.global_step.name == "global_step:0"
    with sv.managed_session() as sess:
        assert sess.graph is other
        sess.run(train)
        assert sess.run(step) == 1
    with pytest.raises(ValueError, match="must have their device set: global_step"):
        tf.train.Supervisor(graph=other, is_chief=False)


def test_a_summary_op_is_accepted_with_one_warning(caplog):
    import logging as py_logging
    _model()
    logger = py_logging.getLogger("tensorweave")
    logger.propagate = True
    try:
        with caplog.at_level(py_logging.WARNING, logger="tensorweave"):
            summary = tf.no_op(name="merged_summaries")
            for _ in range(2):
                sv = tf.train.Supervisor(summary_op=summary, logdir=None)
                assert sv.summary_op is summary and sv.summary_writer is None
    finally:
        logger.propagate = False
    warnings = [r.getMessage() for r in caplog.records if "summary_op" in r.getMessage()]
    assert warnings == ["Supervisor: summary_op merged_summaries is accepted but no summaries are written "
                        "(tensorweave has no summary writer yet)"]


def test_ctrl_c_stops_a_managed_session_loop_and_saves(tmp_path):
    """The first Ctrl-C ends the loop; the Supervisor stops, saves the last step and the
    program dies of the KeyboardInterrupt (130); a restart resumes from that step."""
    import os
    import signal
    import subprocess
    import sys
    from conftest import python_env
    script = """
import sys, tensorweave as tf
step = tf.train.get_or_create_global_step()
w = tf.Variable(0.0, name="w")
train = tf.train.GradientDescentOptimizer(0.01).minimize(tf.square(w - 3.0), global_step=step)
sv = tf.train.Supervisor(logdir=sys.argv[1], save_model_secs=3600)
with sv.managed_session() as sess:
    print("training", flush=True)
    while not sv.should_stop():
        sess.run(train)
"""
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=python_env())
    try:
        assert proc.stdout.readline() == "training\n", proc.stderr.read()
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode in (130, -signal.SIGINT) and "KeyboardInterrupt" in err, err
    saved = tf.train.latest_checkpoint(str(tmp_path))
    steps = int(saved.rsplit("-", 1)[1])
    assert steps > 0 and os.path.exists(saved + ".index")
    step, w, _, _ = _model()
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=3600)
    with sv.managed_session() as sess:
        assert sess.run(step) == steps


def test_the_chief_waits_for_a_task_that_starts_late(tmp_path):
    """As TF's master waits for every task at CreateSession: the chief's init waits for the
    parameter task to serve instead of failing with UnavailableError."""
    import subprocess
    import sys
    from conftest import python_env
    addresses = ["localhost:%d" % free_port(), "localhost:%d" % free_port()]
    spec = "local|" + ";".join(addresses)
    first = ServerProcesses(spec, "local", 1)
    late = []

    def start_late():
        late.append(subprocess.Popen([sys.executable, "-m", "tensorweave.server", "--cluster_spec=" + spec,
                                      "--job_name=local", "--task_index=1"], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=python_env()))

    timer = threading.Timer(1.0, start_late)
    try:
        step, w, _, train = _model(device="/job:local/task:1")
        sv = tf.train.Supervisor(logdir=str(tmp_path), recovery_wait_secs=0.2, save_model_secs=3600)
        timer.start()
        start = time.time()
        with sv.managed_session("grpc://" + addresses[0]) as sess:
            assert time.time() - start >= 0.9  # It waited for task 1.
            sess.run(train)
            assert sess.run(step) == 1
    finally:
        timer.cancel()
        timer.join()
        for proc in late:
            proc.terminate()
            proc.communicate(timeout=30)
        first.stop()


def test_the_chief_creates_its_logdir(tmp_path):
    # As TF's chief does: a logdir that does not exist yet is made, and checkpoints land in it.
    logdir = str(tmp_path / "not" / "yet")
    step = tf.train.get_or_create_global_step()
    train_op = step.assign_add(1)
    sv = tf.train.Supervisor(logdir=logdir, global_step=step, save_model_secs=600)
    assert os.path.isdir(logdir)
    with sv.managed_session() as sess:
        sess.run(train_op)
    assert tf.train.latest_checkpoint(logdir).endswith("model.ckpt-1")
