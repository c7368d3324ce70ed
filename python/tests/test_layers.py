"""tf.layers against TensorFlow's tf.compat.v1.layers (a subprocess, tf_side/layers_cases.py):
the same model (tf_side/layers_model.py: conv2d, batch norm, pooling, conv2d_transpose, flatten,
dropout off, dense, a second batch norm on 2-D input) built on both sides has the same variable
names, shapes and trainable set; with TF's initial values copied in, the outputs in inference
and training mode, the regularization loss, the losses of 4 Adam / gradient-descent steps
(their UPDATE_OPS run first), and the weights and moving statistics after them equal
TensorFlow's. Also the learning-rate schedules, tf.clip_by_global_norm and the contrib
initializers and layer argument errors."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, require_tensorflow, run_tf_cases

sys.path.insert(0, TF_SIDE_DIR)
import layers_model  # noqa: E402

CASES = [{"mode": "tensor", "optimizer": "adam", "seed": 1, "steps": 4},
         {"mode": "python", "optimizer": "sgd", "seed": 2, "steps": 4}]
STEPS = [0, 1, 5, 9, 10, 11, 20, 35]


def _require_tf_keras():
    """tf.compat.v1.layers needs tf_keras beside TF 2.20 (scripts/tf_env.sh installs it)."""
    python = require_tensorflow("test_layers")
    found = subprocess.run([python, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('tf_keras') "
                            "is None)"], capture_output=True).returncode == 0
    if not found:
        reason = f"test_layers needs tf_keras in {python}'s environment: run scripts/tf_env.sh"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return python


@pytest.fixture(scope="module")
def tf_results(tmp_path_factory):
    python = _require_tf_keras()
    rng = np.random.default_rng(7)
    arrays = {"x": rng.normal(size=(6, 8, 8, 1)).astype(np.float32), "y": rng.integers(0, 10, 6).astype(np.int32),
              "steps": np.array(STEPS), "clip0": rng.normal(size=(3,)).astype(np.float32),
              "clip1": rng.normal(size=(2, 2)).astype(np.float32), "clip2": np.float32(3.0)}
    for i, (shape, _) in enumerate(layers_model.BN_CONFIGS):
        arrays[f"bn{i}"] = (rng.normal(size=shape) * 2 + 1).astype(np.float32)
    out = run_tf_cases(python, "layers_cases.py", tmp_path_factory.mktemp("layers"), arrays, CASES)
    return arrays, {k: out[k] for k in out.files}


def _close(ours, theirs, what, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c["mode"] + "-" + c["optimizer"] for c in CASES])
def test_model_matches_tensorflow(tf_results, index):
    arrays, theirs = tf_results
    case = CASES[index]
    p = f"{index}/"
    with tf.Graph().as_default():
        m = layers_model.build(tf, tf.contrib.layers.l2_regularizer(0.01), case["mode"], case["optimizer"])
        variables = layers_model.model_variables(tf)
        names = [[v.name, v.shape.as_list()] for v in variables]
        assert names == json.loads(str(theirs[p + "names"]))
        assert sorted(v.name for v in tf.trainable_variables()) == json.loads(str(theirs[p + "trainable"]))
        assert m["updates"] == int(theirs[p + "updates"])
        feed = {m["x"]: arrays["x"], m["y"]: arrays["y"]}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([v.assign(theirs[p + "init/" + v.name]) for v in variables])
            _close(sess.run(m["logits_eval"], {**feed, **m["feed_eval"]}), theirs[p + "eval0"], "inference logits")
            _close(sess.run(m["logits_train"], {**feed, **m["feed_train"]}), theirs[p + "train0"], "training logits")
            _close(sess.run(m["up"], {**feed, **m["feed_eval"]}), theirs[p + "up0"], "conv2d_transpose")
            _close(sess.run(m["reg"]), theirs[p + "reg"], "regularization loss")
            losses = [sess.run([m["loss"], m["train"]], {**feed, **m["feed_train"]})[0] for _ in range(case["steps"])]
            _close(losses, theirs[p + "losses"], "losses", rtol=2e-4)
            for v, value in zip(variables, sess.run(variables)):
                _close(value, theirs[p + "final/" + v.name], "after training: " + v.name, rtol=1e-3, atol=1e-4)
            _close(sess.run(m["logits_eval"], {**feed, **m["feed_eval"]}), theirs[p + "eval_end"],
                   "inference logits after training", rtol=1e-3, atol=1e-4)


def test_replica_device_setter_places_layer_variables_as_tensorflow(tf_results):
    with tf.Graph().as_default():
        assert layers_model.placed_variables(tf) == json.loads(str(tf_results[1]["placed"]))


@pytest.mark.parametrize("index", range(len(layers_model.BN_CONFIGS)))
def test_batch_normalization_paths_match_tensorflow(tf_results, index):
    arrays, theirs = tf_results
    shape, kwargs = layers_model.BN_CONFIGS[index]
    with tf.Graph().as_default():
        ours = layers_model.batch_norm_results(tf, arrays[f"bn{index}"], shape, kwargs)
    count = len([k for k in theirs if k.startswith(f"bn{index}/")])
    assert len(ours) == count
    for k, value in enumerate(ours):
        _close(value, theirs[f"bn{index}/{k}"], f"batch norm {kwargs} result {k}", rtol=2e-4, atol=2e-5)


def test_schedules_and_clipping_match_tensorflow(tf_results):
    arrays, theirs = tf_results
    with tf.Graph().as_default():
        step = tf.placeholder(tf.int64, [])
        schedules = {
            "exp": tf.train.exponential_decay(0.1, step, 10, 0.5),
            "exp_stair": tf.train.exponential_decay(0.1, step, 10, 0.5, staircase=True),
            "piecewise": tf.train.piecewise_constant(step, [5, 10], [1.0, 0.5, 0.1]),
            "poly": tf.train.polynomial_decay(0.1, step, 10, 0.01, power=2.0),
            "poly_cycle": tf.train.polynomial_decay(0.1, step, 10, 0.01, power=0.5, cycle=True),
        }
        ts = [tf.constant(arrays[f"clip{k}"]) for k in range(3)]
        clipped, norm = tf.clip_by_global_norm([ts[0], None, ts[1], ts[2]], 2.5)
        assert clipped[1] is None
        with tf.Session() as sess:
            for name, t in schedules.items():
                _close([sess.run(t, {step: s}) for s in STEPS], theirs["schedule/" + name], name, rtol=1e-6)
            values = sess.run([clipped[0], clipped[2], clipped[3], norm, tf.global_norm(ts)])
            for k, v in enumerate(values):
                _close(v, theirs[f"clip/{k}"], f"clip_by_global_norm output {k}", rtol=1e-6)


def test_layer_reuse_names_and_class_form():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        a = tf.layers.dense(x, 2)
        tf.layers.dense(x, 2)
        with tf.variable_scope("tower"):
            tf.layers.dense(x, 2, use_bias=False)
        tf.layers.dense(x, 2, name="dense", reuse=True)  # reuses dense/kernel
        with pytest.raises(ValueError, match="already exists"):
            tf.layers.dense(x, 2, name="dense")
        layer = tf.layers.Dense(4, name="shared")
        layer(x)
        layer(x)
        names = sorted(v.name for v in tf.global_variables())
        assert names == ["dense/bias:0", "dense/kernel:0", "dense_1/bias:0", "dense_1/kernel:0", "shared/bias:0",
                         "shared/kernel:0", "tower/dense/kernel:0"]
        assert [v.name for v in layer.trainable_weights] == ["shared/kernel:0", "shared/bias:0"]
        assert a.shape.as_list() == [None, 2]
        with pytest.raises(ValueError, match="last dimension"):
            tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 2)
        with pytest.raises(ValueError, match="padding"):
            tf.layers.conv2d(tf.placeholder(tf.float32, [1, 4, 4, 1]), 2, 3, padding="full")


def test_contrib_initializers_scale_as_documented():
    # tf.contrib is gone from TensorFlow 2, so these check the documented formulas on
    # 40000 samples: stddev sqrt(1.3 * factor / n) truncated at 2 stddev (std ~0.88 of it),
    # uniform limit sqrt(3 * factor / n).
    with tf.Graph().as_default():
        vs = tf.contrib.layers.variance_scaling_initializer()  # factor 2, FAN_IN, normal
        a = tf.get_variable("a", [4, 4, 25, 100], initializer=vs)  # fan_in 400
        u = tf.get_variable("u", [200, 200], initializer=tf.contrib.layers.variance_scaling_initializer(
            factor=1.0, mode="FAN_AVG", uniform=True))
        xn = tf.get_variable("xn", [300, 100], initializer=tf.contrib.layers.xavier_initializer(uniform=False))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            av, uv, xv = sess.run([a, u, xn])
    sd = np.sqrt(1.3 * 2.0 / 400)
    assert abs(av.std() / sd - 0.8796) < 0.02 and np.abs(av).max() <= 2 * sd + 1e-6
    limit = np.sqrt(3.0 / 200)
    assert np.abs(uv).max() <= limit and np.abs(uv).max() > 0.99 * limit
    assert abs(xv.std() / np.sqrt(1.3 / 200) - 0.8796) < 0.03
    with pytest.raises(TypeError, match="Unknown mode"):
        tf.contrib.layers.variance_scaling_initializer(mode="fan_in")


def test_total_loss_and_dropout_training_flag():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="No losses"):
            tf.losses.get_total_loss()
        x = tf.ones([200, 50])
        flag = tf.placeholder(tf.bool, [])
        out = tf.layers.dropout(x, rate=0.5, training=flag, seed=3)
        w = tf.get_variable("w", initializer=tf.constant([1.0, -2.0]), regularizer=None)
        tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, tf.contrib.layers.l1_regularizer(0.5)(w))
        tf.losses.mean_squared_error(tf.constant([0.0, 0.0]), w)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            off, on = sess.run(out, {flag: False}), sess.run(out, {flag: True})
            assert (off == 1.0).all()
            assert set(np.unique(on)) == {0.0, 2.0} and 0.4 < (on == 0).mean() < 0.6
            assert sess.run(tf.losses.get_regularization_loss()) == pytest.approx(1.5)
            assert sess.run(tf.losses.get_total_loss()) == pytest.approx(1.5 + 2.5)
            assert sess.run(tf.losses.get_total_loss(add_regularization_losses=False)) == pytest.approx(2.5)


def test_variables_made_under_control_dependencies_initialize_alone():
    # As TF's init_scope: an initializer must not wait for (or run) the open dependencies.
    with tf.Graph().as_default():
        needs_feed = tf.placeholder(tf.float32, [])
        with tf.control_dependencies([tf.identity(needs_feed)]):
            w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
            v = tf.Variable([0.0, 0.0, 0.0], name="v")
            loss = tf.reduce_sum(w * w)
            train = tf.train.AdamOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(v).tolist() == [0.0, 0.0, 0.0]
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(train)  # the update still waits for the dependency
            sess.run(train, {needs_feed: 1.0})
            np.testing.assert_allclose(sess.run(w), [0.9, 0.9], rtol=1e-5)


def test_get_variable_regularizer_and_control_dependencies_none():
    with tf.Graph().as_default():
        reg = tf.contrib.layers.l2_regularizer(0.5)
        with tf.variable_scope("s"):
            w = tf.get_variable("w", initializer=tf.constant([1.0, 2.0]), regularizer=reg)
        with tf.variable_scope("s", reuse=True):
            tf.get_variable("w", [2], regularizer=reg)  # reused: no second loss
        layer = tf.layers.Dense(1, kernel_regularizer=reg, kernel_initializer=tf.ones_initializer())
        layer(tf.ones([1, 3]))
        losses = tf.losses.get_regularization_losses()
        assert len(losses) == 2 and layer.losses == losses[1:]
        assert losses[0].name.startswith("s/w/Regularizer/")
        needs_feed = tf.placeholder(tf.float32, [])
        with tf.control_dependencies([tf.identity(needs_feed)]):
            with tf.control_dependencies(None):  # clears, as TF
                free = tf.identity(w)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(tf.losses.get_regularization_loss()) == pytest.approx(0.5 * 5 / 2 + 0.5 * 3 / 2)
            assert sess.run(free).tolist() == [1.0, 2.0]
