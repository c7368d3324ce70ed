"""tf.nn.rnn_cell cells with tf.nn.dynamic_rnn / static_rnn / bidirectional_dynamic_rnn against
TensorFlow 1 (rnn_programs.py on both sides): the same variable names and shapes (checkpoints
line up), and with the same weights the same outputs, final states and gradients (inputs and
every variable), sequence_length masking included."""
import json

import numpy as np
import pytest

import tensorweave as tf
from rnn_programs import PROGRAMS, assign_ops, variables
from tf_peer import require_tensorflow, run_tf_script


@pytest.fixture(scope="module")
def theirs():
    python = require_tensorflow("test_rnn")
    return json.loads(run_tf_script(python, "rnn_cases.py").strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_rnn_matches_tensorflow(theirs, name):
    with tf.Graph().as_default():
        fetches = PROGRAMS[name](tf, tf)
        assert [list(v) for v in variables(tf)] == theirs[name]["variables"]
        assigns = assign_ops(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(assigns)
            got = sess.run(fetches)
    assert len(got) == len(theirs[name]["values"])
    for i, (ours, value, shape) in enumerate(zip(got, theirs[name]["values"], theirs[name]["shapes"])):
        np.testing.assert_allclose(ours, np.array(value, np.float32).reshape(shape), rtol=2e-5, atol=2e-6,
                                   err_msg=f"{name}: fetch {i}")


def test_past_its_length_a_row_outputs_zeros_and_keeps_its_state():
    from rnn_programs import LENGTHS, X
    cell = tf.nn.rnn_cell.BasicRNNCell(4)
    outputs, state = tf.nn.dynamic_rnn(cell, tf.constant(X), sequence_length=tf.constant(LENGTHS), dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, last = sess.run([outputs, state])
    assert out.shape == (3, 5, 4)
    np.testing.assert_array_equal(out[1, 2:], 0.0)
    np.testing.assert_array_equal(out[2], 0.0)
    np.testing.assert_array_equal(last[1], out[1, 1])  # The state stopped at step 2.
    np.testing.assert_array_equal(last[2], 0.0)  # A zero-length row keeps the initial state.


def test_rnn_errors_match_tensorflow():
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    with pytest.raises(ValueError, match="If there is no initial_state, you must give a dtype."):
        tf.nn.dynamic_rnn(cell, tf.zeros([2, 3, 4]))
    with pytest.raises(ValueError, match="must be a vector of length batch_size"):
        tf.nn.dynamic_rnn(cell, tf.zeros([2, 3, 4]), sequence_length=tf.zeros([2, 2], tf.int32), dtype=tf.float32)


def test_contrib_rnn_names_the_same_classes():
    assert tf.contrib.rnn.BasicLSTMCell is tf.nn.rnn_cell.BasicLSTMCell
    assert tf.compat.v1.nn.rnn_cell.LSTMStateTuple is tf.contrib.rnn.LSTMStateTuple
    assert tf.contrib.rnn.static_rnn is tf.nn.static_rnn
