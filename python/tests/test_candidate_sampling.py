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


SAMPLER_CASES = [{"key": "%s_%s" % (sampler, unique), "sampler": sampler, "unique": unique, "range_max": 50,
                  "num_sampled": 10, "seed": 3, "runs": 2000}
                 for sampler in ("log_uniform", "uniform") for unique in (False, True)]


def _sampler_stats(true_classes):
    got = {}
    for case in SAMPLER_CASES:
        g = tf.Graph()
        with g.as_default():
            fn = getattr(tf.nn, case["sampler"] + "_candidate_sampler")
            outs = fn(tf.constant(true_classes), true_classes.shape[1], case["num_sampled"], case["unique"],
                      case["range_max"], seed=case["seed"])
            assert [o.shape.as_list() for o in outs] == [[10], list(true_classes.shape), [10]]
            freq, expected = np.zeros(case["range_max"]), np.zeros(case["range_max"])
            true_expected = np.zeros(true_classes.shape)
            with tf.Session() as sess:
                for _ in range(case["runs"]):
                    sampled, te, se = sess.run(outs)
                    assert sampled.dtype == np.int64 and 0 <= sampled.min() and sampled.max() < case["range_max"]
                    if case["unique"]:
                        assert len(set(sampled)) == len(sampled)
                    np.add.at(freq, sampled, 1)
                    np.add.at(expected, sampled, se)
                    true_expected += te
        got[case["key"] + "/freq"] = freq / case["runs"]
        got[case["key"] + "/sampled_expected_mean"] = expected / np.maximum(freq, 1)
        got[case["key"] + "/true_expected_mean"] = true_expected / case["runs"]
    return got


def test_candidate_samplers_match_tensorflow_statistically(tmp_path):
    python = require_tensorflow("test_candidate_samplers_match_tensorflow_statistically")
    true_classes = np.array([[0, 1], [5, 49], [2, 2]], np.int64)
    want = run_tf_cases(python, "sampler_stats.py", tmp_path, {"true_classes": true_classes}, SAMPLER_CASES)
    got = _sampler_stats(true_classes)
    for case in SAMPLER_CASES:
        key, runs = case["key"], case["runs"]
        f_got, f_want = got[key + "/freq"], want[key + "/freq"]
        # Frequencies of each class per run: independent estimates, 6 standard deviations apart at most.
        tol = 6 * np.sqrt(2 * np.maximum(f_want, 0.01) / runs) + 0.01
        assert np.all(np.abs(f_got - f_want) <= tol), (key, f_got, f_want)
        seen = (f_got > 0) & (f_want > 0)
        if case["unique"]:  # 1 - (1 - p)^tries with a random number of tries: the means agree.
            np.testing.assert_allclose(got[key + "/true_expected_mean"], want[key + "/true_expected_mean"],
                                       rtol=0.05, err_msg=key)
            np.testing.assert_allclose(got[key + "/sampled_expected_mean"][seen],
                                       want[key + "/sampled_expected_mean"][seen], rtol=0.1, err_msg=key)
        else:  # p * num_sampled exactly.
            np.testing.assert_allclose(got[key + "/true_expected_mean"], want[key + "/true_expected_mean"],
                                       rtol=1e-6, err_msg=key)
            np.testing.assert_allclose(got[key + "/sampled_expected_mean"][seen],
                                       want[key + "/sampled_expected_mean"][seen], rtol=1e-6, err_msg=key)
    # Bad calls fail as TensorFlow's do.
    for name, num_true, num_sampled, unique, range_max in (("too_small", 2, 9, True, 8),
                                                           ("columns", 3, 2, False, 8)):
        message = str(want["error/" + name])
        assert message, name
        with tf.Graph().as_default():
            outs = tf.nn.log_uniform_candidate_sampler(tf.constant(true_classes), num_true, num_sampled, unique,
                                                       range_max)
            with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(outs)
        ours = str(e.value).split("): ", 1)[1]  # Less our "node 'name' (op): " prefix.
        assert ours and ours in message, (message, ours)


def test_nce_loss_samples_its_own_candidates_and_trains():
    """Without sampled_values the losses draw log-uniform candidates: a tiny model learns to
    score each input's true class above the sampled ones."""
    rng = np.random.default_rng(1)
    classes, dim = 20, 8
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(5)
        emb = tf.Variable(rng.normal(0, 0.1, (classes, dim)).astype(np.float32))
        weights = tf.Variable(rng.normal(0, 0.1, (classes, dim)).astype(np.float32))
        biases = tf.Variable(np.zeros(classes, np.float32))
        ids = tf.placeholder(tf.int64, [None])
        labels = tf.reshape((ids + 1) % classes, [-1, 1])  # Class c's target is c + 1.
        inputs = tf.nn.embedding_lookup(emb, ids)
        nce = tf.reduce_mean(tf.nn.nce_loss(weights, biases, labels, inputs, num_sampled=5, num_classes=classes))
        softmax = tf.reduce_mean(tf.nn.sampled_softmax_loss(weights, biases, labels, inputs, num_sampled=5,
                                                            num_classes=classes))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(nce + softmax)
        logits = tf.matmul(inputs, weights, transpose_b=True) + biases
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            batch = np.arange(classes)
            first = sess.run([nce, softmax], {ids: batch})
            for _ in range(300):
                sess.run(train, {ids: batch})
            last = sess.run([nce, softmax], {ids: batch})
            predicted = sess.run(logits, {ids: batch}).argmax(1)
    assert last[0] < 0.5 * first[0] and last[1] < 0.5 * first[1], (first, last)
    assert np.mean(predicted == (batch + 1) % classes) >= 0.9, predicted
