"""tf.losses against TensorFlow's tf.compat.v1.losses on the same inputs: every loss under
every Reduction, with Python and tensor weights (zeros among them, all zeros too), label
smoothing, float64 inputs; the loss and its gradient in the predictions / logits, and the
LOSSES collection. Inputs TensorFlow refuses (weights that do not broadcast) must be
refused here too."""
import numpy as np

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_cases

REDUCTIONS = ("none", "weighted_sum", "weighted_mean", "weighted_sum_over_batch_size",
              "weighted_sum_by_nonzero_weights")


def _inputs(rng):
    """name -> (arrays for the loss's arguments, the argument differentiated, extra kwargs)."""
    pred = rng.normal(size=(4, 3)).astype(np.float32)
    labels = rng.normal(size=(4, 3)).astype(np.float32)
    binary = (rng.random((4, 3)) < 0.5).astype(np.float32)
    prob = rng.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
    unit = lambda x: (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)  # noqa: E731
    onehot = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 4)]
    return {
        "absolute_difference": ({"labels": labels, "predictions": pred}, "predictions", {}),
        "mean_squared_error": ({"labels": labels, "predictions": pred}, "predictions", {}),
        "huber_loss": ({"labels": labels, "predictions": pred * 2}, "predictions", {"delta": 0.7}),
        "log_loss": ({"labels": binary, "predictions": prob}, "predictions", {}),
        "hinge_loss": ({"labels": binary, "logits": pred}, "logits", {}),
        "sigmoid_cross_entropy": ({"multi_class_labels": binary, "logits": pred * 3}, "logits",
                                  {"label_smoothing": 0.2}),
        "cosine_distance": ({"labels": unit(labels), "predictions": unit(pred)}, "predictions", {"axis": 1}),
        "softmax_cross_entropy": ({"onehot_labels": onehot, "logits": pred}, "logits", {"label_smoothing": 0.1}),
        "sparse_softmax_cross_entropy": ({"labels": rng.integers(0, 3, 4).astype(np.int64), "logits": pred},
                                         "logits", {}),
    }


def _weights(name, rng):
    """Weights that broadcast to the loss's per-element shape, each with a zero."""
    per_example = name in ("softmax_cross_entropy", "sparse_softmax_cross_entropy")
    if per_example:
        shaped = [np.array([1.5, 0.0, 2.0, 0.5], np.float32)]
        if name == "sparse_softmax_cross_entropy":
            shaped.append(np.array([[0.0], [1.0], [3.0], [0.0]], np.float32))  # [batch, 1]: squeezed
    elif name == "cosine_distance":
        shaped = [np.array([[1.5], [0.0], [2.0], [0.5]], np.float32)]
    else:
        w = rng.uniform(0.5, 2, (4, 3)).astype(np.float32)
        w[1, 2] = w[3, 0] = 0
        shaped = [w, np.array([[1.0], [0.0], [2.0], [0.5]], np.float32), np.array([[0.0, 2.0, 1.0]], np.float32)]
    return [1.0, 2.5, 0.0] + shaped + [np.zeros_like(shaped[0])]


def _cases(rng):
    arrays, cases = {}, []
    for name, (args, wrt, kwargs) in _inputs(rng).items():
        for weights in _weights(name, rng):
            for reduction in REDUCTIONS:
                keys = {}
                for arg, value in args.items():
                    keys[arg] = f"a{len(arrays)}"
                    arrays[keys[arg]] = value
                kw = dict(kwargs, reduction=reduction)
                if isinstance(weights, float):
                    kw["weights"] = weights
                else:
                    keys["weights"] = f"a{len(arrays)}"
                    arrays[keys["weights"]] = weights
                cases.append({"loss": name, "arrays": keys, "kwargs": kw, "wrt": wrt})
    # float64 inputs: TensorFlow computes in float32 and casts the loss back.
    for reduction in REDUCTIONS:
        keys = {"labels": f"a{len(arrays)}", "predictions": f"a{len(arrays) + 1}"}
        arrays[keys["labels"]], arrays[keys["predictions"]] = rng.normal(size=(2, 5)), rng.normal(size=(2, 5))
        cases.append({"loss": "mean_squared_error", "arrays": keys, "kwargs": {"reduction": reduction},
                      "wrt": "predictions"})
    # Weights that do not broadcast to the losses: refused by both.
    keys = {"labels": "a0", "predictions": "a1", "weights": f"a{len(arrays)}"}
    arrays[keys["weights"]] = np.ones((3, 4), np.float32)
    cases.append({"loss": "absolute_difference", "arrays": keys, "kwargs": {}, "wrt": "predictions"})
    return arrays, cases


def _ours(case, arrays):
    with tf.Graph().as_default():
        args = {name: tf.constant(arrays[key]) for name, key in case["arrays"].items()}
        try:
            loss = getattr(tf.losses, case["loss"])(**args, **case["kwargs"])
        except ValueError:
            return "ValueError", None, None, None
        grad = tf.gradients(loss, args[case["wrt"]])[0]
        with tf.Session() as sess:
            value, g = sess.run([loss, grad])
        return None, value, g, len(tf.get_collection(tf.GraphKeys.LOSSES))


def test_losses_match_tensorflow(tmp_path):
    python = require_tensorflow("test_losses_match_tensorflow")
    arrays, cases = _cases(np.random.default_rng(11))
    theirs = run_tf_cases(python, "losses_cases.py", tmp_path, arrays, cases)
    failures = []
    for i, case in enumerate(cases):
        what = f"{case['loss']} {case['kwargs']} weights={'weights' in case['arrays']}"
        error, value, grad, collected = _ours(case, arrays)
        if f"e{i}" in theirs.files or error:
            if not (f"e{i}" in theirs.files and error == str(theirs[f"e{i}"])):
                tf_error = theirs[f"e{i}"] if f"e{i}" in theirs.files else None
                failures.append(f"{what}: ours {error}, TensorFlow's {tf_error}")
            continue
        expected, expected_grad = theirs[f"v{i}"], theirs[f"g{i}"]
        if value.shape != expected.shape or value.dtype != expected.dtype or collected != int(theirs[f"n{i}"]):
            failures.append(f"{what}: {value.dtype}{value.shape} in {collected} vs {expected.dtype}{expected.shape} "
                            f"in {int(theirs[f'n{i}'])}")
            continue
        try:
            np.testing.assert_allclose(value, expected, rtol=2e-6, atol=1e-6)
            np.testing.assert_allclose(grad, expected_grad, rtol=2e-6, atol=1e-6)
        except AssertionError as e:
            failures.append(f"{what}: {e}")
    print(f"\n{len(cases)} loss cases compared with TensorFlow")
    assert not failures, f"{len(failures)} mismatches:\n" + "\n".join(failures)


def test_reduction_keys_are_tensorflows():
    assert tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS == "weighted_sum_by_nonzero_weights"
    assert tf.losses.Reduction.SUM_OVER_NONZERO_WEIGHTS == tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS
    import pytest
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        tf.losses.absolute_difference([1.0], [2.0], reduction="average")
    with pytest.raises(ValueError, match="You must specify argument `axis`"):
        tf.losses.cosine_distance([[1.0]], [[1.0]])
