"""tensorweave's side of bench/lstm_training.sh: issue 18's LSTM training step (batch 32,
50 time steps, 128 inputs, 256 hidden units, BasicLSTMCell through tf.nn.dynamic_rnn, a
dense layer on the last output, softmax cross-entropy over 10 classes, Adam 1e-3) through
tf.Session with intra- and inter-op pools of THREADS threads. CELL is "basic" (BasicLSTMCell
through tf.nn.dynamic_rnn: a while loop, a few dozen ops per step) or "fused"
(tf.contrib.rnn.LSTMBlockFusedCell: TF1's fast LSTM, one BlockLSTM op for the sequence, on
time-major inputs). Prints the median step time; RESULT ms_per_step=...
Usage: lstm_training.py THREADS STEPS [basic|fused]"""
import os
import sys
import time

import numpy as np

import tensorweave as tf

clock = time.process_time if os.environ.get("TW_BENCH_CLOCK") == "cpu" else time.perf_counter
threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
cell = sys.argv[3] if len(sys.argv) > 3 else "basic"
if cell == "loop":
    os.environ["TW_FUSED_DYNAMIC_RNN"] = "0"
BATCH, TIME, INPUTS, HIDDEN, CLASSES = 32, 50, 128, 256, 10
rng = np.random.default_rng(5)
data = rng.standard_normal((BATCH, TIME, INPUTS)).astype(np.float32)
labels = np.arange(BATCH) % CLASSES

x = tf.placeholder(tf.float32, [BATCH, TIME, INPUTS])
y = tf.placeholder(tf.int64, [BATCH])
if cell == "fused":
    outputs, _ = tf.contrib.rnn.LSTMBlockFusedCell(HIDDEN)(tf.transpose(x, [1, 0, 2]), dtype=tf.float32)
    last = outputs[-1]
else:
    outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(HIDDEN), x, dtype=tf.float32)
    last = outputs[:, -1]
logits = tf.layers.dense(last, CLASSES)
loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
train = tf.train.AdamOptimizer(1e-3).minimize(loss)

config = tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    feed = {x: data, y: labels}
    for _ in range(3):  # warm-up
        sess.run(train, feed)
    times = []
    for _ in range(steps):
        start = clock()
        sess.run(train, feed)
        times.append((clock() - start) * 1000)
    final = sess.run(loss, feed)
median = float(np.median(times))
print(f"tensorweave LSTM ({cell}) {TIME} steps x batch {BATCH}, {INPUTS} -> {HIDDEN}, Adam, {threads} thread(s): "
      f"{median:.2f} ms/step median, loss {final:.4f}", flush=True)
print(f"RESULT ms_per_step={median:.3f} cell={cell}")
