"""dynamic_rnn over an LSTM runs as one BlockLSTM (rnn.py): the same outputs, final states,
gradients (inputs, initial state, every variable) and variable names as the while loop it
replaces (TW_FUSED_DYNAMIC_RNN=0), for both LSTM cells, peepholes, stacked layers,
sequence lengths (0 and full included), time-major inputs and fed batch sizes."""
import numpy as np
import pytest

import tensorweave as tf

X = np.random.default_rng(5).standard_normal((3, 6, 4)).astype(np.float32)  # [batch, time, input]
LENGTHS = np.array([6, 0, 3], np.int32)


def run(fused, make_cell, monkeypatch, lengths=None, time_major=False, initial=False):
    monkeypatch.setenv("TW_FUSED_DYNAMIC_RNN", "1" if fused else "0")
    with tf.Graph().as_default() as g:
        tf.set_random_seed(7)
        x = tf.placeholder(tf.float32, [None, 6, 4])
        inputs = tf.transpose(x, [1, 0, 2]) if time_major else x
        cell = make_cell()
        state = None
        if initial:
            def start(size):
                return tf.nn.rnn_cell.LSTMStateTuple(tf.fill([tf.shape(x)[0], size.c], 0.3),
                                                     tf.fill([tf.shape(x)[0], size.h], -0.2))
            sizes = cell.state_size
            state = start(sizes) if hasattr(sizes, "c") else tuple(start(s) for s in sizes)
        out, final = tf.nn.dynamic_rnn(cell, inputs, sequence_length=lengths, initial_state=state,
                                       dtype=tf.float32, time_major=time_major)
        layers = final if isinstance(final, tuple) and not hasattr(final, "c") else (final,)
        loss = tf.reduce_sum(out * out) + sum(tf.reduce_sum(tf.sin(s.c)) + tf.reduce_sum(s.h) for s in layers)
        variables = tf.trainable_variables()
        grads = tf.gradients(loss, [x] + variables)
        uses_loop = any(op.type == "Enter" for op in g.get_operations())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([out] + [t for s in layers for t in s] + grads, {x: X})
    return [v.name for v in variables], values, uses_loop


CELLS = {
    "basic": lambda: tf.nn.rnn_cell.BasicLSTMCell(5, forget_bias=0.5),
    "lstm": lambda: tf.nn.rnn_cell.LSTMCell(5),
    "peepholes": lambda: tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True),
    "stacked": lambda: tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(5),
                                                    tf.nn.rnn_cell.LSTMCell(3, use_peepholes=True)]),
}


@pytest.mark.parametrize("cell", sorted(CELLS))
@pytest.mark.parametrize("lengths,time_major,initial", [(None, False, False), (LENGTHS, False, True),
                                                        (LENGTHS, True, False)])
def test_fused_lstm_matches_the_loop(cell, lengths, time_major, initial, monkeypatch):
    names, fused, fused_loop = run(True, CELLS[cell], monkeypatch, lengths, time_major, initial)
    loop_names, loop, loop_loop = run(False, CELLS[cell], monkeypatch, lengths, time_major, initial)
    assert not fused_loop and loop_loop  # the fast path really took the place of the loop
    assert names == loop_names  # checkpoints line up
    for a, b in zip(fused, loop):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    if lengths is not None:
        out = fused[0] if not time_major else fused[0].transpose(1, 0, 2)
        np.testing.assert_array_equal(out[1], 0.0)  # a sequence of length 0 outputs zeros
        np.testing.assert_array_equal(out[2, 3:], 0.0)


def test_cells_the_block_cannot_run_keep_the_loop(monkeypatch):
    monkeypatch.delenv("TW_FUSED_DYNAMIC_RNN", raising=False)
    for make in (lambda: tf.nn.rnn_cell.LSTMCell(5, num_proj=3), lambda: tf.nn.rnn_cell.LSTMCell(5, cell_clip=0.4),
                 lambda: tf.nn.rnn_cell.GRUCell(5),
                 lambda: tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(5), tf.nn.rnn_cell.GRUCell(5)]),
                 lambda: tf.nn.rnn_cell.BasicLSTMCell(5, activation=tf.nn.relu)):
        with tf.Graph().as_default() as g:
            tf.nn.dynamic_rnn(make(), tf.constant(X), dtype=tf.float32)
            assert any(op.type == "Enter" for op in g.get_operations())
