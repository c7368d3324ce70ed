"""tf.hessians cases built by the same code on both sides: `build(tf, arrays)` returns
name -> tensor (a vector, a matrix, two xs at once, float32 and
float64). Run as a script with TensorFlow's python (args in.npz out.npz)."""
import json

import numpy as np

from shared_cases_run import run_build


def make_arrays():
    rng = np.random.default_rng(7)
    return {"v": rng.uniform(0.5, 1.5, (3,)), "m": rng.uniform(0.5, 1.5, (2, 2)),
            "w32": rng.uniform(-1, 1, (4,)).astype(np.float32)}


def build(tf, arrays):
    v, m, w32 = (tf.constant(arrays[k]) for k in ("v", "m", "w32"))
    out = {}
    out["vector"] = tf.hessians(tf.reduce_sum(v ** 3) + tf.reduce_prod(v), v)[0]
    out["matrix"] = tf.hessians(tf.reduce_sum(tf.exp(m) * tf.reduce_sum(m, 0)), m)[0]
    out["two_a"], out["two_b"] = tf.hessians(tf.reduce_sum(tf.sin(v)) * tf.reduce_sum(m * m), [v, m])
    out["float32"] = tf.hessians(tf.reduce_sum(tf.tanh(w32) * w32), w32)[0]
    return out


def main():
    run_build(build)
    print(json.dumps({}))


if __name__ == "__main__":
    main()
