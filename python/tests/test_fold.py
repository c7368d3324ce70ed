"""tf.foldl / tf.foldr / tf.scan / tf.map_fn against TensorFlow: values and gradients (nested structures, with and
without initializer)."""
import json

import numpy as np
import pytest

import tensorweave as tf
from fold_programs import build
from tf_peer import require_tensorflow, run_tf_script


def test_fold_values_and_gradients_match_tensorflow():
    python = require_tensorflow("test_fold_values_and_gradients_match_tensorflow")
    theirs = json.loads(run_tf_script(python, "fold_programs.py").strip().splitlines()[-1])
    with tf.Graph().as_default():
        fetches = build(tf)
        with tf.Session() as sess:
            ours = sess.run(fetches)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, np.array(t), rtol=1e-9, atol=1e-12)


def test_fold_rejects_a_function_that_is_not_callable():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="fn must be callable."):
            tf.foldl(3, tf.constant([1.0]))
