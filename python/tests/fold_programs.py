"""foldl/foldr/scan/map_fn programs built the same way on both sides (`tf` is tensorweave or TF's
tf.compat.v1): values and gradients with respect to elems and initializer."""
import numpy as np

ELEMS = np.array([[0.5, -1.25], [2.0, 0.75], [-0.3, 1.5], [1.1, -0.4]])
INIT = np.array([0.2, -0.7])


def build(tf):
    elems = tf.constant(ELEMS, dtype=tf.float64)
    init = tf.constant(INIT, dtype=tf.float64)
    step = lambda acc, x: acc * x + tf.sin(acc)  # noqa: E731 - order-sensitive, so foldl != foldr
    pair = lambda acc, x: (acc[0] + x[0] * acc[1], acc[1] * x[1])  # noqa: E731 - nested elems and accumulator
    outs = [tf.foldl(step, elems, initializer=init), tf.foldr(step, elems, initializer=init),
            tf.foldl(step, elems), tf.foldr(step, elems)]
    nested = tf.foldl(pair, (elems[:, 0], elems[:, 1]), initializer=(init[0], init[1]))
    outs += list(nested)
    outs += [tf.scan(step, elems, initializer=init), tf.scan(step, elems, initializer=init, reverse=True),
             tf.scan(step, elems), tf.scan(step, elems, reverse=True)]
    outs += list(tf.scan(pair, (elems[:, 0], elems[:, 1]), initializer=(init[0], init[1])))
    outs.append(tf.map_fn(lambda x: tf.sin(x) * x, elems))
    outs += list(tf.map_fn(lambda x: (x[0] * x[1], tf.stack([x[0], x[1], x[0]])), (elems[:, 0], elems[:, 1]),
                           dtype=(tf.float64, tf.float64)))
    loss = tf.add_n([tf.reduce_sum(o * o) for o in outs])
    grads = tf.gradients(loss, [elems, init])
    return outs + [loss] + grads


def build_empty(tf):
    """map_fn and scan over a fed number of rows (0 included): values, static shapes, gradients."""
    rows = tf.placeholder(tf.float64, [None, 2], name="rows")
    mapped = tf.map_fn(lambda x: tf.stack([x[0] * x[1], tf.sin(x[0]), x[1]]), rows)
    pairs = tf.map_fn(lambda x: (x[0] * 2.0, tf.cast(x[1] > 0, tf.int32)), (rows[:, 0], rows[:, 1]),
                      dtype=(tf.float64, tf.int32))
    scanned = tf.scan(lambda acc, x: acc * 0.5 + x, rows, initializer=tf.constant([1.0, -1.0], tf.float64))
    loss = tf.reduce_sum(mapped) + tf.reduce_sum(scanned * scanned) + tf.reduce_sum(pairs[0])
    return rows, [mapped, pairs[0], pairs[1], scanned, loss] + tf.gradients(loss, [rows])


EMPTY_FEEDS = {"0": np.zeros([0, 2]), "1": ELEMS[:1], "4": ELEMS}
