"""String-tensor cases shared by both sides: each builds a graph with the `tf` module it is
given (tensorweave, or TensorFlow's tf.compat.v1) and returns (fetches, feed_dict).
test_strings.py runs them here, string_results.py runs them in TensorFlow; the results
(values, Python types, NumPy dtypes) must be the same."""
import numpy as np

LONG = "é" * 40  # Non-ASCII, and longer than any small-string buffer.


def _fed(tf, value, shape=None):
    p = tf.placeholder(tf.string, shape=shape)
    return p, {p: value}


def cases():
    def scalar_bytes(tf):
        p, feed = _fed(tf, b"\x00bytes\xff")
        return tf.identity(p), feed

    # TensorFlow hands a fetched feed back as given (str stays str), so these fetch the
    # value through an op, as any computed string comes back: bytes. (A known difference:
    # tensorweave returns a fetched feed as bytes too.)
    def scalar_str(tf):
        p, feed = _fed(tf, LONG, shape=[])
        return tf.identity(p), feed

    def list_mixed(tf):
        p, feed = _fed(tf, [b"a", "b", LONG], shape=[3])
        return tf.identity(p), feed

    def numpy_object(tf):
        p, feed = _fed(tf, np.array([[b"x", "y"], [b"", LONG]], dtype=object))
        return tf.identity(p), feed

    def numpy_bytes_(tf):
        p, feed = _fed(tf, np.array([b"ab", b"c", b"trailing\x00"]))
        return p, feed

    def numpy_str_(tf):
        p, feed = _fed(tf, np.array(["ab", LONG]))
        return tf.identity(p), feed

    def constants(tf):
        return [tf.constant("abc"), tf.constant([b"a", b"b"]), tf.constant([["p", LONG]]),
                tf.constant("x", shape=[2, 2]), tf.constant(np.array([b"n"]))], {}

    def moving_ops(tf):
        x = tf.constant([["a", "b", LONG], ["d", "e", "f"]])
        p, feed = _fed(tf, [b"p", b"q"], shape=[2])
        return [tf.reshape(x, [3, 2]), tf.expand_dims(p, 0), tf.squeeze(tf.constant([["s"]])),
                tf.concat([x, tf.reshape(p, [2, 1])], 1), tf.stack([p, p], axis=1), tf.unstack(x, axis=1)[2],
                tf.gather(x, [1, 0, 1]), tf.gather(x, [2], axis=1), tf.slice(x, [0, 1], [2, 2]), x[:, ::-2],
                tf.transpose(x), tf.tile(p, [3]), tf.fill([2, 3], "f"), tf.size(x), tf.shape(x), tf.rank(x)], feed

    def equality(tf):
        x = tf.constant(["a", LONG, ""])
        p, feed = _fed(tf, ["a", LONG, "z"])
        return [tf.equal(x, p), tf.not_equal(x, p), tf.equal(x, "a")], feed

    def string_join(tf):
        p, feed = _fed(tf, ["1", LONG])
        return [tf.strings.join([p, "x", tf.constant(["a", "b"])], separator="-"),
                tf.strings.join(["q", "r"])], feed

    def boolean_mask_and_where(tf):
        names = tf.constant(["a", "b", "c", "d"])
        mask = tf.constant([True, False, True, False])
        return [tf.boolean_mask(names, mask), tf.where(mask), tf.where(tf.constant([[True, False], [False, True]]))], {}

    def select(tf):
        c = tf.constant([True, False, True])
        p, feed = _fed(tf, ["x", LONG, "z"], shape=[3])
        rows = tf.constant([[b"a", b"b"], [b"c", LONG.encode()]])
        return [tf.where(c, p, tf.constant(["1", "2", "3"])),
                tf.where(tf.constant([False, True]), rows, tf.fill([2, 2], "-"))], feed

    def report_uninitialized(tf):
        a = tf.Variable(1.0, name="a")
        b = tf.Variable([1, 2], name="scope/b")
        tf.Variable(3.0, name="c")
        init_b = b.initializer
        return [tf.report_uninitialized_variables(), tf.report_uninitialized_variables([a, b]),
                tf.report_uninitialized_variables([])], {}, [init_b]

    return [scalar_bytes, scalar_str, list_mixed, numpy_object, numpy_bytes_, numpy_str_, constants, moving_ops,
            equality, string_join, boolean_mask_and_where, select, report_uninitialized]


def describe(value):
    """A comparable, printable summary of a fetched value: its type, dtype and contents."""
    if isinstance(value, list):
        return [describe(v) for v in value]
    if isinstance(value, np.ndarray):
        return ["ndarray", str(value.dtype), list(value.shape), value.tolist()]
    if isinstance(value, np.generic):
        return [type(value).__name__, value.item()]
    return [type(value).__name__, value]


def canonical(value):
    """What a checkpoint holds, whatever container a reader returns it in: strings as
    object arrays of bytes (a scalar as a 0-d array)."""
    a = np.asarray(value)
    if a.dtype.kind in "SUO":
        a = a.astype(object)
    return [a.dtype.str, list(a.shape), a.tolist()]


def run_all(tf, session_factory):
    """{case name: describe(fetched)} running each case in a fresh graph."""
    results = {}
    for case in cases():
        g = tf.Graph()
        with g.as_default():
            built = case(tf)
            fetches, feed = built[0], built[1]
            pre = built[2] if len(built) > 2 else []
            with session_factory(g) as sess:
                for op in pre:
                    sess.run(op)
                results[case.__name__] = describe(sess.run(fetches, feed))
    return results


# Checkpoint values with strings (test_tf_checkpoints.py, string_checkpoint.py): names ->
# NumPy values, the strings as object arrays of bytes (what a Session fetches).
def checkpoint_values():
    return {
        "vocab": np.array([b"", b"\x00\xff", LONG.encode("utf-8"), b"x" * 300], dtype=object),
        "scope/name": np.array(b"only one", dtype=object),
        "grid": np.array([[b"a", b"b"], [b"c", b"d"]], dtype=object),
        "weights": np.array([1.5, -2.0], np.float32),
    }
