"""Qr, Svd and SelfAdjointEigV2 cases built by the same code on both sides: `build(tf, arrays)`
takes `tf` (tensorweave, or TensorFlow's compat.v1) and returns name -> tensor: the raw
factors, sign-invariant losses and their gradients (signs of singular/eigen vectors are
each library's choice). Run as a script with TensorFlow's python: args in.npz out.npz, the
values go to out.npz and static shapes / errors to stdout as JSON."""
import json
import re

import numpy as np

from shared_cases_run import run_build

# (name, shape, dtype): well-conditioned random inputs, deep, square, wide and batched.
SHAPES = [("deep", (5, 3)), ("square", (4, 4)), ("wide", (3, 5)), ("batch_deep", (2, 4, 3)),
          ("batch_wide", (2, 2, 4)), ("near_deep", (4, 3)), ("near_wide", (2, 3, 4))]


def make_arrays():
    rng = np.random.default_rng(77)
    arrays = {}
    for name, shape in SHAPES:
        for dt in ("float64", "float32"):
            x = rng.uniform(-1, 1, shape)
            arrays[f"{name}_{dt}"] = x.astype(dt)
            sym = x[..., :min(shape[-2:]), :min(shape[-2:])]
            # Symmetric with well-separated eigenvalues (the gradients divide by their gaps).
            k = sym.shape[-1]
            arrays[f"sym_{name}_{dt}"] = (sym + np.swapaxes(sym, -1, -2) + np.diag(np.arange(k) * 2.0)).astype(dt)
            arrays[f"w_{name}_{dt}"] = rng.uniform(-1, 1, shape).astype(dt)
    return arrays


def _aligned(tf, q, r):
    """q D and D r with D = sign(diag(r)) (held constant): QR's sign-invariant form."""
    d = tf.stop_gradient(tf.sign(tf.matrix_diag_part(r)))
    return q * tf.expand_dims(d, -2), r * tf.expand_dims(d, -1)


def build(tf, arrays):
    out = {}
    for name, shape in SHAPES:
        for dt in ("float64", "float32"):
            key = f"{name}_{dt}"
            x = tf.constant(arrays[key])
            w = arrays[f"w_{key}"]
            m, n = shape[-2:]
            p = min(m, n)
            for full in (False, True):
                q, r = tf.qr(x, full_matrices=full)
                out[f"qr_{key}_full{full}_recon"] = tf.matmul(q, r)
                out[f"qr_{key}_full{full}_qtq"] = tf.matmul(q, q, transpose_a=True)
                if not (full and m > n):  # Q's extra columns there are any basis; no gradient in TensorFlow
                    qa, ra = _aligned(tf, q, r)
                    out[f"qr_{key}_full{full}_q"], out[f"qr_{key}_full{full}_r"] = qa, ra
                    wq = tf.constant(np.resize(w, q.shape.as_list()))
                    wr = tf.constant(np.resize(w[..., ::-1], r.shape.as_list()))
                    loss = tf.reduce_sum(wq * qa) + tf.reduce_sum(wr * ra)
                    out[f"qr_{key}_full{full}_grad"] = tf.gradients(loss, x)[0]
            s, u, v = tf.svd(x)
            out[f"svd_{key}_s"] = s
            out[f"svd_{key}_uu"], out[f"svd_{key}_vv"] = u * u, v * v
            out[f"svd_{key}_recon"] = tf.matmul(u * tf.expand_dims(s, -2), v, transpose_b=True)
            ws = tf.constant(np.resize(w, s.shape.as_list()))
            wu = tf.constant(np.resize(w, u.shape.as_list()))
            wv = tf.constant(np.resize(w[..., ::-1], v.shape.as_list()))
            loss = tf.reduce_sum(ws * s) + tf.reduce_sum(wu * u * u) + tf.reduce_sum(wv * v * v)
            out[f"svd_{key}_grad"] = tf.gradients(loss, x)[0]
            s_only = tf.svd(x, compute_uv=False)
            out[f"svd_{key}_s_only"] = s_only
            out[f"svd_{key}_s_only_grad"] = tf.gradients(tf.reduce_sum(ws * s_only), x)[0]
            if abs(m - n) <= 1:  # TensorFlow's full-matrices gradient stops there
                sf, uf, vf = tf.svd(x, full_matrices=True)
                wuf = tf.constant(np.resize(w, uf.shape.as_list()))
                wvf = tf.constant(np.resize(w[..., ::-1], vf.shape.as_list()))
                out[f"svd_{key}_full_uu"], out[f"svd_{key}_full_vv"] = uf * uf, vf * vf
                out[f"svd_{key}_full_grad"] = tf.gradients(
                    tf.reduce_sum(ws * sf) + tf.reduce_sum(wuf * uf * uf) + tf.reduce_sum(wvf * vf * vf), x)[0]
            sym = tf.constant(arrays[f"sym_{key}"])
            e, ev = tf.self_adjoint_eig(sym)
            out[f"eig_{key}_e"], out[f"eig_{key}_vv"] = e, ev * ev
            we = tf.constant(np.resize(w, e.shape.as_list()))
            wv = tf.constant(np.resize(w, ev.shape.as_list()))
            out[f"eig_{key}_grad"] = tf.gradients(tf.reduce_sum(we * e) + tf.reduce_sum(wv * ev * ev), sym)[0]
            e_only = tf.self_adjoint_eigvals(sym)
            out[f"eig_{key}_e_only"] = e_only
            out[f"eig_{key}_e_only_grad"] = tf.gradients(tf.reduce_sum(we * e_only), sym)[0]
    return out


def static_shapes(tf):
    """The static shapes of every output for partly known inputs."""
    shapes = {}
    x = tf.placeholder(tf.float32, [None, 5, 3])
    shapes["qr"] = [t.shape.as_list() for t in tf.qr(x)]
    shapes["qr_full"] = [t.shape.as_list() for t in tf.qr(x, full_matrices=True)]
    shapes["svd"] = [t.shape.as_list() for t in tf.svd(x)]
    shapes["svd_full"] = [t.shape.as_list() for t in tf.svd(x, full_matrices=True)]
    shapes["svd_s"] = tf.svd(x, compute_uv=False).shape.as_list()
    shapes["eig"] = [t.shape.as_list() for t in tf.self_adjoint_eig(tf.placeholder(tf.float32, [2, None, 4]))]
    return shapes


# Bad inputs: each must fail with InvalidArgument and this text (built on unknown shapes, so
# the kernel answers).
ERRORS = {
    "eig_not_square": ("self_adjoint_eig", np.zeros((2, 3))),
    "eig_nan": ("self_adjoint_eig", np.full((2, 2), np.nan)),
    "svd_rank1": ("svd", np.zeros(3)),
    "qr_rank1": ("qr", np.zeros(3)),
}


def error_graph(tf, name):
    fn, value = ERRORS[name]
    return getattr(tf, fn)(tf.placeholder_with_default(value, shape=None))


def main():
    tf = run_build(build)
    result = {"shapes": {}, "errors": {}}
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
                # The kernel's text: the line before TensorFlow's "[[{{node ...}}]]" trailer.
                result["errors"][name] = re.split(r"\s*\[\[", e.message)[0].strip().splitlines()[-1]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
