"""tf.linalg.lu, lu_solve, lu_matrix_inverse and lu_reconstruct cases built by the same code on
both sides: `build(tf, arrays)` takes `tf` (tensorweave, or TensorFlow's compat.v1) and returns
name -> tensor (the factors, the composites, broadcasting, and the composites' gradients; TF
has no gradient for Lu itself). Run as a script with TensorFlow's python: args in.npz out.npz,
the values go to out.npz and static shapes / errors to stdout as JSON."""
import json
import re

import numpy as np

from shared_cases_run import run_build

# Plain random matrices (so that rows are pivoted), unbatched and batched.
SHAPES = [("single", (5, 5)), ("batch", (2, 4, 4)), ("batch2", (2, 3, 3, 3))]


def make_arrays():
    rng = np.random.default_rng(2024)
    arrays = {}
    for name, shape in SHAPES:
        n = shape[-1]
        for dt in ("float64", "float32"):
            arrays[f"{name}_{dt}"] = rng.uniform(-1, 1, shape).astype(dt)
            arrays[f"rhs_{name}_{dt}"] = rng.uniform(-1, 1, shape[:-1] + (2,)).astype(dt)
            # A packed factor with a strong diagonal and a random permutation per matrix: inputs
            # of the composites that do not depend on Lu (whose gradient TF lacks).
            packed = rng.uniform(-1, 1, shape) + 3 * np.eye(n)
            arrays[f"packed_{name}_{dt}"] = packed.astype(dt)
            perms = np.stack([rng.permutation(n) for _ in range(int(np.prod(shape[:-2], dtype=int)))])
            arrays[f"perm_{name}"] = perms.reshape(shape[:-1]).astype(np.int32)
            arrays[f"w_{name}_{dt}"] = rng.uniform(-1, 1, shape).astype(dt)
    arrays["rhs_shared"] = rng.uniform(-1, 1, (4, 3))
    return arrays


def build(tf, arrays):
    out = {}
    for name, shape in SHAPES:
        for dt in ("float64", "float32"):
            key = f"{name}_{dt}"
            x = tf.constant(arrays[key])
            lu, p = tf.linalg.lu(x)
            out[f"lu_{key}"], out[f"p_{key}"] = lu, p
            out[f"p64_{key}"] = tf.linalg.lu(x, output_idx_type=tf.int64)[1]
            out[f"recon_{key}"] = tf.linalg.lu_reconstruct(lu, p)
            out[f"inv_{key}"] = tf.linalg.lu_matrix_inverse(lu, p, validate_args=True)
            out[f"solve_{key}"] = tf.linalg.lu_solve(lu, p, tf.constant(arrays[f"rhs_{key}"]))
            packed = tf.constant(arrays[f"packed_{key}"])
            perm = tf.constant(arrays[f"perm_{name}"])
            rhs = tf.constant(arrays[f"rhs_{key}"])
            w = arrays[f"w_{key}"]
            solved = tf.linalg.lu_solve(packed, perm, rhs)
            out[f"packed_solve_{key}"] = solved
            loss = tf.reduce_sum(solved * tf.constant(w[..., :2]))
            grads = tf.gradients(loss, [packed, rhs])  # rhs's may be IndexedSlices (gather): made dense
            out[f"packed_solve_grad_lu_{key}"] = grads[0]
            out[f"packed_solve_grad_rhs_{key}"] = tf.convert_to_tensor(grads[1])
            inv = tf.linalg.lu_matrix_inverse(packed, perm)
            out[f"packed_inv_{key}"] = inv
            out[f"packed_inv_grad_{key}"] = tf.gradients(tf.reduce_sum(inv * w), packed)[0]
            recon = tf.linalg.lu_reconstruct(packed, perm)
            out[f"packed_recon_{key}"] = recon
            out[f"packed_recon_grad_{key}"] = tf.gradients(tf.reduce_sum(recon * w), packed)[0]
    # Broadcasting in lu_solve: batched factors with one rhs, one factor with batched rhs.
    lu_b, p_b = tf.linalg.lu(tf.constant(arrays["batch_float64"]))
    out["solve_batched_lu_shared_rhs"] = tf.linalg.lu_solve(lu_b, p_b, tf.constant(arrays["rhs_shared"]))
    lu_s, p_s = tf.linalg.lu(tf.constant(arrays["batch_float64"][0]))
    out["solve_shared_lu_batched_rhs"] = tf.linalg.lu_solve(
        lu_s, p_s, tf.constant(np.stack([arrays["rhs_shared"]] * 3)))
    return out


def static_shapes(tf):
    """Static shapes of the outputs for partly known inputs."""
    x = tf.placeholder(tf.float32, [None, 4, 4])
    lu, p = tf.linalg.lu(x)
    y = tf.placeholder(tf.float64, [3, None, None])
    return {"lu": [lu.shape.as_list(), p.shape.as_list()],
            "lu_unknown_dims": [t.shape.as_list() for t in tf.linalg.lu(y)],
            "recon": tf.linalg.lu_reconstruct(lu, p).shape.as_list()}


def static_errors(tf):
    """The ValueErrors raised while building, by name (None: accepted)."""
    cases = {
        "lu_not_square": lambda: tf.linalg.lu(tf.zeros([2, 3])),
        "recon_rank1": lambda: tf.linalg.lu_reconstruct(tf.zeros([3]), tf.zeros([], tf.int32)),
        "recon_rank_mismatch": lambda: tf.linalg.lu_reconstruct(tf.zeros([3, 3]), tf.zeros([2, 3], tf.int32)),
        "recon_not_square": lambda: tf.linalg.lu_reconstruct(tf.zeros([3, 4]), tf.zeros([3], tf.int32)),
        "solve_rhs_rank1": lambda: tf.linalg.lu_solve(tf.zeros([3, 3]), tf.zeros([3], tf.int32), tf.zeros([3])),
        "solve_mismatch": lambda: tf.linalg.lu_solve(tf.zeros([3, 3]), tf.zeros([3], tf.int32), tf.zeros([2, 1])),
    }
    result = {}
    for name, fn in cases.items():
        with tf.Graph().as_default():
            try:
                fn()
                result[name] = None
            except (ValueError, tf.errors.InvalidArgumentError) as e:  # ours: shape-fn errors are the latter
                result[name] = str(e).splitlines()[0]
    return result


# Bad inputs known only when running: each must fail with InvalidArgument holding TensorFlow's
# text (error_text). (fn, matrix, perm or None, rhs or None)
ERRORS = {
    "lu_not_square": ("lu", np.zeros((2, 3)), None, None),
    "lu_rank1": ("lu", np.zeros(3), None, None),
    "lu_singular": ("lu", np.array([[1.0, 2.0], [2.0, 4.0]]), None, None),
    "inverse_singular_validate": ("inverse_of_lu", np.array([[1.0, 2.0], [2.0, 4.0]]), None, None),
    "inverse_not_square_validate": ("inverse", np.ones((2, 3)), np.array([0, 1], np.int32), None),
    "inverse_rank_validate": ("inverse", np.ones((2, 2)), np.array([[0, 1]], np.int32), None),
    "solve_mismatch_validate": ("solve", np.eye(3), np.array([0, 1, 2], np.int32), np.ones((2, 1))),
}


def error_graph(tf, name):
    fn, value, perm, rhs = ERRORS[name]

    def unknown(v):
        return tf.placeholder_with_default(v, shape=None)
    if fn == "lu":
        return tf.linalg.lu(unknown(value))[0]
    if fn == "inverse_of_lu":
        return tf.linalg.lu_matrix_inverse(*tf.linalg.lu(unknown(value)), validate_args=True)
    if fn == "inverse":
        return tf.linalg.lu_matrix_inverse(unknown(value), unknown(perm), validate_args=True)
    return tf.linalg.lu_solve(unknown(value), unknown(perm), unknown(rhs), validate_args=True)


def error_text(message):
    """The kernel's text: the line before TensorFlow's "[[{{node ...}}]]" trailer; of an
    assertion's, its first part ("assertion failed: [message]")."""
    return re.split(r"\s*\[\[", message)[0].strip().splitlines()[-1].split("] [")[0]


def main():
    tf = run_build(build)
    result = {"errors": {}, "static_errors": static_errors(tf)}
    with tf.Graph().as_default():
        result["shapes"] = static_shapes(tf)
    for name in ERRORS:
        with tf.Graph().as_default():
            t = error_graph(tf, name)
            try:
                with tf.Session() as sess:
                    sess.run(t)
                result["errors"][name] = None
            except tf.errors.InvalidArgumentError as e:
                result["errors"][name] = error_text(e.message)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
