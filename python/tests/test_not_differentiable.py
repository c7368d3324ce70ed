"""TensorFlow's ops.NotDifferentiable list, held to ours: every op we register that TensorFlow
declares not differentiable is `none` in our gradient registry (`tw ops --gradients`), and
none we newly declared so has a gradient function in TensorFlow. TensorFlow's own registry
(ops._gradient_registry, the installed TF at TW_TF_PYTHON) is the oracle."""
import json
import os
import subprocess

import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, tf_env

BUILD_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(tf.__file__))))

# Declared in src/autodiff/base_grad.cc from TF's string_ops.py, logging_ops.py, state_grad.py.
DECLARED = ["AsString", "RegexReplace", "StringJoin", "StringSplit", "Assert", "ScalarSummary", "HistogramSummary",
            "ImageSummary", "AudioSummaryV2", "MergeSummary", "TensorSummaryV2", "Assign", "AssignAdd", "AssignSub",
            "ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv"]

TF_SIDE = r"""
import json, sys
import tensorflow as tf
from tensorflow.python.framework import ops
reg = ops._gradient_registry._registry
names = json.loads(sys.argv[1])
print(json.dumps({n: ("none" if reg[n]["type"] is None else "gradient") if n in reg else "unregistered"
                  for n in names}))
"""


def _ours():
    lines = subprocess.run([os.path.join(BUILD_DIR, "tools", "tw"), "ops", "--gradients"], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    return dict(line.split() for line in lines)


def _theirs(names):
    python = require_tensorflow("test_not_differentiable")
    done = subprocess.run([python, "-c", TF_SIDE, json.dumps(sorted(names))], env=tf_env(), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_declared_ops_are_none_here_and_not_differentiable_in_tensorflow():
    ours = _ours()
    assert {op: ours.get(op) for op in DECLARED} == {op: "none" for op in DECLARED}
    theirs = _theirs(DECLARED)
    assert theirs == {op: "none" for op in DECLARED}


def test_every_op_tensorflow_declares_not_differentiable_is_none_here():
    ours = _ours()
    theirs = _theirs(list(ours))
    undeclared = sorted(op for op, kind in theirs.items() if kind == "none" and ours[op] != "none")
    assert not undeclared, "TensorFlow's NotDifferentiable ops without RegisterNoGradient here: %s" % undeclared


def test_gradients_stop_at_not_differentiable_ops():
    # y = number(join(as_string(x), "1")) + 2 x: only the 2 x path carries a gradient (as in TF).
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [2])
        y = tf.string_to_number(tf.strings.join([tf.as_string(x), "1"]))
        [grad] = tf.gradients(tf.reduce_sum(y) + tf.reduce_sum(x * 2.0), [x])
        assert sess.run(grad, {x: [1.5, -3.0]}).tolist() == [2.0, 2.0]
        assert tf.gradients(tf.reduce_sum(y), [x]) == [None]
