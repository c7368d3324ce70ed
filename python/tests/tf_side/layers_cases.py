"""TensorFlow's side of test_layers.py: builds layers_model's model with tf.compat.v1.layers
(tf_keras's legacy layers, TF_USE_LEGACY_KERAS=1) for each case of CASES.json, runs its
initial inference and STEPS training steps on IN.npz's x, y, and writes to OUT.npz per case
<i>: names (variable names and shapes as JSON), init/<name>, final/<name>, losses, reg,
eval0, train0, up0, eval_end, updates. A second part evaluates the learning-rate schedules and
clip_by_global_norm at the steps in IN.npz's steps.
    layers_cases.py IN.npz CASES.json OUT.npz"""
import json
import os
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"  # tf.compat.v1.layers needs tf_keras (not Keras 3).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import layers_model  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

data = np.load(sys.argv[1])
cases = json.load(open(sys.argv[2]))
out = {}


def l2(w):  # tf.contrib.layers.l2_regularizer(0.01): 0.01 * sum(w ** 2) / 2
    return 0.01 * tf.nn.l2_loss(w)


for i, case in enumerate(cases):
    g = tf1.Graph()
    with g.as_default():
        tf1.set_random_seed(case["seed"])
        m = layers_model.build(tf1, l2, case["mode"], case["optimizer"])
        variables = layers_model.model_variables(tf1)
        feed = {m["x"]: data["x"], m["y"]: data["y"]}
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            out[f"{i}/names"] = np.array(json.dumps([[v.name, v.shape.as_list()] for v in variables]))
            out[f"{i}/trainable"] = np.array(json.dumps(sorted(v.name for v in tf1.trainable_variables())))
            for v, value in zip(variables, sess.run(variables)):
                out[f"{i}/init/{v.name}"] = value
            out[f"{i}/eval0"] = sess.run(m["logits_eval"], {**feed, **m["feed_eval"]})
            out[f"{i}/train0"] = sess.run(m["logits_train"], {**feed, **m["feed_train"]})
            out[f"{i}/up0"] = sess.run(m["up"], {**feed, **m["feed_eval"]})
            out[f"{i}/reg"] = sess.run(m["reg"])
            losses = []
            for _ in range(case["steps"]):
                loss, _ = sess.run([m["loss"], m["train"]], {**feed, **m["feed_train"]})
                losses.append(loss)
            out[f"{i}/losses"] = np.array(losses)
            for v, value in zip(variables, sess.run(variables)):
                out[f"{i}/final/{v.name}"] = value
            out[f"{i}/eval_end"] = sess.run(m["logits_eval"], {**feed, **m["feed_eval"]})
            out[f"{i}/updates"] = np.array(m["updates"])

for i, (shape, kwargs) in enumerate(layers_model.BN_CONFIGS):
    with tf1.Graph().as_default():
        for k, value in enumerate(layers_model.batch_norm_results(tf1, data[f"bn{i}"], shape, kwargs)):
            out[f"bn{i}/{k}"] = value

with tf1.Graph().as_default():
    out["placed"] = np.array(json.dumps(layers_model.placed_variables(tf1)))

g = tf1.Graph()
with g.as_default():
    step = tf1.placeholder(tf.int64, [])
    schedules = {
        "exp": tf1.train.exponential_decay(0.1, step, 10, 0.5),
        "exp_stair": tf1.train.exponential_decay(0.1, step, 10, 0.5, staircase=True),
        "piecewise": tf1.train.piecewise_constant(step, [5, 10], [1.0, 0.5, 0.1]),
        "poly": tf1.train.polynomial_decay(0.1, step, 10, 0.01, power=2.0),
        "poly_cycle": tf1.train.polynomial_decay(0.1, step, 10, 0.01, power=0.5, cycle=True),
    }
    ts = [tf1.constant(data[f"clip{k}"]) for k in range(3)]
    clipped, norm = tf1.clip_by_global_norm([ts[0], None, ts[1], ts[2]], 2.5)
    with tf1.Session() as sess:
        for name, t in schedules.items():
            out[f"schedule/{name}"] = np.array([sess.run(t, {step: s}) for s in data["steps"]])
        values = sess.run([clipped[0], clipped[2], clipped[3], norm, tf1.global_norm(ts)])
        for k, v in enumerate(values):
            out[f"clip/{k}"] = v
np.savez(sys.argv[3], **out)
