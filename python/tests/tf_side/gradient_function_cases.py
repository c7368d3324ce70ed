"""Gradient machinery built by the same code on both sides: `build(tf, arrays)` returns
name -> tensor (tf.custom_gradient with one and two inputs and a tuple result,
tf.RegisterGradient with Graph.gradient_override_map, tf.gradients' stop_gradients and
unconnected_gradients, tf.NotDifferentiable). Run as a script with TensorFlow's python."""
import json

import numpy as np

from shared_cases_run import run_build


def make_arrays():
    rng = np.random.default_rng(3)
    return {"x": np.array([1.0, 100.0, -3.0], np.float32), "u": rng.uniform(-2, 2, (2, 3)),
            "v": rng.uniform(-2, 2, (2, 3))}


def _register_once(tf, name, fn):
    try:
        tf.RegisterGradient(name)(fn)
    except KeyError:  # Already registered by an earlier build in this process.
        pass


def build(tf, arrays):
    x, u, v = (tf.constant(arrays[k]) for k in ("x", "u", "v"))
    out = {}

    @tf.custom_gradient
    def log1pexp(t):
        e = tf.exp(t)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.log(1 + e), grad

    @tf.custom_gradient
    def clipped_product(a, b):
        def grad(dy):
            return tf.clip_by_value(dy * b, -0.5, 0.5), dy * a * 2.0
        return a * b, grad

    @tf.custom_gradient
    def two_results(a):
        def grad(d_sum, d_diff):
            return d_sum * 3.0 + d_diff
        return (a + 1.0, a - 1.0), grad

    y = log1pexp(x)
    out["log1pexp"], out["log1pexp_grad"] = y, tf.gradients(y, x)[0]
    p = clipped_product(u, v)
    out["product"] = p
    out["product_grad_u"], out["product_grad_v"] = tf.gradients(tf.reduce_sum(p * 3.0), [u, v])
    s, d = two_results(u)
    out["two_results_grad"] = tf.gradients(tf.reduce_sum(s * 2.0) + tf.reduce_sum(d), u)[0]

    _register_once(tf, "TimesTenSquareGrad", lambda op, grad: grad * 10.0 * op.inputs[0])
    with tf.get_default_graph().gradient_override_map({"Square": "TimesTenSquareGrad"}):
        q = tf.square(v)
    out["override"] = tf.gradients(tf.reduce_sum(q), v)[0]
    out["not_overridden"] = tf.gradients(tf.reduce_sum(tf.square(v)), v)[0]

    a = tf.constant(0.0)
    b = 2.0 * a
    out["stop_a"], out["stop_b"] = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    out["no_stop_a"] = tf.gradients(a + b, a)[0]
    w = u * v
    out["stop_w"] = tf.gradients(tf.reduce_sum(w * u), u, stop_gradients=[w])[0]
    out["unconnected_zero"] = tf.gradients(tf.reduce_sum(u), v, unconnected_gradients="zero")[0]
    return out


def main():
    run_build(build)
    print(json.dumps({}))


if __name__ == "__main__":
    main()
