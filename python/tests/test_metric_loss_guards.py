"""Two TF1 guards against TensorFlow through one shared program (tf_side/metric_loss_guards.py):
tf.metrics.auc's update fails on predictions outside [0, 1] with TensorFlow's message (where
TensorFlow's asserts gate an op), and
tf.losses.softmax_cross_entropy wraps its (smoothed) labels in stop_gradient."""
import importlib.util
import json
import os
import re

import numpy as np

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_script


def _program():
    spec = importlib.util.spec_from_file_location("metric_loss_guards",
                                                  os.path.join(TF_SIDE_DIR, "metric_loss_guards.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.program


def _without_names(message):
    """The assert's own text ("assertion failed: ..." up to the node context each system adds
    around it) without tensor names (ours and TensorFlow's op counters differ)."""
    text = message[message.index("assertion failed:"):].split("\n")[0].split(" [[{{")[0]
    return re.sub(r"\((\S+):\d+\)", "(NAME)", text.strip())


def test_guards_match_tensorflow():
    python = require_tensorflow("test_guards_match_tensorflow")
    theirs = json.loads(run_tf_script(python, "metric_loss_guards.py"))
    ours = _program()(tf)
    for dtype in ("float32", "float64"):
        assert ours["auc_ok_" + dtype] == theirs["auc_ok_" + dtype]
        for case in ("above", "below"):
            key = "auc_%s_%s" % (case, dtype)
            if dtype == "float32":  # TensorFlow's asserts gate no op here (see the program)
                assert theirs[key] is None and ours[key] is None, (ours[key], theirs[key])
                continue
            assert theirs[key] is not None and "predictions must be in [0, 1]" in theirs[key]
            assert ours[key] is not None, f"{key}: our auc update ran on bad predictions"
            assert _without_names(ours[key]) == _without_names(theirs[key]), (ours[key], theirs[key])
    for smoothing in ("0", "0.2"):
        assert theirs["labels_grad_none_" + smoothing] is True
        assert ours["labels_grad_none_" + smoothing] is True
        np.testing.assert_allclose(ours["logits_grad_" + smoothing], theirs["logits_grad_" + smoothing],
                                   rtol=1e-5, atol=1e-7)


def test_stop_gradient_node_named_as_tensorflow():
    with tf.Graph().as_default():
        tf.losses.softmax_cross_entropy(tf.constant([[1.0, 0.0]]), tf.constant([[0.5, 0.1]]))
        names = [op.name for op in tf.get_default_graph().get_operations()]
        assert "softmax_cross_entropy_loss/labels_stop_gradient" in names, names
