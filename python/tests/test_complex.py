"""Complex numbers against TensorFlow (tf_side/complex_cases.py builds the same graphs on both
sides): complex64/128 tensors, tf.complex / real / imag / conj / angle / abs, arithmetic,
reductions, casts and gradients of real losses through complex values; a GraphDef TensorFlow
wrote with complex constants; feeds and fetches of NumPy complex arrays; and bad input."""
import base64
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, assert_close_to_tensorflow, shared_cases_fixtures, shared_cases_names

sys.path.insert(0, TF_SIDE_DIR)
import complex_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()

theirs, ours = shared_cases_fixtures("test_complex", cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    assert_close_to_tensorflow(ours[name], theirs[0][name], 1e-12, 2e-5)


def test_graph_def_written_by_tensorflow(theirs):
    written = theirs[1]
    graph_def = tf.GraphDef()
    graph_def.ParseFromString(base64.b64decode(written["graph_def"]))
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            got = sess.run({name: name for name in written["values"]})
    for name, value in written["values"].items():
        expected = np.array(value["re"]) + 1j * np.array(value["im"])
        np.testing.assert_allclose(got[name], expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_feed_and_fetch_numpy_complex(dtype):
    value = (np.arange(6).reshape(2, 3) + 1j * np.arange(6, 12).reshape(2, 3)).astype(dtype)
    x = tf.placeholder(tf.as_dtype(dtype), [2, 3])
    with tf.Session() as sess:
        got = sess.run(x * tf.constant(2j, dtype=tf.as_dtype(dtype)), {x: value})
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, value * 2j)


def test_dtypes():
    assert tf.complex64.is_complex and not tf.complex64.is_floating
    assert tf.complex64.real_dtype == tf.float32 and tf.complex128.real_dtype == tf.float64
    assert tf.float32.real_dtype == tf.float32
    assert tf.as_dtype(np.complex128) == tf.complex128 and tf.as_dtype("complex64") == tf.complex64
    assert tf.complex64.as_datatype_enum == 8 and tf.complex128.as_datatype_enum == 18
    assert tf.constant(1j).dtype == tf.complex128
    z = tf.complex(tf.zeros([2, 1], tf.float64), tf.zeros([3], tf.float64))
    assert z.dtype == tf.complex128 and z.shape.as_list() == [2, 3]


def test_static_shapes():
    z = tf.complex(tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.float32, [3]))
    assert z.dtype == tf.complex64 and z.shape.as_list() == [None, 3]
    assert tf.abs(z).dtype == tf.float32 and tf.abs(z).shape.as_list() == [None, 3]
    assert tf.real(z).dtype == tf.float32 and tf.math.angle(z).dtype == tf.float32


def test_bad_input():
    with pytest.raises(TypeError, match="must both be float32 or both float64"):
        tf.complex(tf.zeros([2], tf.float32), tf.zeros([2], tf.float64))
    with pytest.raises(TypeError, match="must both be float32 or both float64"):
        tf.complex(tf.zeros([2], tf.int32), tf.zeros([2], tf.int32))
    with pytest.raises(TypeError, match="Expected numeric or variant tensor"):
        tf.conj(tf.constant([True]))
    with pytest.raises(TypeError):
        tf.constant([1j], dtype=tf.float32)  # No silent loss of the imaginary part.
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
            sess.run(tf.complex(tf.zeros([2]), tf.placeholder_with_default(np.zeros(3, np.float32), [None])))
    # Max is not defined on complex values, as in TensorFlow.
    with pytest.raises((TypeError, ValueError, tf.errors.InvalidArgumentError)):
        tf.reduce_max(tf.constant([1j]))


def test_make_tensor_proto_writes_complex_pairs():
    # TensorFlow keeps complex values in scomplex_val / dcomplex_val, (real, imaginary) interleaved.
    value = np.array([1 + 2j, -3.5 - 0.5j], np.complex64)
    proto = tf.make_tensor_proto(value)
    assert proto.dtype == 8 and list(proto.scomplex_val) == [1.0, 2.0, -3.5, -0.5] and not proto.tensor_content
    np.testing.assert_array_equal(tf.make_ndarray(proto), value)
    filled = tf.make_tensor_proto(2 - 1j, dtype=tf.complex128, shape=[3])
    assert list(filled.dcomplex_val) == [2.0, -1.0]
    np.testing.assert_array_equal(tf.make_ndarray(filled), np.full(3, 2 - 1j))
    with tf.Graph().as_default(), tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.constant(value) * 1j), value * 1j)
