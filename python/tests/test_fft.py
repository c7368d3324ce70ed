"""tf.signal's FFTs against TensorFlow (tf_side/fft_cases.py builds the same graphs on both
sides): fft / ifft / rfft / irfft of ranks 1-3 on both complex dtypes, fft_length cropping
and padding, fftshift, and gradients of real losses through each transform; the gradients
TensorFlow lacks (RFFT3D, IRFFT3D) or gets wrong (cropped or padded fft_length) against
central differences; NumPy's FFT as a second oracle; static shapes and bad input."""
import sys

import numpy as np
import pytest

import tensorweave as tf
from numeric_gradients import central_differences
from tf_peer import TF_SIDE_DIR, assert_close_to_tensorflow, shared_cases_fixtures, shared_cases_names

sys.path.insert(0, TF_SIDE_DIR)
import fft_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()

theirs, ours = shared_cases_fixtures("test_fft", cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    assert_close_to_tensorflow(ours[name], theirs[0][name], 1e-12, 1e-5)


def test_matches_numpy(ours):
    z = ARRAYS["re3_float64"] + 1j * ARRAYS["im3_float64"]
    np.testing.assert_allclose(ours["fft3d_complex128"], np.fft.fftn(z, axes=(-3, -2, -1)), atol=1e-12)
    np.testing.assert_allclose(ours["ifft3d_complex128"], np.fft.ifftn(z, axes=(-3, -2, -1)), atol=1e-12)
    r = ARRAYS["r2_odd_float64"]
    np.testing.assert_allclose(ours["rfft2d_longer_odd_complex128"], np.fft.rfft2(r, s=(7, 9)), atol=1e-12)
    s = ARRAYS["sre1_even_float64"] + 1j * ARRAYS["sim1_even_float64"]
    np.testing.assert_allclose(ours["irfft_shorter_even_complex128"], np.fft.irfft(s[..., :3], n=4), atol=1e-12)


@pytest.mark.parametrize("rank,fft_length", [(1, [5]), (1, [11]), (2, [3, 7]), (2, [6, 4]), (3, [2, 5, 3]),
                                             (3, [3, 4, 4])])
def test_real_transform_gradients_by_central_differences(rank, fft_length):
    rng = np.random.default_rng(rank)
    shape = {1: (2, 8), 2: (2, 4, 5), 3: (1, 3, 4, 4)}[rank]
    sfx = {1: "", 2: "2d", 3: "3d"}[rank]
    x0 = rng.uniform(-1, 1, shape)
    half = fft_length[:-1] + [fft_length[-1] // 2 + 1]
    s_shape = shape[:-rank] + tuple(half)
    spec0 = rng.uniform(-1, 1, s_shape) + 1j * rng.uniform(-1, 1, s_shape)
    w_spec = rng.uniform(-1, 1, s_shape) + 1j * rng.uniform(-1, 1, s_shape)
    w_out = rng.uniform(-1, 1, shape[:-rank] + tuple(fft_length))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, shape)
        y = getattr(tf.signal, "rfft" + sfx)(x, fft_length)
        loss_r = tf.reduce_sum(tf.real(y) * w_spec.real) + tf.reduce_sum(tf.imag(y) * w_spec.imag)
        sre, sim = tf.placeholder(tf.float64, s_shape), tf.placeholder(tf.float64, s_shape)
        loss_i = tf.reduce_sum(getattr(tf.signal, "irfft" + sfx)(tf.complex(sre, sim), fft_length) * w_out)
        g_r = tf.gradients(loss_r, x)[0]
        g_re, g_im = tf.gradients(loss_i, [sre, sim])
        with tf.Session() as sess:
            got = sess.run(g_r, {x: x0})
            np.testing.assert_allclose(got, central_differences(lambda v: sess.run(loss_r, {x: v}), x0), atol=1e-7)
            feed = {sre: spec0.real, sim: spec0.imag}
            got_re, got_im = sess.run([g_re, g_im], feed)
            np.testing.assert_allclose(
                got_re, central_differences(lambda v: sess.run(loss_i, {sre: v, sim: spec0.imag}), spec0.real),
                atol=1e-7)
            np.testing.assert_allclose(
                got_im, central_differences(lambda v: sess.run(loss_i, {sre: spec0.real, sim: v}), spec0.imag),
                atol=1e-7)


def test_static_shapes_and_dtypes():
    x = tf.placeholder(tf.float32, [None, 3, 10])
    assert tf.signal.rfft(x).shape.as_list() == [None, 3, 6]
    assert tf.signal.rfft(x).dtype == tf.complex64
    assert tf.signal.rfft2d(x, [4, 7]).shape.as_list() == [None, 4, 4]
    z = tf.placeholder(tf.complex128, [5, 6])
    assert tf.signal.irfft(z).shape.as_list() == [5, 10] and tf.signal.irfft(z).dtype == tf.float64
    assert tf.signal.irfft(z, [7]).shape.as_list() == [5, 7]
    assert tf.fft2d(z).shape.as_list() == [5, 6] and tf.ifft is tf.signal.ifft
    unknown = tf.signal.rfft(x, tf.placeholder(tf.int32, [1]))
    assert unknown.shape.as_list() == [None, 3, None]


def test_bad_input():
    with pytest.raises(TypeError, match="complex64 or complex128"):
        tf.signal.fft(tf.zeros([4]))
    with pytest.raises(TypeError, match="float32 or float64"):
        tf.signal.rfft(tf.zeros([4], tf.int32))
    with pytest.raises((ValueError, tf.errors.InvalidArgumentError), match="rank at least 2"):
        tf.signal.fft2d(tf.complex(tf.zeros([4]), tf.zeros([4])))
    with pytest.raises((ValueError, tf.errors.InvalidArgumentError), match="fft_length must have 2 elements"):
        tf.signal.rfft2d(tf.zeros([4, 4]), [4])
    with pytest.raises((ValueError, tf.errors.InvalidArgumentError), match=r"fft_length\[0\] must be >= 0"):
        tf.signal.rfft(tf.zeros([4]), [-1])
    with tf.Graph().as_default():
        length = tf.placeholder(tf.int32, [None])
        x = tf.placeholder(tf.float32, None)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"fft_length\[0\] must >= 0, but got: -3"):
                sess.run(tf.signal.rfft(tf.zeros([4]), length), {length: [-3]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="fft_length must be a vector of 1 elements"):
                sess.run(tf.signal.rfft(tf.zeros([4]), length), {length: [4, 4]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="rank at least 3"):
                sess.run(tf.signal.rfft3d(x, [2, 2, 2]), {x: np.zeros((2, 2), np.float32)})


def test_empty_and_single_point():
    with tf.Graph().as_default(), tf.Session() as sess:
        z = tf.complex(tf.zeros([3, 0]), tf.zeros([3, 0]))
        assert sess.run(tf.signal.fft(z)).shape == (3, 0)
        one = tf.complex(tf.constant([[2.0], [-1.0]]), tf.constant([[0.5], [0.0]]))
        np.testing.assert_array_equal(sess.run(tf.signal.ifft(one)), [[2 + 0.5j], [-1]])
        assert sess.run(tf.signal.rfft(tf.zeros([2, 4]), [0])).shape == (2, 1)
        assert sess.run(tf.signal.irfft(tf.complex(tf.zeros([2, 3]), tf.zeros([2, 3])), [0])).shape == (2, 0)
