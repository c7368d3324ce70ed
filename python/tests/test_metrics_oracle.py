"""tf.metrics against TensorFlow's tf.compat.v1.metrics running the same update sequence:
each metric, with and without weights (zeros among them), fed batch after batch through
placeholders; the update op's result and the value after each batch, the value after
tf.local_variables_initializer() resets the accumulators and after one more batch, and
the sizes of the LOCAL_VARIABLES / METRIC_VARIABLES collections."""
import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_cases

CASES = [
    ("accuracy", "ints", "ints", {}),
    ("mean", "floats", "floats", {}),  # values passed as `predictions`, labels unused
    ("mean_absolute_error", "floats", "floats", {}),
    ("mean_squared_error", "floats", "floats", {}),
    ("precision", "bools", "bools", {}),
    ("recall", "bools", "bools", {}),
    ("auc", "bools", "probs", {}),
    ("auc", "bools", "probs", {"num_thresholds": 7}),
    ("auc", "bools", "probs", {"thresholds": [0.25, 0.5, 0.75]}),
    ("auc", "bools", "probs", {"curve": "PR", "num_thresholds": 50}),
    ("auc", "bools", "probs", {"summation_method": "minoring", "num_thresholds": 20}),
    ("auc", "bools", "probs", {"curve": "PR", "summation_method": "majoring", "num_thresholds": 20}),
]


def _batches(rng, n=3):
    arrays = {}
    for b in range(n):
        size = (6, 4)
        arrays[f"ints{b}"] = rng.integers(0, 3, size).astype(np.int64)
        arrays[f"floats{b}"] = rng.normal(size=size).astype(np.float32)
        arrays[f"bools{b}"] = rng.random(size) < 0.5
        arrays[f"probs{b}"] = rng.random(size).astype(np.float32)
        w = rng.uniform(0, 2, (6, 1)).astype(np.float32)  # broadcast over the columns
        w[b] = 0
        arrays[f"weights{b}"] = w
    # Empty predictions in one batch would be 0/0: kept out; the second batch of `ints`
    # equals the first (accuracy of 1 on part of it).
    arrays["ints1"][:3] = arrays["ints0"][:3]
    return arrays


def _call(metric, labels, predictions, weights, kwargs):
    fn = getattr(tf.metrics, metric)
    if metric == "mean":
        return fn(predictions, weights=weights, **kwargs)
    return fn(labels=labels, predictions=predictions, weights=weights, **kwargs)


def _ours(case, arrays, batches):
    metric, label_key, pred_key, kwargs, weighted = case
    out = {}
    with tf.Graph().as_default():
        labels = tf.placeholder(tf.as_dtype(arrays[label_key + "0"].dtype))
        predictions = tf.placeholder(tf.as_dtype(arrays[pred_key + "0"].dtype))
        weights = tf.placeholder(tf.float32) if weighted else None
        value, update = _call(metric, labels, predictions, weights, kwargs)
        out["locals"] = len(tf.local_variables())
        out["metric_vars"] = len(tf.get_collection(tf.GraphKeys.METRIC_VARIABLES))
        assert len(tf.global_variables()) == 0 and len(tf.trainable_variables()) == 0

        def feed(b):
            fd = {labels: arrays[label_key + b], predictions: arrays[pred_key + b]}
            if weighted:
                fd[weights] = arrays["weights" + b]
            return fd
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for b in batches:
                out[f"u_{b}"] = sess.run(update, feed(b))
                out[f"v_{b}"] = sess.run(value)
            sess.run(tf.local_variables_initializer())
            out["reset"] = sess.run(value)
            sess.run(update, feed(batches[-1]))
            out["again"] = sess.run(value)
    return out


def test_metrics_match_tensorflow(tmp_path):
    python = require_tensorflow("test_metrics_match_tensorflow")
    arrays = _batches(np.random.default_rng(17))
    batches = ["0", "1", "2"]
    cases = [(m, lk, pk, kw, weighted) for m, lk, pk, kw in CASES for weighted in (False, True)]
    tf_cases = [{"metric": m, "labels": lk, "predictions": pk, "kwargs": kw, "weighted": weighted,
                 "batches": batches} for m, lk, pk, kw, weighted in cases]
    theirs = run_tf_cases(python, "metrics_cases.py", tmp_path, arrays, tf_cases)
    failures = []
    for i, case in enumerate(cases):
        ours = _ours(case, arrays, batches)
        what = f"{case[0]} {case[3]} weighted={case[4]}"
        for key in ("locals", "metric_vars"):
            if ours[key] != int(theirs[f"{key}{i}"]):
                failures.append(f"{what}: {key} {ours[key]} vs TensorFlow's {int(theirs[f'{key}{i}'])}")
        names = [f"u_{b}" for b in batches] + [f"v_{b}" for b in batches] + ["reset", "again"]
        for name in names:
            tf_name = f"{name[0]}{i}_{name[2:]}" if name[1] == "_" else f"{name}{i}"
            expected = theirs[tf_name]
            got = np.asarray(ours[name])
            if got.shape != expected.shape or got.dtype != expected.dtype or not np.allclose(got, expected, rtol=1e-5,
                                                                                               atol=1e-6):
                failures.append(f"{what} {name}: {got!r} vs TensorFlow's {expected!r}")
    assert not failures, f"{len(failures)} mismatches:\n" + "\n".join(failures)


def test_metric_errors():
    with pytest.raises(ValueError, match="Curve must be either ROC or PR"):
        tf.metrics.auc([True], [0.5], curve="XY")
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        tf.metrics.mean(tf.constant(np.zeros((2, 3), np.float32)), weights=tf.constant(np.ones((3, 2), np.float32)))


def test_collections_and_reset_through_metrics_collections():
    with tf.Graph().as_default():
        value, update = tf.metrics.mean([1.0, 3.0], metrics_collections=["m"], updates_collections=["u"])
        assert tf.get_collection("m") == [value] and tf.get_collection("u") == [update]
        assert {v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)} == {"mean/total:0", "mean/count:0"}
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert sess.run(update) == 2.0 and sess.run(update) == 2.0
            assert sess.run(value) == 2.0


def test_control_dependency_on_a_fed_placeholder():
    # tf.metrics.mean orders its count update after its values, often a fed placeholder: as in
    # TensorFlow, the dependency is then on the feed (the placeholder itself must not run).
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        with tf.control_dependencies([x]):
            y = tf.constant(2.0) + 1.0
        with tf.Session() as sess:
            assert sess.run(y, {x: 5.0}) == 3.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value"):
                sess.run(y)
