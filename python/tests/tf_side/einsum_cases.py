"""tf.einsum cases built by the same code on both sides: `build(tf, arrays)` takes `tf`
(tensorweave, or TensorFlow's compat.v1) and returns name -> tensor (values, and the
gradients of a weighted sum with respect to every input). As a script with TensorFlow's
python: args in.npz out.npz; values to out.npz, static shapes and error texts to stdout."""
import json
import re

import numpy as np

from shared_cases_run import run_build

# name -> (equation, input shapes)
CASES = {
    "matmul": ("ij,jk->ik", [(2, 3), (3, 4)]),
    "transpose": ("ij->ji", [(2, 3)]),
    "diag": ("ii->i", [(3, 3)]),
    "trace": ("ii->", [(3, 3)]),
    "sum": ("ij->", [(2, 3)]),
    "row_sum": ("ij->i", [(2, 3)]),
    "batch_matmul": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    "broadcast_matmul": ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    "broadcast_one_side": ("...ij,jk->...ik", [(2, 3, 4), (4, 2)]),
    "dot": ("i,i->", [(4,), (4,)]),
    "outer": ("i,j->ij", [(3,), (2,)]),
    "hadamard": ("ij,ij->ij", [(2, 3), (2, 3)]),
    "tensordot": ("abc,cd->abd", [(2, 3, 4), (4, 5)]),
    "implicit": ("ij,jk", [(2, 3), (3, 4)]),
    "separate_sums": ("ab,cd->ac", [(2, 3), (4, 5)]),
    "ellipsis_reduce": ("...a,a->...", [(2, 3, 4), (4,)]),
    "input_diag": ("iij->ij", [(3, 3, 2)]),
    "bilinear": ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    "chain": ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    "uppercase": ("aB,Bc->ac", [(2, 3), (3, 4)]),
    "spaces": ("ij, jk -> ik", [(2, 3), (3, 4)]),
    "batch_diag_sum": ("bii,bi->b", [(2, 3, 3), (2, 3)]),
}

# Integer einsums (TensorFlow's kernel has int32 and int64): values only, no gradient.
INT_CASES = {
    "int_matmul": ("ij,jk->ik", [(3, 5), (5, 4)]),
    "int_batch_contract": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    "int_broadcast_batch": ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    "int_trace_sum": ("bii,bi->b", [(2, 3, 3), (2, 3)]),
    "int_transpose": ("abc->cab", [(2, 3, 4)]),
}
INT_DTYPES = ("int32", "int64")


def make_arrays():
    rng = np.random.default_rng(24)
    arrays = {}
    for name, (_, shapes) in CASES.items():
        for dt in ("float64", "float32"):
            for i, s in enumerate(shapes):
                arrays[f"{name}_{dt}_{i}"] = rng.uniform(-1, 1, s).astype(dt)
    for name, (_, shapes) in INT_CASES.items():
        for dt in INT_DTYPES:
            for i, s in enumerate(shapes):
                arrays[f"{name}_{dt}_{i}"] = rng.integers(-1000, 1000, s).astype(dt)
    return arrays


def build(tf, arrays):
    out = {}
    for name, (eq, shapes) in CASES.items():
        for dt in ("float64", "float32"):
            xs = [tf.constant(arrays[f"{name}_{dt}_{i}"]) for i in range(len(shapes))]
            y = tf.einsum(eq, *xs)
            out[f"{name}_{dt}"] = y
            w = tf.constant(np.resize(np.linspace(-1.0, 2.0, 7), y.shape.as_list()).astype(dt))
            for i, g in enumerate(tf.gradients(tf.reduce_sum(w * y), xs)):
                out[f"{name}_{dt}_grad{i}"] = g
    for name, (eq, shapes) in INT_CASES.items():
        for dt in INT_DTYPES:
            out[f"{name}_{dt}"] = tf.einsum(eq, *[tf.constant(arrays[f"{name}_{dt}_{i}"]) for i in range(len(shapes))])
    return out


def static_shapes(tf):
    shapes = {}
    p = tf.placeholder(tf.float32, [None, 3, 4])
    q = tf.placeholder(tf.float32, [4, None])
    shapes["partial"] = tf.einsum("bij,jk->bik", p, q).shape.as_list()
    shapes["broadcast_unknown"] = tf.einsum("...ij,...jk->...ik", tf.placeholder(tf.float32, [None, 1, 2, 3]),
                                            tf.placeholder(tf.float32, [5, 3, 2])).shape.as_list()
    return shapes


# Bad inputs to the Einsum op (inputs of unknown shape, so that the kernel answers).
ERRORS = {
    "three_inputs": ("ab,bc,cd->ad", [np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 2))]),
    "rank": ("abc,bc->ac", [np.ones((2, 3)), np.ones((3, 4))]),
    "dim": ("ab,bc->ac", [np.ones((2, 3)), np.ones((4, 4))]),
    "no_arrow": ("ab,bc", [np.ones((2, 3)), np.ones((3, 4))]),
}


def error_graph(tf, name):
    eq, values = ERRORS[name]
    return tf.raw_ops.Einsum(inputs=[tf.placeholder_with_default(v, shape=None) for v in values], equation=eq)


def main():
    tf = run_build(build)
    result = {"errors": {}}
    with tf.Graph().as_default():
        result["shapes"] = static_shapes(tf)
    for name in ERRORS:
        with tf.Graph().as_default():
            try:
                t = error_graph(tf, name)
                with tf.Session() as sess:
                    sess.run(t)
                result["errors"][name] = None
            except (tf.errors.InvalidArgumentError, ValueError) as e:
                msg = getattr(e, "message", str(e))
                # The op's own text: without the graph-build suffix " for '{{node ...}}'" or the "[[...]]" trailer.
                msg = re.split(r"\s*\[\[| for '\{\{node", msg)[0].strip()
                result["errors"][name] = msg.splitlines()[-1]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
