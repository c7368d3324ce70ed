"""Complex-number cases built by the same code on both sides: `build(tf, arrays)` returns
name -> tensor (tf.complex with broadcasting, real / imag / conj / angle / abs of complex and
of real tensors, arithmetic, reductions and matmul on complex64 and complex128, casts, and gradients
of real losses through complex values). Run as a script with TensorFlow's python (args
in.npz out.npz): values to out.npz, and a JSON line holding a GraphDef TensorFlow wrote with
complex constants (its scomplex_val / dcomplex_val fields) and the values it computes."""
import base64
import json

import numpy as np

from shared_cases_run import run_build

REAL = {"complex64": "float32", "complex128": "float64"}


def make_arrays():
    rng = np.random.default_rng(5)
    arrays = {}
    for real in ("float32", "float64"):
        for part in ("re", "im", "re2", "im2"):
            arrays[f"{part}_{real}"] = rng.uniform(-2, 2, (2, 3)).astype(real)
        arrays[f"row_{real}"] = rng.uniform(-2, 2, (3,)).astype(real)
    arrays["zero_and_axes"] = np.array([0, 1, -1, 0, 2, -2], np.float32)  # angle of 0, pi, signed zeros.
    arrays["given_complex64"] = (rng.uniform(-1, 1, (4,)) + 1j * rng.uniform(-1, 1, (4,))).astype(np.complex64)
    return arrays


def build(tf, arrays):
    out = {}
    for cdt, real in REAL.items():
        re, im = tf.constant(arrays[f"re_{real}"]), tf.constant(arrays[f"im_{real}"])
        re2, im2 = tf.constant(arrays[f"re2_{real}"]), tf.constant(arrays[f"im2_{real}"])
        row = tf.constant(arrays[f"row_{real}"])
        z, w = tf.complex(re, im), tf.complex(re2, im2)
        out[f"complex_{cdt}"] = z
        out[f"complex_broadcast_{cdt}"] = tf.complex(re, row)
        for fn in ("real", "imag", "conj", "angle", "abs"):
            out[f"{fn}_{cdt}"] = getattr(tf.math, fn)(z)
        for fn in ("real", "imag", "conj"):
            out[f"{fn}_of_real_{real}"] = getattr(tf.math, fn)(re)
        out[f"add_{cdt}"] = z + w
        out[f"sub_{cdt}"] = z - w
        out[f"mul_{cdt}"] = z * w
        out[f"div_{cdt}"] = z / w
        out[f"div_op_{cdt}"] = tf.div(z, w)
        out[f"mul_python_complex_{cdt}"] = z * (0.5 - 2j)
        out[f"neg_{cdt}"] = -z
        for fn in ("square", "exp", "log", "sqrt", "reciprocal"):
            out[f"{fn}_{cdt}"] = getattr(tf, fn)(z)
        out[f"equal_{cdt}"] = tf.equal(z, tf.complex(re, im2))
        out[f"not_equal_{cdt}"] = tf.not_equal(z, tf.complex(re2, im))
        out[f"sum_{cdt}"] = tf.reduce_sum(z, axis=1)
        out[f"sum_all_{cdt}"] = tf.reduce_sum(z)
        out[f"mean_{cdt}"] = tf.reduce_mean(z, axis=0)
        out[f"prod_{cdt}"] = tf.reduce_prod(z, axis=1)
        out[f"add_n_{cdt}"] = tf.add_n([z, w, z])
        out[f"cast_real_to_{cdt}"] = tf.cast(re, cdt)
        out[f"cast_{cdt}_to_{real}"] = tf.cast(z, real)
        out[f"cast_{cdt}_to_int32"] = tf.cast(z, tf.int32)
        other = "complex128" if cdt == "complex64" else "complex64"
        out[f"cast_{cdt}_to_{other}"] = tf.cast(z, other)
        out[f"transpose_{cdt}"] = tf.transpose(tf.reshape(tf.concat([z, w], 0), [2, 2, 3]), [2, 0, 1])
        out[f"gather_{cdt}"] = tf.gather(z, [1, 0, 1], axis=0)
        # MatMul only transposes, BatchMatMulV2 takes adjoints; tf.matmul maps each flag.
        zt = tf.transpose(w)  # [3, 2]
        out[f"matmul_{cdt}"] = tf.matmul(z, zt)
        out[f"matmul_transpose_{cdt}"] = tf.matmul(z, w, transpose_b=True)
        out[f"matmul_adjoint_{cdt}"] = tf.matmul(z, w, adjoint_a=True)
        stacked = tf.stack([z, w, z])  # [3, 2, 3]
        out[f"batch_matmul_adjoint_{cdt}"] = tf.matmul(stacked, stacked, adjoint_b=True)
        out[f"batch_matmul_transpose_{cdt}"] = tf.matmul(stacked, stacked, transpose_a=True)
        # Real losses through complex values, differentiated by the real parts.
        loss = tf.reduce_sum(tf.abs(z * w + tf.exp(z))) + tf.reduce_sum(tf.angle(z / w))
        loss += tf.reduce_sum(tf.real(tf.log(z) + tf.sqrt(w) + tf.reciprocal(z) + tf.square(w) - tf.conj(z) * w))
        loss += tf.reduce_sum(tf.imag(tf.complex(re, row) * z))
        loss += tf.reduce_sum(tf.abs(tf.matmul(z, w, transpose_b=True))) + tf.reduce_sum(
            tf.real(tf.matmul(stacked, stacked, adjoint_a=True)))
        for name, g in zip(("re", "im", "re2", "im2", "row"), tf.gradients(loss, [re, im, re2, im2, row])):
            out[f"grad_{name}_{cdt}"] = g
        # The gradient with respect to a complex value.
        out[f"grad_complex_{cdt}"] = tf.gradients(tf.reduce_sum(tf.square(tf.abs(z))) + tf.reduce_sum(tf.real(z * w)),
                                                  z)[0]
    zeros = tf.constant(arrays["zero_and_axes"])
    out["angle_of_real"] = tf.angle(zeros)
    out["angle_of_axes"] = tf.angle(tf.complex(zeros, tf.reverse(zeros, [0])))
    out["abs_zero_grad"] = tf.gradients(tf.reduce_sum(tf.abs(tf.complex(zeros * 0, zeros * 0))), zeros)[0]
    given = tf.constant(arrays["given_complex64"])
    out["given_complex64"] = given * given
    out["python_scalar"] = tf.constant(1.5 - 0.25j) * tf.constant([1j, 2.0])
    return out


def graph_with_complex_constants(tf):
    """A GraphDef with complex64 and complex128 constants (TensorFlow stores them in
    scomplex_val / dcomplex_val), and what TensorFlow computes from it."""
    with tf.Graph().as_default() as g:
        a = tf.constant([1 + 2j, -3.5 + 0.5j, 0.25 - 4j], dtype=tf.complex64, name="a")
        b = tf.constant(2 - 1j, dtype=tf.complex128, name="b")
        filled = tf.constant(0.5 + 1j, dtype=tf.complex64, shape=[2, 2], name="filled")
        tf.identity(tf.abs(a), name="abs_a")
        tf.identity(tf.math.angle(b * b), name="angle_b2")
        tf.identity(filled * tf.complex(1.0, 1.0), name="filled_times")
        with tf.Session() as sess:
            values = sess.run({"abs_a:0": "abs_a:0", "angle_b2:0": "angle_b2:0", "filled_times:0": "filled_times:0"})
    return {"graph_def": base64.b64encode(g.as_graph_def().SerializeToString()).decode(),
            "values": {k: {"re": np.real(v).tolist(), "im": np.imag(v).tolist()} for k, v in values.items()}}


def main():
    tf = run_build(build)
    print(json.dumps(graph_with_complex_constants(tf)))


if __name__ == "__main__":
    main()
