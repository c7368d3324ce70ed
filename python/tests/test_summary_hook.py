"""SummarySaverHook and MonitoredTrainingSession(summary_dir=..., save_summaries_steps=...):
the same training loop (tf_side/summary_hook_program.py) in TensorFlow and here; the event
files must hold the same SessionLog, summary steps and values."""
import glob
import json
import os
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script

sys.path.insert(0, TF_SIDE_DIR)
import summary_hook_program  # noqa: E402


def _ours(logdir, mode):
    summary_hook_program.run(tf, str(logdir), mode)
    (path,) = glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))
    return summary_hook_program.describe(tf.train.summary_iterator(path))


def _theirs(python, logdir, mode):
    return json.loads(run_tf_script(python, "summary_hook_run.py", str(logdir), mode))


def _loss_at(step):
    """The loss the summary of global step `step` saw: computed before that step's update."""
    x = np.float32(1.0)
    for _ in range(step - 1):
        x = x - np.float32(0.1) * (np.float32(2.0) * x)
    return float(x * x)


def _check_values(events):
    for step, what, values in events:
        if what == "summary":
            assert dict(values) == {"loss": pytest.approx(_loss_at(step), rel=1e-6), "x_hist": 1.0}, step


def _same_values_where_steps_meet(ours, theirs):
    theirs_by_step = {e[0]: e[2] for e in theirs if e[1] == "summary"}
    shared = [e for e in ours if e[1] == "summary" and e[0] in theirs_by_step]
    assert shared, (ours, theirs)
    for step, _, values in shared:
        assert [t for t, _ in values] == [t for t, _ in theirs_by_step[step]]
        assert [v for _, v in values] == pytest.approx([v for _, v in theirs_by_step[step]], rel=1e-6)


# TF reads the global step in the same run as the train op and may see it already
# incremented, so its schedule after the first summary wanders by one step from run to run
# (1, 5, 9 or 1, 4, 8 for save_steps=4). Ours reads it after the step: exactly every N.
def _check_their_schedule(theirs, every):
    steps = [e[0] for e in theirs[1:]]
    assert steps[0] == 1 and all(0 < b - a <= every for a, b in zip(steps, steps[1:])), steps


def test_summary_saver_hook_matches_tensorflow(tmp_path):
    python = require_tensorflow("test_summary_hook")
    ours, theirs = _ours(tmp_path / "ours", "hook"), _theirs(python, tmp_path / "theirs", "hook")
    assert ours[0] == theirs[0] == [1, "session_log", []]
    assert [e[:2] for e in ours] == [[1, "session_log"], [1, "summary"], [5, "summary"], [9, "summary"]]
    _check_their_schedule(theirs, 4)
    _same_values_where_steps_meet(ours, theirs)
    _check_values(ours)
    _check_values(theirs)


def test_monitored_session_summary_dir(tmp_path):
    python = require_tensorflow("test_summary_hook")
    ours, theirs = _ours(tmp_path / "ours", "session"), _theirs(python, tmp_path / "theirs", "session")
    assert ours[0] == theirs[0] == [1, "session_log", []]
    assert [e[0] for e in ours[1:]] == [1, 4, 7, 10]  # every save_summaries_steps=3 from the first
    _check_their_schedule(theirs, 3)
    _same_values_where_steps_meet(ours, theirs)
    _check_values(ours)
    _check_values(theirs)


def test_hook_needs_a_global_step_and_a_summary_op(tmp_path):
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        tf.train.SummarySaverHook(save_steps=1, output_dir=str(tmp_path))
    with pytest.raises(ValueError, match="exactly one of save_steps and save_secs"):
        tf.train.SummarySaverHook(output_dir=str(tmp_path), summary_op=[])
    with tf.Graph().as_default():
        tf.summary.scalar("s", tf.constant(1.0))
        hook = tf.train.SummarySaverHook(save_steps=1, output_dir=str(tmp_path), summary_op=tf.summary.merge_all())
        with pytest.raises(RuntimeError, match="Global step should be created"):
            hook.begin()
    tf.summary.FileWriterCache.clear()


def test_no_summaries_no_event_file(tmp_path):
    """A checkpoint_dir run without summaries gets no event file (TF would write one holding a
    SessionLog only): earlier programs' directories stay as they were."""
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        v = tf.Variable(1.0)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(v), global_step=global_step)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), save_checkpoint_secs=None,
                                               hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
            while not sess.should_stop():
                sess.run(step)
    assert not glob.glob(os.path.join(str(tmp_path), "events.out.tfevents.*"))
