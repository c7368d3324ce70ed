"""RNN programs built the same way on both sides (test_rnn.py here, tf_side/rnn_cases.py in
TensorFlow 1 with control flow v1): every trainable variable gets the same values (drawn
from its name), then outputs, final states and gradients are fetched. Each builder takes
(tf, tf1) and returns the fetches; `variables(tf1)` lists names and shapes."""
import zlib

import numpy as np

B, T, D = 3, 5, 4
X = (np.random.default_rng(18).standard_normal((B, T, D)) * 0.8).astype(np.float32)
LENGTHS = np.array([5, 2, 0], np.int32)


def _loss_and_grads(tf, tf1, outputs, state, x):
    flat = tf1.nest.flatten(state) if hasattr(tf1, "nest") else _flatten(state)
    loss = tf.reduce_sum(tf.sin(outputs)) + tf.add_n([tf.reduce_sum(s * s) for s in flat])
    return [outputs] + list(flat) + [loss] + tf1.gradients(loss, [x] + sorted(tf1.trainable_variables(),
                                                                          key=lambda v: v.name))


def _flatten(s):
    if isinstance(s, (tuple, list)):
        return [leaf for item in s for leaf in _flatten(item)]
    return [s]


def _dynamic(make_cell, time_major=False, lengths=True):
    def build(tf, tf1):
        x = tf.constant(X)
        inputs = tf.transpose(x, [1, 0, 2]) if time_major else x
        outputs, state = tf1.nn.dynamic_rnn(make_cell(tf1), inputs, sequence_length=tf.constant(LENGTHS) if lengths
                                            else None, dtype=tf.float32, time_major=time_major)
        return _loss_and_grads(tf, tf1, outputs, state, x)
    return build


def _static(tf, tf1):
    x = tf.constant(X)
    outputs, state = tf1.nn.static_rnn(tf1.nn.rnn_cell.GRUCell(3), tf.unstack(x, axis=1), dtype=tf.float32,
                                       sequence_length=tf.constant(LENGTHS))
    return _loss_and_grads(tf, tf1, tf.stack(outputs, 1), state, x)


def _bidirectional(tf, tf1):
    x = tf.constant(X)
    (fw, bw), (s_fw, s_bw) = tf1.nn.bidirectional_dynamic_rnn(
        tf1.nn.rnn_cell.BasicLSTMCell(3), tf1.nn.rnn_cell.GRUCell(2), x, sequence_length=tf.constant(LENGTHS),
        dtype=tf.float32)
    return _loss_and_grads(tf, tf1, tf.concat([fw, bw], 2), (s_fw, s_bw), x)


PROGRAMS = {
    "basic_rnn": _dynamic(lambda tf1: tf1.nn.rnn_cell.BasicRNNCell(6)),
    "basic_lstm": _dynamic(lambda tf1: tf1.nn.rnn_cell.BasicLSTMCell(6)),
    "basic_lstm_no_lengths": _dynamic(lambda tf1: tf1.nn.rnn_cell.BasicLSTMCell(6), lengths=False),
    "lstm_projection_time_major": _dynamic(lambda tf1: tf1.nn.rnn_cell.LSTMCell(5, num_proj=3, cell_clip=0.8),
                                           time_major=True),
    "lstm_peepholes_projection": _dynamic(lambda tf1: tf1.nn.rnn_cell.LSTMCell(
        5, use_peepholes=True, num_proj=3, cell_clip=0.8, proj_clip=0.4)),
    "lstm_peepholes_concat_state": _dynamic(lambda tf1: tf1.nn.rnn_cell.LSTMCell(
        4, use_peepholes=True, state_is_tuple=False), time_major=True),
    "gru": _dynamic(lambda tf1: tf1.nn.rnn_cell.GRUCell(4)),
    "multi_lstm_dropout": _dynamic(lambda tf1: tf1.nn.rnn_cell.MultiRNNCell(
        [tf1.nn.rnn_cell.DropoutWrapper(tf1.nn.rnn_cell.BasicLSTMCell(4), output_keep_prob=1.0),
         tf1.nn.rnn_cell.LSTMCell(3)])),
    "static_gru": _static,
    "bidirectional": _bidirectional,
}


def variables(tf1):
    return [(v.name, [int(d) for d in v.shape]) for v in sorted(tf1.trainable_variables(), key=lambda v: v.name)]


def assign_ops(tf1):
    """Each trainable variable set to values drawn from its name (both sides draw the same)."""
    ops = []
    for v in tf1.trainable_variables():
        rng = np.random.default_rng(zlib.crc32(v.name.encode()))
        ops.append(v.assign(rng.uniform(-0.6, 0.6, [int(d) for d in v.shape]).astype(np.float32)))
    return ops
