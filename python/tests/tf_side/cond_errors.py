"""TensorFlow's side of test_control_flow_cond.py: the errors tf.compat.v1.cond (control flow
v1) gives for bad branches and for fetching a dead Switch output, as JSON on stdout."""
import json

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is part of the answer
        return [type(e).__name__, str(e)]
    return None


x = tf1.placeholder(tf.float32, [], name="x")
out = {
    "structure": error(lambda: tf1.cond(x > 0, lambda: x, lambda: (x, x))),
    "dtype": error(lambda: tf1.cond(x > 0, lambda: x, lambda: tf.constant(1))),
    "no_value": error(lambda: tf1.cond(x > 0, lambda: None, lambda: x)),
}
_, taken_only_when_positive = tf1.raw_ops.Switch(data=x, pred=x > 0)
with tf1.Session() as sess:
    out["dead_fetch"] = error(lambda: sess.run(taken_only_when_positive, {x: -1.0}))
with tf1.Graph().as_default() as fresh:  # A fresh graph: the message names the preds.
    n = tf1.placeholder(tf.int32, [], name="n")
    both = tf1.case([(n > 0, lambda: tf.constant(1)), (n > 1, lambda: tf.constant(2))],
                    default=lambda: tf.constant(0), exclusive=True)
with tf1.Session(graph=fresh) as sess:
    out["exclusive_ok"] = int(sess.run(both, {n: 1}))
    out["exclusive"] = error(lambda: sess.run(both, {n: 5}))
print(json.dumps(out))
