"""tf.nn.nce_loss and tf.nn.sampled_softmax_loss against TensorFlow (tf_side/
sampled_loss_cases.py) with fixed sampled_values: per-example losses and the gradients with
respect to the inputs and to each shard of a two-shard weight table ('mod' and 'div'), one
and two true classes, with and without removing accidental hits (the sampled candidates
include some of the true classes so that the removal matters)."""
import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_cases

CLASSES, DIM, BATCH = 10, 4, 5

CASES = [{"key": "%s_%s_%d_%s" % (loss, strategy, num_true, hits), "loss": loss, "partition_strategy": strategy,
          "num_true": num_true, "remove_accidental_hits": hits}
         for loss in ("nce", "softmax") for strategy in ("mod", "div") for num_true in (1, 2)
         for hits in (False, True)]


def _arrays():
    rng = np.random.default_rng(7)
    sampled = np.array([3, 0, 7, 9, 1, 5], np.int64)  # 0, 1, 3 are true classes of some rows.
    arrays = {
        "w0": rng.normal(size=(5, DIM)).astype(np.float32),  # Rows of a 10 x DIM table in two shards.
        "w1": rng.normal(size=(5, DIM)).astype(np.float32),
        "biases": rng.normal(size=CLASSES).astype(np.float32),
        "inputs": rng.normal(size=(BATCH, DIM)).astype(np.float32),
        "labels_1": np.array([[0], [3], [1], [8], [3]], np.int64),
        "labels_2": np.array([[0, 2], [3, 1], [1, 4], [8, 6], [3, 3]], np.int64),
        "sampled": sampled,
        "sampled_expected": rng.uniform(0.1, 0.9, size=sampled.shape).astype(np.float32),
    }
    arrays["true_expected_1"] = rng.uniform(0.1, 0.9, size=(BATCH, 1)).astype(np.float32)
    arrays["true_expected_2"] = rng.uniform(0.1, 0.9, size=(BATCH, 2)).astype(np.float32)
    return arrays


def test_sampled_losses_match_tensorflow(tmp_path):
    python = require_tensorflow("test_sampled_losses_match_tensorflow")
    arrays = _arrays()
    want = run_tf_cases(python, "sampled_loss_cases.py", tmp_path, arrays, CASES)
    g = tf.Graph()
    fetches = {}
    with g.as_default():
        w0, w1 = tf.constant(arrays["w0"]), tf.constant(arrays["w1"])
        inputs = tf.constant(arrays["inputs"])
        for case in CASES:
            key, num_true = case["key"], case["num_true"]
            sampled_values = (tf.constant(arrays["sampled"]), tf.constant(arrays["true_expected_%d" % num_true]),
                              tf.constant(arrays["sampled_expected"]))
            loss_fn = tf.nn.nce_loss if case["loss"] == "nce" else tf.nn.sampled_softmax_loss
            loss = loss_fn([w0, w1], tf.constant(arrays["biases"]), tf.constant(arrays["labels_%d" % num_true]),
                           inputs, num_sampled=6, num_classes=CLASSES, num_true=num_true,
                           sampled_values=sampled_values, remove_accidental_hits=case["remove_accidental_hits"],
                           partition_strategy=case["partition_strategy"])
            assert loss.shape.as_list() == [BATCH]
            grads = tf.gradients(tf.reduce_sum(loss), [inputs, w0, w1])
            fetches[key + "/loss"] = loss
            for name, grad in zip(("inputs", "w0", "w1"), grads):
                fetches[key + "/d_" + name] = tf.convert_to_tensor(grad)
        with tf.Session() as sess:
            got = sess.run(fetches)
    assert sorted(got) == sorted(want.files)
    for key in sorted(got):
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=2e-5, err_msg=key)
    # The accidental hits matter in these cases (else the check above proves less).
    assert not np.allclose(got["softmax_mod_1_True/loss"], got["softmax_mod_1_False/loss"])


def test_sampled_loss_without_sampled_values_says_so():
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="sampled_values"):
            tf.nn.nce_loss(tf.zeros([10, 4]), tf.zeros([10]), tf.zeros([2, 1], tf.int64), tf.zeros([2, 4]),
                           num_sampled=3, num_classes=10)
