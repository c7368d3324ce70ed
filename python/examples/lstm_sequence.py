"""An LSTM classifier of variable-length sequences: tf.nn.dynamic_rnn with sequence_length
over a BasicLSTMCell, the final state's h into a dense layer, trained with Adam.

The data are synthetic: each sequence is 4 to 20 one-hot symbols out of 4, its label the
symbol that occurs most often in it (ties go to the lowest symbol); every batch is padded
to 20 steps with random symbols, so a model that ignored sequence_length would count the
padding too. Prints the loss every 100 steps and the held-out accuracy (1,000 sequences),
and exits 1 below --target.
    /usr/bin/python3 lstm_sequence.py [--steps 400] [--units 32] [--target 0.9] [--seed 0]"""
import argparse
import sys

import numpy as np

import tensorweave as tf

SYMBOLS, MAX_LEN = 4, 20


def make_data(rng, n):
    lengths = rng.integers(4, MAX_LEN + 1, n)
    symbols = rng.integers(0, SYMBOLS, (n, MAX_LEN))  # Past a sequence's length: padding.
    labels = np.array([np.bincount(s[:k], minlength=SYMBOLS).argmax() for s, k in zip(symbols, lengths)])
    return np.eye(SYMBOLS, dtype=np.float32)[symbols], lengths.astype(np.int32), labels.astype(np.int32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--units", type=int, default=32)
    parser.add_argument("--target", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    train_x, train_len, train_y = make_data(rng, 5000)
    test_x, test_len, test_y = make_data(rng, 1000)

    x = tf.placeholder(tf.float32, [None, MAX_LEN, SYMBOLS], name="x")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    y = tf.placeholder(tf.int32, [None], name="y")
    tf.set_random_seed(args.seed)
    cell = tf.nn.rnn_cell.BasicLSTMCell(args.units)
    _, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
    logits = tf.layers.dense(state.h, SYMBOLS)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train_op = tf.train.AdamOptimizer(1e-2).minimize(loss)
    correct = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y), tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(1, args.steps + 1):
            batch = rng.integers(0, len(train_x), 64)
            value, _ = sess.run([loss, train_op], {x: train_x[batch], lengths: train_len[batch], y: train_y[batch]})
            if step % 100 == 0 or step == 1:
                print("step %d  loss %.4f" % (step, value))
        held_out = sess.run(correct, {x: test_x, lengths: test_len, y: test_y})
    print("held-out accuracy %.4f" % held_out)
    return 0 if held_out >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
