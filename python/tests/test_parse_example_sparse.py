"""SparseToDense (tf.sparse.to_dense, tf.sparse_to_dense) against real TensorFlow's
kernel: random sorted indices of rank 0, 1 and 2, int32 and int64 indices, numeric dtypes,
scalar and vector values; and the errors (out of bounds, out of order, repeated, bad
shapes) with TensorFlow's class and message. Then the SparseTensors parse_example returns,
made dense."""
import numpy as np

import tensorweave as tf
from example_cases import error_text, make_example
from tf_peer import require_tensorflow, run_tf_cases

DTYPES = [np.float32, np.float64, np.int32, np.int64]


def random_case(rng, dtype):
    ndims = int(rng.integers(1, 4))
    dims = rng.integers(1, 5, size=ndims)
    total = int(np.prod(dims))
    n = int(rng.integers(0, total + 1))
    flat = np.sort(rng.choice(total, size=n, replace=False))
    indices = np.stack(np.unravel_index(flat, dims), axis=1) if n else np.zeros([0, ndims], np.int64)
    index_dtype = np.int32 if rng.random() < 0.5 else np.int64
    if ndims == 1 and rng.random() < 0.5:
        indices = indices[:, 0]  # a vector of indices into a vector
    values = (rng.standard_normal(n) * 100).astype(dtype) if rng.random() < 0.8 else np.array(7, dtype)
    return [indices.astype(index_dtype), dims.astype(index_dtype), values, np.array(-1, dtype)]


I = np.array
BAD = [
    [I([[0, 1], [2, 0]]), I([2, 3]), I([5.0, 6.0], np.float32), I(-1.0, np.float32)],  # out of bounds
    [I([[1, 0], [0, 1]]), I([2, 3]), I([5.0, 6.0], np.float32), I(-1.0, np.float32)],  # out of order
    [I([[0, 1], [0, 1]]), I([2, 3]), I([5.0, 6.0], np.float32), I(-1.0, np.float32)],  # repeated
    [I([[0, -1]]), I([2, 3]), I([5.0], np.float32), I(-1.0, np.float32)],  # negative
    [I([[0, 1], [1, 0]]), I([2, 3]), I([5.0, 6.0, 7.0], np.float32), I(-1.0, np.float32)],  # values
    [I([[0, 1], [1, 0]]), I([2, 3]), I([5.0, 6.0], np.float32), I([1.0, 2.0], np.float32)],  # default
    [I([[0, 1], [1, 0]]), I([[2, 3]]), I([5.0, 6.0], np.float32), I(-1.0, np.float32)],  # shape rank
    [np.zeros([1, 2, 2], np.int64), I([2, 3]), I([5.0], np.float32), I(-1.0, np.float32)],  # indices rank
    [I([[0, 1, 1]]), I([2, 3]), I([5.0], np.float32), I(-1.0, np.float32)],  # index columns
]


def run_ours(inputs, validate):
    with tf.Graph().as_default():
        ph = [tf.placeholder(tf.as_dtype(x.dtype)) for x in inputs]
        y = tf.sparse_to_dense(ph[0], ph[1], ph[2], ph[3], validate_indices=validate)
        with tf.Session() as sess:
            return sess.run(y, dict(zip(ph, inputs)))


def test_sparse_to_dense_matches_tensorflow(tmp_path):
    python = require_tensorflow("test_sparse_to_dense_matches_tensorflow")
    rng = np.random.default_rng(11)
    cases = [random_case(rng, DTYPES[i % len(DTYPES)]) for i in range(24)]
    cases.append([I(2, np.int64), I([4], np.int64), I(3.5, np.float32), I(0.0, np.float32)])  # scalar index
    cases.append([I([0, 0], np.int64), I([3], np.int64), I([1, 2], np.int32), I(0, np.int32)])  # repeat, unvalidated
    valid = [True] * (len(cases) - 1) + [False]
    all_cases = cases + BAD
    flags = valid + [True] * len(BAD)
    arrays = {f"c{i}_{k}": a for i, c in enumerate(all_cases) for k, a in zip(("indices", "shape", "values", "default"), c)}
    theirs = run_tf_cases(python, "sparse_to_dense_cases.py", tmp_path, arrays, [{"validate": v} for v in flags])
    for i, (inputs, validate) in enumerate(zip(all_cases, flags)):
        if f"c{i}_out" in theirs.files:
            want = theirs[f"c{i}_out"]
            got = run_ours(inputs, validate)
            assert got.dtype == want.dtype and got.shape == want.shape, i
            assert np.array_equal(got, want), (i, got, want)
            continue
        assert i >= len(cases), (i, str(theirs[f"c{i}_error"]))
        try:
            run_ours(inputs, validate)
            raise AssertionError(f"case {i}: no error, TensorFlow said {theirs[f'c{i}_error']}")
        except tf.errors.OpError as e:
            assert type(e).__name__ == str(theirs[f"c{i}_error_class"]), i
            first_line = error_text(e.message).splitlines()[0]
            assert first_line in str(theirs[f"c{i}_error"]), (i, first_line, str(theirs[f"c{i}_error"]))


def test_parsed_sparse_features_to_dense():
    records = [make_example({"w": ("string", [b"a", b"b"]), "n": ("int64", [4])}),
               make_example({"w": ("string", []), "n": ("int64", [1, 2, 3])})]
    parsed = tf.parse_example(tf.constant(np.array(records, dtype=object)),
                              {"w": tf.io.VarLenFeature(tf.string), "n": tf.io.VarLenFeature(tf.int64)})
    with tf.Session() as sess:
        w, n = sess.run([tf.sparse.to_dense(parsed["w"], default_value=b"?"), tf.sparse_tensor_to_dense(parsed["n"])])
    assert w.tolist() == [[b"a", b"b"], [b"?", b"?"]]
    assert n.tolist() == [[4, 0, 0], [1, 2, 3]]


def test_sparse_placeholder_is_fed_a_sparse_tensor_value():
    sp = tf.sparse_placeholder(tf.float32, shape=[None, None])
    dense = tf.sparse.to_dense(sp, default_value=-1.0)
    value = tf.SparseTensorValue(indices=np.array([[0, 2], [1, 1]]), values=np.array([1.5, 2.5], np.float32),
                                 dense_shape=np.array([2, 3]))
    with tf.Session() as sess:
        got, echoed = sess.run([dense, sp], {sp: value})
    assert got.tolist() == [[-1.0, -1.0, 1.5], [-1.0, 2.5, -1.0]]
    assert isinstance(echoed, tf.SparseTensorValue)
    assert echoed.indices.tolist() == [[0, 2], [1, 1]] and echoed.dense_shape.tolist() == [2, 3]
