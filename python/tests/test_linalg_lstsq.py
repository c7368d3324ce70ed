"""tf.matrix_solve_ls / tf.linalg.lstsq against TensorFlow (tf_side/linalg_lstsq_cases.py builds
the same graphs on both sides): fast (normal equations, regularized or not, with gradients),
fast=False (minimum-norm solution, l2_regularizer ignored as TensorFlow's kernel does), shapes
known only when running, and a batch for which TensorFlow uses its MatrixSolveLs kernel."""
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, assert_close_to_tensorflow, shared_cases_fixtures, shared_cases_names

sys.path.insert(0, TF_SIDE_DIR)
import linalg_lstsq_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()


theirs, ours = shared_cases_fixtures("test_linalg_lstsq", cases, ARRAYS)


@pytest.mark.parametrize("name", shared_cases_names(cases, ARRAYS))
def test_matches_tensorflow(theirs, ours, name):
    # Normal equations square the condition number: float32 within a few hundred ulps.
    assert_close_to_tensorflow(ours[name], theirs[0][name], 1e-9, 5e-4)


def test_exact_solution_is_numpys_least_squares(ours):
    a, b = ARRAYS["a_deep_float64"], ARRAYS["b_deep_float64"]
    np.testing.assert_allclose(ours["exact_deep_float64"], np.linalg.lstsq(a, b, rcond=None)[0], atol=1e-12)


def test_static_shape_and_alias():
    assert tf.linalg.lstsq is tf.matrix_solve_ls
    x = tf.linalg.lstsq(tf.placeholder(tf.float32, [None, 6, 3]), tf.placeholder(tf.float32, [None, 6, 2]))
    assert x.shape.as_list() == [None, 3, 2]
