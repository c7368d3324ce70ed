"""tf.train.MonitoredTrainingSession with the standard hooks and hooks written in Python,
in this process: initialization, stop, checkpoints and restore, the hook protocol."""
import numpy as np
import pytest

import tensorweave as tf


def _model():
    """loss = (w - x)^2 trained by SGD(0.1): w_{t+1} = w_t - 0.2 (w_t - x)."""
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(0.0, name="w")
    x = tf.placeholder(tf.float32, [], name="x")
    loss = tf.square(w - x)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    return step, w, x, loss, train


def _sgd(steps, x=3.0, w=0.0):
    for _ in range(steps):
        w -= 0.2 * (w - x)
    return w


class RecordingHook(tf.train.SessionRunHook):
    """Records the protocol's calls and the values of the fetches it asks for."""

    def __init__(self, fetches, stop_at_loss=None):
        self.fetches = fetches
        self.stop_at_loss = stop_at_loss
        self.calls = []
        self.results = []

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")
        self.step_at_creation = session.run(tf.train.get_global_step())

    def before_run(self, run_context):
        self.calls.append("before_run")
        return tf.train.SessionRunArgs(self.fetches)

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        self.results.append(run_values.results)
        if self.stop_at_loss is not None and run_values.results["loss"] < self.stop_at_loss:
            run_context.request_stop()

    def end(self, session):
        self.calls.append("end")
        self.step_at_end = session.run(tf.train.get_global_step())


def test_stop_at_step_and_python_hook_fetches():
    step, w, x, loss, train = _model()
    hook = RecordingHook({"loss": loss, "pair": (step, w)})
    with tf.train.MonitoredTrainingSession(hooks=[hook, tf.train.StopAtStepHook(last_step=4)]) as sess:
        assert hook.calls == ["begin", "after_create_session"]
        losses = []
        while not sess.should_stop():
            _, value = sess.run([train, loss], feed_dict={x: 3.0})
            losses.append(value)
    assert len(losses) == 4
    np.testing.assert_allclose(losses, [(_sgd(i) - 3.0) ** 2 for i in range(4)], rtol=1e-5)
    assert hook.calls[2:] == ["before_run", "after_run"] * 4 + ["end"]
    # The hook's fetches ran in the same step as the caller's: before the update.
    assert [r["pair"][0] for r in hook.results] == [0, 1, 2, 3]
    np.testing.assert_allclose([r["pair"][1] for r in hook.results], [_sgd(i) for i in range(4)], rtol=1e-5)
    assert hook.step_at_creation == 0 and hook.step_at_end == 4


def test_python_hook_requests_stop():
    step, w, x, loss, train = _model()
    hook = RecordingHook({"loss": loss}, stop_at_loss=1.0)
    with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
        runs = 0
        while not sess.should_stop():
            sess.run(train, feed_dict={x: 3.0})
            runs += 1
    # Stops after the first step whose loss (before its update) is below 1.
    first_below = next(i for i in range(100) if (_sgd(i) - 3.0) ** 2 < 1.0)
    assert runs == first_below + 1


def test_checkpoints_are_saved_and_restored(tmp_path):
    step, w, x, loss, train = _model()
    ckpt = str(tmp_path)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=2,
                                           hooks=[tf.train.StopAtStepHook(last_step=3)]) as sess:
        while not sess.should_stop():
            sess.run(train, feed_dict={x: 3.0})
    assert tf.train.latest_checkpoint(ckpt).endswith("model.ckpt-3")  # Saved at the end.
    # A new session on the same graph restores step 3 and w, and trains on to step 5.
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, hooks=[tf.train.StopAtStepHook(num_steps=2)]) as sess:
        assert sess.run(step) == 3
        np.testing.assert_allclose(sess.run(w), _sgd(3), rtol=1e-5)
        while not sess.should_stop():
            sess.run(train, feed_dict={x: 3.0})
        np.testing.assert_allclose(sess.run(w), _sgd(5), rtol=1e-5)


def test_explicit_checkpoint_saver_hook(tmp_path):
    step, w, x, loss, train = _model()
    hooks = [tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2), tf.train.StopAtStepHook(last_step=4)]
    with tf.train.MonitoredTrainingSession(hooks=hooks) as sess:
        while not sess.should_stop():
            sess.run(train, feed_dict={x: 3.0})
    saver = tf.train.Saver()
    with tf.Session() as plain:
        saver.restore(plain, tf.train.latest_checkpoint(str(tmp_path)))
        assert plain.run(step) == 4
        np.testing.assert_allclose(plain.run(w), _sgd(4), rtol=1e-5)


def test_logging_and_step_counter_hooks_print(capfd):
    step, w, x, loss, train = _model()
    hooks = [tf.train.LoggingTensorHook({"the_loss": loss, "w": w}, every_n_iter=2),
             tf.train.StepCounterHook(every_n_steps=2), tf.train.StopAtStepHook(last_step=5)]
    with tf.train.MonitoredTrainingSession(hooks=hooks, log_step_count_steps=0) as sess:
        while not sess.should_stop():
            sess.run(train, feed_dict={x: 3.0})
    err = capfd.readouterr().err
    logged = [line for line in err.splitlines() if line.startswith("the_loss = ")]
    assert len(logged) == 3  # Runs 1, 3, 5.
    assert logged[0].startswith("the_loss = 9, w = 0")
    assert "global_step/sec: " in err


def test_errors_are_clear():
    step, w, x, loss, train = _model()
    with pytest.raises(ValueError, match="One of num_steps or last_step"):
        tf.train.StopAtStepHook()
    with pytest.raises(TypeError, match="SessionRunHook"):
        tf.train.MonitoredTrainingSession(hooks=[object()])
    with tf.train.MonitoredTrainingSession() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="x"):
            sess.run(train)  # x is not fed.


def test_an_exception_in_a_python_hook_reaches_the_caller():
    step, w, x, loss, train = _model()

    class Failing(tf.train.SessionRunHook):
        failed = False

        def after_run(self, run_context, run_values):
            if not self.failed:
                self.failed = True
                raise RuntimeError("hook failed at step")

    sess = tf.train.MonitoredTrainingSession(hooks=[Failing()])
    with pytest.raises(RuntimeError, match="hook failed at step"):
        sess.run(train, feed_dict={x: 3.0})
    assert sess.run(step) == 1  # The step itself ran; the session still works.
    sess.close()
    assert sess.should_stop()
