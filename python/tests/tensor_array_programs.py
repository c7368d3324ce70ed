"""TensorArray programs built the same way on both sides (test_tensor_array.py here,
tf_side/tensor_array_cases.py in TensorFlow 1 with control flow v1). Each builder takes
(tf, tf1) and returns the tensors to fetch; ERRORS builders return one tensor or op whose
run fails, or raise while building (ValueError)."""
import numpy as np

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0 - 0.5
W = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [-0.6, 0.2, 0.7]], np.float32)


def basic(tf, tf1):
    ta = tf1.TensorArray(tf.float32, size=3)
    ta = ta.write(0, [1.0, 2.0]).write(2, [5.0, 6.0]).write(1, [3.0, 4.0])
    ints = tf1.TensorArray(tf.int32, size=2).write(1, 7).write(0, -3)
    kept = tf1.TensorArray(tf.float64, size=2, clear_after_read=False).write(0, 2.5).write(1, [-1.0][0])
    return [ta.stack(), ta.size(), ints.stack(), kept.read(1) + kept.read(1), kept.stack()]


def unstack_gather_concat_split(tf, tf1):
    x = tf.constant(X)
    un = tf1.TensorArray(tf.float32, size=4).unstack(x)
    gathered = un.gather([3, 1])
    sp = tf1.TensorArray(tf.float32, size=3, infer_shape=False).split(tf.reshape(x, [12]), [5, 3, 4])
    return [gathered, sp.concat()]


def dynamic(tf, tf1):
    ta = tf1.TensorArray(tf.float32, size=0, dynamic_size=True)
    ta = ta.write(3, 1.5).write(0, 2.5).write(1, -1.0).write(2, 4.0)
    return [ta.stack(), ta.size()]


def zero_size_with_shape(tf, tf1):
    return [tf1.TensorArray(tf.float32, size=0, element_shape=[2, 3]).stack()]


def unwritten_reads_zeros(tf, tf1):
    # With a known element shape, an element never written stacks as zeros.
    ta = tf1.TensorArray(tf.float32, size=3, element_shape=[2]).write(1, [1.0, 2.0])
    return [ta.stack()]


def no_clear_two_reads_gradient(tf, tf1):
    x = tf.constant(X)
    ta = tf1.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(x)
    y = tf.reduce_sum(ta.read(2) * ta.read(2)) + tf.reduce_sum(ta.read(0) * 3.0)
    return [y] + tf1.gradients(y, [x])


def gradients_outside_loops(tf, tf1):
    x = tf.constant(X)
    w = tf.constant(W)
    ta = tf1.TensorArray(tf.float32, size=4).unstack(tf.tanh(tf.matmul(x, w)))
    y = tf.reduce_sum(ta.gather([0, 2]) * 2.0) + tf.reduce_sum(ta.read(3))
    sp = tf1.TensorArray(tf.float32, size=2).split(tf.reshape(x, [12]) * 1.5, [6, 6])
    z = tf.reduce_sum(tf.sin(sp.concat())) + y
    return [z] + tf1.gradients(z, [x, w])


def rnn_loop(tf, tf1):
    """The common case: read step i of an unstacked input, write step i's output, stack after."""
    x = tf.constant(X)
    w = tf.constant(W)
    inputs = tf1.TensorArray(tf.float32, size=4).unstack(x)
    outputs = tf1.TensorArray(tf.float32, size=4)

    def body(i, h, out):
        h = tf.tanh(tf.reshape(tf.matmul(tf.reshape(h, [1, 3]), w), [3]) + inputs.read(i))
        return i + 1, h, out.write(i, h)

    _, h, outputs = tf1.while_loop(lambda i, h, o: i < 4, body, [tf.constant(0), tf.zeros([3]), outputs])
    stacked = outputs.stack()
    loss = tf.reduce_sum(stacked * stacked) + tf.reduce_sum(h)
    return [stacked, loss] + tf1.gradients(loss, [x, w])


def dynamic_loop(tf, tf1):
    """A dynamic_size array grown by a loop whose length depends on the data."""
    x = tf.constant(0.3)

    def body(v, ta):
        v = v * 1.7 + tf.sin(v)
        return v, ta.write(ta.size(), v)

    v, ta = tf1.while_loop(lambda v, ta: v < 20.0, body,
                           [x, tf1.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[])])
    stacked = ta.stack()
    loss = tf.reduce_sum(stacked * 0.5)
    return [stacked, ta.size(), loss] + tf1.gradients(loss, [x])


PROGRAMS = {f.__name__: f for f in (basic, unstack_gather_concat_split, dynamic, zero_size_with_shape,
                                     unwritten_reads_zeros, no_clear_two_reads_gradient, gradients_outside_loops,
                                     rnn_loop, dynamic_loop)}


def _ta(tf1, tf, size=3, **kw):
    return tf1.TensorArray(tf.float32, size=size, **kw)


ERRORS = {
    "read_unwritten": lambda tf, tf1: _ta(tf1, tf).read(1),
    "write_twice": lambda tf, tf1: _ta(tf1, tf).write(1, 1.0).write(1, 2.0).flow,
    "write_out_of_range": lambda tf, tf1: _ta(tf1, tf).write(5, 1.0).flow,
    "read_out_of_range": lambda tf, tf1: _ta(tf1, tf).write(0, 1.0).read(3),
    "read_negative": lambda tf, tf1: _ta(tf1, tf).write(0, 1.0).read(-1),
    "wrong_dtype": lambda tf, tf1: _ta(tf1, tf).write(0, tf.constant(1, tf.int32)).flow,
    "read_twice": lambda tf, tf1: (lambda t: t.read(0) + t.read(0))(_ta(tf1, tf).write(0, 1.0)),
    "stack_zero_unknown_shape": lambda tf, tf1: _ta(tf1, tf, size=0).stack(),
    "scatter_out_of_range": lambda tf, tf1: _ta(tf1, tf, size=2).scatter([0, 3], [1.0, 2.0]).flow,
    "split_bad_lengths": lambda tf, tf1: _ta(tf1, tf, size=2).split([1.0, 2.0, 3.0], [1, 1]).flow,
    "runtime_shape": lambda tf, tf1: _ta(tf1, tf).write(0, [1.0]).write(
        1, tf1.placeholder_with_default([1.0, 2.0], [None])).flow,
    "inconsistent_shapes": lambda tf, tf1: _ta(tf1, tf).write(0, [1.0, 2.0]).write(1, [1.0]).flow,
    "element_shape": lambda tf, tf1: _ta(tf1, tf, element_shape=[2]).write(0, [1.0]).flow,
}
