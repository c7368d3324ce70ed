"""tf.linalg.sqrtm / tf.matrix_square_root beyond the random real cases of
test_tf_oracle_ops.py / test_tf_oracle_grads.py: complex matrices against TensorFlow's
kernel, the gradient in a graph whose batch size is unknown against central differences,
and the names."""
import numpy as np

import tensorweave as tf
from numeric_gradients import central_differences
from tf_peer import require_tensorflow, run_tf_cases


def complex_cases(rng):
    out = []
    for dtype, shape in ((np.complex64, (3, 3)), (np.complex128, (2, 4, 4)), (np.complex128, (2, 2))):
        x = rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape) + 2 * shape[-1] * np.eye(shape[-1])
        out.append(x.astype(dtype))
    out.append(np.array([[-4, 1], [0, -9]], np.complex128))  # negative real eigenvalues: complex roots
    return out


def test_complex_matches_tensorflow(tmp_path):
    python = require_tensorflow("test_complex_matches_tensorflow")
    inputs = complex_cases(np.random.default_rng(5))
    arrays = {f"a{i}": x for i, x in enumerate(inputs)}
    cases = [{"op": "MatrixSquareRoot", "inputs": [f"a{i}"], "attrs": {}, "list_sizes": {"values": 1}}
             for i in range(len(inputs))]
    theirs = run_tf_cases(python, "raw_ops.py", tmp_path, arrays, cases)
    with tf.Graph().as_default(), tf.Session() as sess:
        ours = sess.run([tf.linalg.sqrtm(x) for x in inputs])
    for i, (x, value) in enumerate(zip(inputs, ours)):
        expected = theirs[f"c{i}_o0"]
        assert value.dtype == expected.dtype == x.dtype
        eps = np.finfo(x.real.dtype).eps
        np.testing.assert_allclose(value, expected, rtol=64 * eps, atol=64 * eps * np.abs(expected).max())


def test_gradient_with_unknown_batch_matches_central_differences():
    rng = np.random.default_rng(9)
    a_value = rng.uniform(-1, 1, (2, 3, 3)) + 6 * np.eye(3)  # not symmetric: positive real eigenvalues
    with tf.Graph().as_default(), tf.Session() as sess:
        a = tf.placeholder(tf.float64, [None, 3, 3])
        root = tf.matrix_square_root(a)
        assert root.shape.as_list() == [None, 3, 3]
        loss = tf.reduce_sum(tf.constant(rng.uniform(-1, 1, (2, 3, 3))) * root)
        (da,) = tf.gradients(loss, [a])
        ours = sess.run(da, {a: a_value})
        expected = central_differences(lambda v: sess.run(loss, {a: v}), a_value)
    np.testing.assert_allclose(ours, expected, rtol=1e-7, atol=1e-8)


def test_names():
    assert tf.linalg.sqrtm is tf.matrix_square_root
    with tf.Graph().as_default(), tf.Session() as sess:
        root = tf.linalg.sqrtm(np.array([[4.0, 0.0], [0.0, 9.0]]), name="root")
        assert root.op.type == "MatrixSquareRoot" and root.op.name == "root"
        np.testing.assert_allclose(sess.run(root), [[2, 0], [0, 3]])
