"""tf.matrix_solve_ls / tf.linalg.lstsq cases built by the same code on both sides:
`build(tf, arrays)` returns name -> tensor (solutions over- and underdetermined, batched,
regularized, fast and not, shapes known only when running, a batch large enough that
TensorFlow calls its MatrixSolveLs kernel, and gradients). Run as a script with TensorFlow's
python: args in.npz out.npz; values to out.npz, a JSON line to stdout."""
import json

import numpy as np

from shared_cases_run import run_build

SHAPES = [("deep", (6, 3), 2), ("wide", (3, 5), 2), ("batch_deep", (2, 5, 4), 3), ("batch_wide", (2, 2, 4), 1)]


def make_arrays():
    rng = np.random.default_rng(11)
    arrays = {}
    for name, shape, k in SHAPES:
        for dt in ("float64", "float32"):
            arrays[f"a_{name}_{dt}"] = rng.uniform(-1, 1, shape).astype(dt)
            arrays[f"b_{name}_{dt}"] = rng.uniform(-1, 1, shape[:-1] + (k,)).astype(dt)
            arrays[f"w_{name}_{dt}"] = rng.uniform(-1, 1, shape[:-2] + (shape[-1], k)).astype(dt)
    # float64 [3000, 4, 3]: over TensorFlow's cache guess with more matrices than columns.
    arrays["a_big"] = rng.uniform(-1, 1, (3000, 4, 3))
    arrays["b_big"] = rng.uniform(-1, 1, (3000, 4, 1))
    return arrays


def build(tf, arrays):
    out = {}
    for name, _, _ in SHAPES:
        for dt in ("float64", "float32"):
            key = f"{name}_{dt}"
            a, b = tf.constant(arrays[f"a_{key}"]), tf.constant(arrays[f"b_{key}"])
            w = tf.constant(arrays[f"w_{key}"])
            for l2 in (0.0, 0.5):
                x = tf.linalg.lstsq(a, b, l2_regularizer=l2)
                out[f"fast_{key}_l2{l2}"] = x
                out[f"fast_{key}_l2{l2}_grad_a"], out[f"fast_{key}_l2{l2}_grad_b"] = tf.gradients(
                    tf.reduce_sum(x * w), [a, b])
            out[f"exact_{key}"] = tf.matrix_solve_ls(a, b, fast=False)
            out[f"exact_{key}_l2_ignored"] = tf.matrix_solve_ls(a, b, l2_regularizer=0.5, fast=False)
            unknown = tf.placeholder_with_default(arrays[f"a_{key}"], shape=None)
            out[f"unknown_shape_{key}"] = tf.linalg.lstsq(unknown, b, l2_regularizer=0.25)
    out["big"] = tf.linalg.lstsq(tf.constant(arrays["a_big"]), tf.constant(arrays["b_big"]), l2_regularizer=0.1)
    return out


def main():
    run_build(build)
    print(json.dumps({}))


if __name__ == "__main__":
    main()
