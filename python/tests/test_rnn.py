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


def _outputs_and_states(wrap, cell):
    from rnn_programs import X
    tf.reset_default_graph()
    tf.set_random_seed(7)
    with tf.variable_scope("rnn_under_test"):
        outputs, state = tf.nn.dynamic_rnn(wrap(cell), tf.constant(X), dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run([outputs, state])


def test_variational_dropout_applies_one_mask_at_every_step():
    keep = 0.5
    plain_out, plain_state = _outputs_and_states(lambda c: c, tf.nn.rnn_cell.BasicLSTMCell(8))
    out, state = _outputs_and_states(lambda c: tf.nn.rnn_cell.DropoutWrapper(
        c, output_keep_prob=keep, variational_recurrent=True, dtype=tf.float32, seed=3),
        tf.nn.rnn_cell.BasicLSTMCell(8))
    # The same weights (the graph seed draws them alike) and no state dropout: the outputs are the
    # plain ones, each unit either zero at every step of every row or scaled by 1 / keep_prob
    # (up to rounding: the plain LSTM runs as one BlockLSTM, the wrapped one as a loop).
    np.testing.assert_allclose(state.c, plain_state.c, rtol=1e-6, atol=1e-6)
    kept = np.abs(out).sum(axis=(0, 1)) > 0
    assert 0 < kept.sum() < 8, "a mask of 8 units at keep 0.5 dropped none or all of them"
    np.testing.assert_allclose(out[:, :, kept], plain_out[:, :, kept] / keep, rtol=1e-5)
    np.testing.assert_array_equal(out[:, :, ~kept], 0.0)


def test_variational_state_dropout_keeps_the_cell_state_and_masks_h():
    from rnn_programs import X
    keep = 0.5
    wrapper = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicLSTMCell(6), state_keep_prob=keep,
                                            variational_recurrent=True, dtype=tf.float32, seed=11)
    state = wrapper.zero_state(3, tf.float32)
    _, (c, h) = wrapper.wrapped_cell(tf.constant(X[:, 0]), state, scope="cell")
    _, (dc, dh) = wrapper(tf.constant(X[:, 0]), state, scope="cell")  # the same cell, then its state's dropout
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        c, h, dc, dh = sess.run([c, h, dc, dh])
    np.testing.assert_array_equal(dc, c)
    kept = np.abs(dh).sum(axis=0) > 0
    assert 0 < kept.sum() < 6
    np.testing.assert_allclose(dh[:, kept], h[:, kept] / keep, rtol=1e-6)
    np.testing.assert_array_equal(dh[:, ~kept], 0.0)


def test_variational_dropout_errors_match_tensorflow():
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    with pytest.raises(ValueError, match="^When variational_recurrent=True, dtype must be provided$"):
        tf.nn.rnn_cell.DropoutWrapper(cell, variational_recurrent=True)
    with pytest.raises(ValueError, match="^When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, "
                                         "input_size must be provided$"):
        tf.nn.rnn_cell.DropoutWrapper(cell, variational_recurrent=True, dtype=tf.float32, input_keep_prob=0.5)


def test_variational_mask_seeds_are_salted_as_tensorflow_salts_them():
    wrapper = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicLSTMCell(3), variational_recurrent=True,
                                            dtype=tf.float32, seed=5)
    import hashlib
    assert wrapper._gen_seed("state", 1) == int(hashlib.md5(b"5state_1").hexdigest()[:8], 16) & 0x7FFFFFFF
    assert [int(n.shape[0]) for n in wrapper._state_noise] == [1, 1]


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
