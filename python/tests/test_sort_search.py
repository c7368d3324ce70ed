"""Sorting, searching, counting and small composites against TensorFlow
(tf_side/sort_search_cases.py builds the same graphs on both sides), NumPy as a second
oracle, random_crop's windows, and bad input."""
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, assert_close_to_tensorflow, shared_cases_fixtures, shared_cases_names

sys.path.insert(0, TF_SIDE_DIR)
import sort_search_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()

theirs, ours = shared_cases_fixtures("test_sort_search", cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    assert_close_to_tensorflow(ours[name], theirs[0][name], 1e-12, 1e-6)


def test_matches_numpy(ours):
    np.testing.assert_array_equal(ours["sort_f32_axis1"], np.sort(ARRAYS["f32"], axis=1))
    np.testing.assert_array_equal(ours["argsort_ties"], np.argsort(ARRAYS["f64_ties"], kind="stable"))
    np.testing.assert_array_equal(ours["searchsorted_right"][1],
                                  np.searchsorted(ARRAYS["sorted"][1], ARRAYS["queries"][1], side="right"))
    np.testing.assert_array_equal(ours["bincount_minlength"], np.bincount(ARRAYS["counts_in"], minlength=9))
    np.testing.assert_allclose(ours["cross"], np.cross(ARRAYS["va"], ARRAYS["vb"]), atol=1e-6)


def test_random_crop_is_a_window_of_the_input():
    value = np.arange(60).reshape(3, 4, 5)
    with tf.Graph().as_default(), tf.Session() as sess:
        crop = tf.random_crop(tf.constant(value), [2, 2, 3])
        seen = set()
        for _ in range(40):
            got = sess.run(crop)
            i, j, k = np.unravel_index(got.flat[0], value.shape)
            np.testing.assert_array_equal(got, value[i:i + 2, j:j + 2, k:k + 3])
            seen.add((i, j, k))
        assert len(seen) > 3  # Offsets vary from run to run.
        # A shape known only when running: the crop's own check fails the step (a static one
        # is refused when the graph is built, by Slice's shape function).
        unknown = tf.placeholder(tf.int64, [None, None, None])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Need value.shape >= size"):
            sess.run(tf.random_crop(unknown, [4, 1, 1]), {unknown: value})


def test_bad_input():
    with pytest.raises(ValueError, match="direction must be ASCENDING or DESCENDING"):
        tf.sort(tf.zeros([3]), direction="UP")
    with pytest.raises(ValueError, match="side must be 'left' or 'right'"):
        tf.searchsorted(tf.zeros([3]), tf.zeros([2]), side="middle")
    with pytest.raises(ValueError, match="same rank"):
        tf.searchsorted(tf.zeros([2, 3]), tf.zeros([2]))
    with pytest.raises(ValueError, match="last dim must be 3"):
        tf.cross(tf.zeros([4]), tf.zeros([4]))
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` contains negative values"):
            sess.run(tf.confusion_matrix([0, -1], [0, 1]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="`predictions` out of bound"):
            sess.run(tf.confusion_matrix([0, 1], [0, 5], num_classes=3))


def test_initializers_have_their_distributions():
    with tf.Graph().as_default(), tf.Session() as sess:
        ortho = tf.get_variable("ortho", [4, 6], initializer=tf.orthogonal_initializer(gain=2.0))
        tall = tf.get_variable("tall", [3, 2, 5], initializer=tf.orthogonal_initializer())
        fan_in = tf.get_variable("fan_in", [200, 300], initializer=tf.variance_scaling_initializer(2.0))
        uniform = tf.get_variable("uniform", [100, 50], initializer=tf.variance_scaling_initializer(
            1.0, "fan_avg", "uniform"))
        glorot = tf.get_variable("glorot", [3, 3, 16, 32], initializer=tf.glorot_normal_initializer())
        unit = tf.get_variable("unit", [400, 10], initializer=tf.uniform_unit_scaling_initializer(1.5))
        sess.run(tf.global_variables_initializer())
        o, t = sess.run([ortho, tall])
        np.testing.assert_allclose(o @ o.T, 4.0 * np.eye(4), atol=1e-5)
        flat = t.reshape(6, 5)
        np.testing.assert_allclose(flat.T @ flat, np.eye(5), atol=1e-5)
        assert abs(np.std(sess.run(fan_in)) / np.sqrt(2.0 / 200) - 1) < 0.05
        u = sess.run(uniform)
        limit = np.sqrt(3.0 / 75)
        assert u.max() <= limit and u.min() >= -limit and abs(np.std(u) / (limit / np.sqrt(3)) - 1) < 0.05
        g = sess.run(glorot)
        assert abs(np.std(g) / np.sqrt(2.0 / (9 * 16 + 9 * 32)) - 1) < 0.05
        assert np.abs(g).max() <= 2 * np.sqrt(2.0 / (9 * 16 + 9 * 32)) / .87962566103423978 + 1e-6
        assert np.abs(sess.run(unit)).max() <= np.sqrt(3.0 / 400) * 1.5
    with pytest.raises(ValueError, match="Invalid `mode`"):
        tf.variance_scaling_initializer(mode="fan_max")
    with pytest.raises(ValueError, match="at least two-dimensional"):
        tf.orthogonal_initializer()([5])


def test_tuple_static_values_and_predicates():
    with tf.Graph().as_default(), tf.Session() as sess:
        a, b = tf.constant([1, 2]), tf.constant(3.0)
        ta, tb = tf.tuple([a, b])
        assert [i.op.type for i in ta.op.inputs] == ["Const"] and ta.op.control_inputs
        np.testing.assert_array_equal(sess.run(ta), [1, 2])
        with pytest.raises(ValueError, match="at least one Tensor"):
            tf.tuple([None])
        np.testing.assert_array_equal(tf.get_static_value(tf.shape(tf.zeros([2, 3]))), [2, 3])
        np.testing.assert_array_equal(tf.get_static_value(tf.constant([[1, 2]], tf.int64)), [[1, 2]])
        assert tf.get_static_value(tf.placeholder(tf.float32)) is None
        assert tf.get_static_value(tf.rank(tf.zeros([4, 1]))) == 2
        assert tf.is_tensor(a) and not tf.is_tensor(np.ones(2)) and tf.is_numeric_tensor(a)
        assert not tf.is_numeric_tensor(tf.constant("x")) and tf.dimension_value(a.shape[0]) == 2
