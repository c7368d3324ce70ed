"""One worker process of test_sync_replicas_cnn.py: builds the CNN (sync_cnn_model.py) in
its own graph, trains under a MonitoredTrainingSession on its worker task (the chief runs
the sync loop through its hook and stops at LAST_STEP), and writes the losses it saw to OUT
as JSON. Both replicas train together: each marks its session ready (OUT.ready) and waits
for the other's before its first step (the other worker starts only once the chief has
initialized the model: a non-chief polls for that every 30 s, as TensorFlow's).
    sync_cnn_worker.py CLUSTER_JSON TASK LAST_STEP OUT OTHER_OUT"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorweave as tf  # noqa: E402
from sync_cnn_model import build, data  # noqa: E402

cluster, task, last_step, out, other = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:6]


def wait_for(path, what, timeout=120):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError("worker %d: no %s after %d s" % (task, what, timeout))
        time.sleep(0.05)


model = build(cluster, task)
images, labels = data()
losses = []
try:
    with model["graph"].as_default():
        hooks = [model["opt"].make_session_run_hook(task == 0)]
        if task == 0:
            hooks.append(tf.train.StopAtStepHook(last_step=last_step))
        else:
            wait_for(other + ".ready", "chief session")
        with tf.train.MonitoredTrainingSession(master="grpc://" + cluster["worker"][task], is_chief=task == 0,
                                               hooks=hooks, log_step_count_steps=0) as sess:
            open(out + ".ready", "w").close()
            wait_for(other + ".ready", "session of the other worker")
            while not sess.should_stop():
                _, loss = sess.run([model["train"], model["loss"]], {model["x"]: images, model["y"]: labels})
                losses.append(float(loss))
finally:
    with open(out, "w") as f:
        json.dump({"losses": losses}, f)
