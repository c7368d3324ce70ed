"""tf.linalg.pinv cases built by the same code on both sides: `build(tf, arrays)` returns
name -> tensor (the pseudo-inverse, and the gradient of a weighted sum of it). As a script
with TensorFlow's python: args in.npz out.npz; values to out.npz, static shapes as JSON."""
import json

import numpy as np

from shared_cases_run import run_build

# name -> (shape, rank): rank < min(rows, cols) makes singular values the cutoff drops.
CASES = {
    "square": ((3, 3), 3),
    "tall": ((5, 3), 3),
    "wide": ((2, 4), 2),
    "batch": ((2, 3, 4, 3), 3),
    "rank_deficient": ((4, 4), 2),
    "rank_deficient_wide": ((3, 5), 1),
}


def make_arrays():
    rng = np.random.default_rng(24)
    arrays = {}
    for name, (shape, rank) in CASES.items():
        left = rng.uniform(-1, 1, shape[:-1] + (rank,))
        right = rng.uniform(-1, 1, shape[:-2] + (rank, shape[-1]))
        arrays[name] = left @ right
    return arrays


def build(tf, arrays):
    out = {}
    for name in CASES:
        for dt in ("float64", "float32"):
            a = tf.constant(arrays[name].astype(dt))
            y = tf.linalg.pinv(a)
            out[f"{name}_{dt}"] = y
            if CASES[name][1] == min(CASES[name][0][-2:]):  # full rank: singular values apart, a smooth gradient
                w = tf.constant(np.resize(np.linspace(-1.0, 2.0, 7), y.shape.as_list()).astype(dt))
                out[f"{name}_{dt}_grad"] = tf.gradients(tf.reduce_sum(w * y), [a])[0]
    out["rcond_float64"] = tf.linalg.pinv(tf.constant(arrays["square"]), rcond=0.5)
    return out


def static_shapes(tf):
    return {"partial": tf.linalg.pinv(tf.compat.v1.placeholder(tf.float32, [None, 2, 3])).shape.as_list(),
            "unknown": tf.linalg.pinv(tf.compat.v1.placeholder(tf.float64, [None, None])).shape.as_list()}


def main():
    tf = run_build(build)
    with tf.Graph().as_default():
        print(json.dumps({"shapes": static_shapes(tf)}))


if __name__ == "__main__":
    main()
