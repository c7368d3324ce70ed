"""tf.einsum (op Einsum) against TensorFlow: values and gradients of 22 equations (matmul,
transposes, diagonals, traces, broadcasting "...", implicit outputs, 3-input chains) in both
float dtypes, static shapes, and error texts for bad equations and inputs. The graphs are
built by the same code on both sides (tf_side/einsum_cases.py)."""
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, shared_cases_names, shared_cases_ours, shared_cases_outputs

sys.path.insert(0, TF_SIDE_DIR)
import einsum_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()


@pytest.fixture(scope="module")
def theirs(tmp_path_factory):
    return shared_cases_outputs("test_einsum", cases, tmp_path_factory.mktemp("cases"))


@pytest.fixture(scope="module")
def ours():
    return shared_cases_ours(cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    expected, got = theirs[0][name], ours[name]
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, got.dtype, expected.shape)
    tol = 0 if got.dtype.kind == "i" else 1e-12 if got.dtype == np.float64 else 1e-5
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_values_are_numpys(ours, name):
    eq, shapes = cases.CASES[name]
    xs = [ARRAYS[f"{name}_float64_{i}"] for i in range(len(shapes))]
    np.testing.assert_allclose(ours[f"{name}_float64"], np.einsum(eq.replace(" ", ""), *xs), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(cases.INT_CASES))
def test_int_values_are_numpys(ours, name):
    eq, shapes = cases.INT_CASES[name]
    for dt in cases.INT_DTYPES:
        xs = [ARRAYS[f"{name}_{dt}_{i}"] for i in range(len(shapes))]
        got = ours[f"{name}_{dt}"]
        assert got.dtype == dt
        np.testing.assert_array_equal(got, np.einsum(eq, *xs))


def test_static_shapes_match_tensorflow(theirs):
    with tf.Graph().as_default():
        assert cases.static_shapes(tf) == theirs[1]["shapes"]


@pytest.mark.parametrize("name", sorted(cases.ERRORS))
def test_errors_match_tensorflow(theirs, name):
    expected = theirs[1]["errors"][name]
    assert expected, f"TensorFlow accepted {name}"
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            t = cases.error_graph(tf, name)
            with tf.Session() as sess:
                sess.run(t)
    assert expected in e.value.message, (expected, e.value.message)


@pytest.mark.parametrize("equation, why", [
    ("ab,bc->ad", "output subscript 'd' is in no input"),
    ("a1,1c->ac", "character '1' in subscript 'a1' is neither a letter nor part of '...'"),
    ("...a...,a->a", "more than one ellipsis"),
])
def test_bad_equations_name_the_equation(equation, why):
    # Stricter than TensorFlow's kernel, which runs the first two with made-up output dims.
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"Einsum: invalid equation '{equation}'.*{why}"):
            tf.einsum(equation, np.ones((2, 3)), np.ones((3, 4)))


def test_broadcast_dims_that_do_not_broadcast():
    with tf.Graph().as_default(), tf.Session() as sess:
        t = tf.einsum("...a,...a->...", tf.placeholder_with_default(np.ones((2, 3)), shape=None), np.ones((4, 3)))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Einsum: the dims under '...' do not broadcast: 2 vs. 4"):
            sess.run(t)


def test_wrong_number_of_inputs():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="2 input subscripts for 1 inputs"):
        tf.einsum("ij,jk->ik", np.ones((2, 2)))


def test_namespace_aliases():
    assert tf.linalg.einsum is tf.einsum
    assert tf.linalg.qr is tf.qr and tf.linalg.svd is tf.svd
    assert tf.linalg.eigh is tf.self_adjoint_eig and tf.linalg.eigvalsh is tf.self_adjoint_eigvals
    assert tf.math.invert_permutation is tf.invert_permutation
    assert tf.linalg.global_norm is tf.global_norm and tf.linalg.l2_normalize is tf.nn.l2_normalize
