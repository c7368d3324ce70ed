"""One training loop for both sides of test_summary_hook.py (tensorweave, or TF's
tf.compat.v1): summaries saved by MonitoredTrainingSession(summary_dir=...) ("session") or by
a SummarySaverHook passed in ("hook")."""

LAST_STEP = 10


def run(tf, logdir, mode):
    graph = tf.Graph()
    with graph.as_default():
        global_step = tf.train.get_or_create_global_step()
        x = tf.Variable(1.0, name="x")
        loss = tf.square(x)
        tf.summary.scalar("loss", loss)
        tf.summary.histogram("x_hist", x)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
        hooks = [tf.train.StopAtStepHook(last_step=LAST_STEP)]
        if mode == "hook":
            hooks.append(tf.train.SummarySaverHook(save_steps=4, output_dir=logdir, summary_op=tf.summary.merge_all()))
            kwargs = {"save_summaries_steps": None}
        else:
            kwargs = {"summary_dir": logdir, "save_summaries_steps": 3}
        with tf.train.MonitoredTrainingSession(hooks=hooks, save_checkpoint_secs=None, log_step_count_steps=None,
                                               **kwargs) as sess:
            while not sess.should_stop():
                sess.run(train)
    # TF shares writers per directory; closing them flushes the file.
    tf.summary.FileWriterCache.clear()


def describe(events):
    """[[step, what, [[tag, value or histogram num], ...]], ...] of summary and session-log events."""
    out = []
    for e in events:
        what = e.WhichOneof("what")
        if what not in ("summary", "session_log"):
            continue
        values = [[v.tag, v.simple_value if v.WhichOneof("value") == "simple_value" else v.histo.num]
                  for v in e.summary.value]
        out.append([e.step, what, values])
    return out
