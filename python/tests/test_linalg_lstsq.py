"""tf.matrix_solve_ls / tf.linalg.lstsq against TensorFlow (tf_side/linalg_lstsq_cases.py builds
the same graphs on both sides): fast (normal equations, regularized or not, with gradients),
fast=False (minimum-norm solution, l2_regularizer ignored as TensorFlow's kernel does), shapes
known only when running, and a batch for which TensorFlow uses its MatrixSolveLs kernel."""
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, shared_cases_names, shared_cases_ours, shared_cases_outputs

sys.path.insert(0, TF_SIDE_DIR)
import linalg_lstsq_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()


@pytest.fixture(scope="module")
def theirs(tmp_path_factory):
    return shared_cases_outputs("test_linalg_lstsq", cases, tmp_path_factory.mktemp("cases"))


@pytest.fixture(scope="module")
def ours():
    return shared_cases_ours(cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    expected, got = theirs[0][name], ours[name]
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got.shape, got.dtype, expected.shape)
    # Normal equations square the condition number: float32 within a few hundred ulps.
    tol = 1e-9 if got.dtype == np.float64 else 5e-4
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * max(1.0, float(np.abs(expected).max())))


def test_exact_solution_is_numpys_least_squares(ours):
    a, b = ARRAYS["a_deep_float64"], ARRAYS["b_deep_float64"]
    np.testing.assert_allclose(ours["exact_deep_float64"], np.linalg.lstsq(a, b, rcond=None)[0], atol=1e-12)


def test_static_shape_and_alias():
    assert tf.linalg.lstsq is tf.matrix_solve_ls
    x = tf.linalg.lstsq(tf.placeholder(tf.float32, [None, 6, 3]), tf.placeholder(tf.float32, [None, 6, 2]))
    assert x.shape.as_list() == [None, 3, 2]
