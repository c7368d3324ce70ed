"""TensorFlow's side of test_summary_hook.py: the same small training loop in a
MonitoredTrainingSession with summary_dir and save_summaries_steps (or a SummarySaverHook
of its own), then prints [[step, what, [[tag, value], ...]], ...] of its event file as JSON.
    summary_hook_run.py LOGDIR MODE     MODE: session | hook"""
import glob
import json
import os
import sys

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summary_hook_program  # noqa: E402

if __name__ == "__main__":
    logdir, mode = sys.argv[1], sys.argv[2]
    summary_hook_program.run(tf1, logdir, mode)
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    print(json.dumps(summary_hook_program.describe(tf1.train.summary_iterator(path))))
