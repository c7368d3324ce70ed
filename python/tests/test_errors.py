"""tf.errors: each status code maps to its class, carrying message, node and code."""
import pytest

import tensorweave as tf
from tensorweave import _core

CODES = {
    1: tf.errors.CancelledError, 2: tf.errors.UnknownError, 3: tf.errors.InvalidArgumentError,
    4: tf.errors.DeadlineExceededError, 5: tf.errors.NotFoundError, 6: tf.errors.AlreadyExistsError,
    7: tf.errors.PermissionDeniedError, 8: tf.errors.ResourceExhaustedError,
    9: tf.errors.FailedPreconditionError, 10: tf.errors.AbortedError, 11: tf.errors.OutOfRangeError,
    12: tf.errors.UnimplementedError, 13: tf.errors.InternalError, 14: tf.errors.UnavailableError,
    15: tf.errors.DataLossError, 16: tf.errors.UnauthenticatedError,
}


@pytest.mark.parametrize("code, cls", sorted(CODES.items()))
def test_each_code_raises_its_class(code, cls):
    with pytest.raises(cls) as info:
        _core._raise_status(code, "node 'n1' (Add): went wrong")
    error = info.value
    assert isinstance(error, tf.errors.OpError)
    assert error.error_code == code
    assert error.message == "node 'n1' (Add): went wrong" == str(error)
    assert error.node_name == "n1"


def test_runtime_error_names_the_node_and_finds_the_op(sess):
    a = tf.placeholder(tf.float32, [None])
    b = tf.placeholder(tf.float32, [None])
    broken = tf.add(a, b, name="broken_add")
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(broken, {a: [1, 2, 3], b: [1, 2]})
    error = info.value
    assert "broken_add" in error.message and "Incompatible shapes" in error.message
    assert error.node_name == "broken_add"
    assert error.op == broken.op
    assert error.node_def is None


def test_graph_building_errors_name_the_node():
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad_matmul"):
        tf.matmul(tf.zeros([2, 3]), tf.zeros([2, 3]), name="bad_matmul")
    with pytest.raises(tf.errors.NotFoundError, match="nothing_here"):
        tf.get_default_graph().get_operation_by_name("nothing_here")


def test_bad_session_target():
    with pytest.raises(tf.errors.InvalidArgumentError, match="unknown session target"):
        tf.Session("http://localhost:1")


def test_errors_can_be_constructed_as_in_tensorflow():
    error = tf.errors.InvalidArgumentError(None, None, "bad value")
    assert error.message == "bad value" and error.error_code == tf.errors.INVALID_ARGUMENT
    assert error.op is None and error.node_name is None
