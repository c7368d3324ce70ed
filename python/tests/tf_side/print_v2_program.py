"""A TF1 graph program using tf.print and tf.strings.format, run by TensorFlow ("tf") or by
tensorweave ("tw"), for test_print_v2.py: it compares what each writes to stdout, to stderr
(between the markers), to the file given and the values and errors printed here.
    print_v2_program.py tf|tw OUT_FILE"""
import collections
import os
import sys

import numpy as np

if sys.argv[1] == "tf":
    import tensorflow as _tf
    tf = _tf.compat.v1
    tf.disable_eager_execution()
else:
    import tensorweave as tf

OUT_FILE = sys.argv[2]


def out(*items):
    """A line of ours on stdout, flushed so that it stays in order with the C++ writes."""
    sys.stdout.write(" ".join(str(i) for i in items) + "\n")
    sys.stdout.flush()


def run(sess, op, feed=None):
    sys.stdout.flush()
    sys.stderr.flush()
    sess.run(op, feed)


rng = np.random.default_rng(7)
Point = collections.namedtuple("Point", ["x", "y"])
# Tensors of every printable dtype and rank 0 to 4, short and long (elided), and empty.
values = [
    np.array(True), np.array([True, False, True]),
    np.array([-128, 0, 127], np.int8), np.array([0, 255], np.uint8), np.array([-3, 7], np.int16),
    np.array([65535], np.uint16), np.arange(12, dtype=np.int32).reshape(3, 4), np.array([2 ** 40, -5], np.int64),
    np.array([0.1, 1 / 3, 1e-5, 1e10, np.nan, -np.inf, -0.0, 1e-40, 100.5], np.float32),
    np.array([0.1, 1 / 3, 1e-5, 1e16, np.nan, np.inf, 123456789.0, 1.5e-300], np.float64),
    np.array([0.1, 1 / 3, 65504, 6e-8], np.float16),
    np.array([1 + 2j, 3j], np.complex64), np.array(1 - 1j, np.complex128),
    np.array(["a", "tab\tquote\"", "é", ""]), np.array([b"\xff\x00bin"]), np.array("scalar"),
    np.arange(1000).reshape(10, 10, 10), np.arange(24).reshape(2, 3, 4), np.arange(16).reshape(2, 2, 2, 2),
    np.arange(8).reshape(8, 1, 1), np.arange(12).reshape(1, 12), np.arange(7), np.arange(6),
    rng.standard_normal((7, 9)).astype(np.float32), rng.standard_normal((3, 20)),
    np.zeros([0], np.float32), np.zeros([2, 0]), np.zeros([0, 3], np.int32), np.zeros([2, 0, 3], np.int64),
    np.array(5), np.array(-2.5, np.float32),
]
with tf.Session() as sess:
    out("== tf.strings.format, summarize 3, 1, -1, 0")
    for i, v in enumerate(values):
        t = tf.constant(v)
        for summarize in (3, 1, -1, 0):
            out(i, summarize, repr(sess.run(tf.strings.format("<{}>", [t], summarize=summarize))))
    out(repr(sess.run(tf.strings.format("a{}b%s{}c", (tf.constant([1.5]), tf.constant("s"))))))
    out(repr(sess.run(tf.strings.format("a%sb", tf.constant([[1, 2]]), placeholder="%s", summarize=-1))))
    out(repr(sess.run(tf.strings.format("a{}b", [[1, 2]]))), repr(sess.run(tf.strings.format("no inputs", []))))
    fmt = tf.strings.format("x{}", [tf.constant(1)], name="fmt")
    out(fmt.name, fmt.op.type, sorted(fmt.op.node_def.attr))

    out("== tf.print to stdout")
    x = tf.constant([[1, 2, 3], [4, 5, 6]])
    var = tf.Variable([1.5, 2.0], name="var")
    ph = tf.placeholder(tf.float32, [None], name="ph")
    sess.run(tf.global_variables_initializer())
    prints = [
        tf.print("x:", x, output_stream=sys.stdout),
        tf.print("nested", {"b": x, "a": [x, "s", 3]}, (x,), [], {}, Point(x, 2), output_stream=sys.stdout),
        tf.print(collections.OrderedDict([("z", 1), ("y", x)]), output_stream=sys.stdout),
        tf.print("sep and end", x, "y", sep="|", end="<END>\n", output_stream=sys.stdout),
        tf.print("no newline", end="", output_stream=sys.stdout),
        tf.print("summarize", tf.range(10), tf.range(100), summarize=2, output_stream=sys.stdout),
        tf.print("all", tf.range(10), summarize=-1, output_stream=sys.stdout),
        tf.print("{} in the text", x, "{}9 too", output_stream=sys.stdout),
        tf.print("python values", np.array([1, 2]), 1.5, None, True, b"bytes", {"k": "v"}, output_stream=sys.stdout),
        tf.print(tf.constant("a scalar string alone, unquoted"), output_stream=sys.stdout),
        tf.print(tf.constant(["quoted", "vector"]), output_stream=sys.stdout),
        tf.print("variable", var, output_stream=sys.stdout),
        tf.print("fed", ph, output_stream=sys.stdout),
        tf.print(tf.SparseTensor([[0, 1], [2, 3]], [5.0, 6.5], [3, 4]), output_stream=sys.stdout),
        tf.print("long list", [tf.constant(1)] * 30, output_stream=sys.stdout),
        tf.print(output_stream=sys.stdout),
        tf.print("strings", tf.constant("s"), tf.constant([["a", "b"], ["c", "d"]]), output_stream=sys.stdout),
        tf.print("summarize None", tf.range(10), summarize=None, output_stream=sys.stdout),
    ]
    for op in prints:
        run(sess, op, {ph: [0.5, -1.0, 2.25]})
    out("")
    named = tf.print(x, name="named")
    out(named.type, named.name, named.inputs[0].op.name, len(named.outputs))
    out(repr(prints[7].inputs[0].op.get_attr("placeholder")), repr(prints[1].inputs[0].op.get_attr("template")))
    with tf.control_dependencies([tf.print("before the sum", output_stream=sys.stdout)]):
        total = tf.reduce_sum(x)
    sys.stdout.flush()
    out("sum", sess.run(total))

    out("== streams")
    os.write(2, b"<<BEGIN>>\n")
    for stream in (sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error, tf.logging.INFO,
                   tf.logging.WARN, tf.logging.ERROR, "file://" + OUT_FILE):
        op = tf.print("to", x, output_stream=stream, end="!\n")
        out(op.get_attr("output_stream").decode().replace(OUT_FILE, "OUT_FILE"))
        run(sess, op)
        run(sess, op)
    os.write(2, b"<<END>>\n")
    out(repr(open(OUT_FILE).read()))

    out("== errors")
    for call in (lambda: tf.print(x, output_stream="bogus"), lambda: tf.print(x, output_stream=sys.stdin),
                 lambda: tf.print(x, foo=1), lambda: tf.strings.format("{} {}", [x]),
                 lambda: tf.strings.format("{}", [x, x])):
        try:
            call()
            out("no error")
        except ValueError as e:
            out("ValueError", e)
    fed = tf.placeholder(tf.string, name="fed_string")
    bad = [(tf.raw_ops.PrintV2(input="a", output_stream="bogus"), None, "InvalidArgumentError",
            "Unknown output stream: bogus, Valid streams are: stdout stderr log(info) log(warning) log(error)"),
           (tf.raw_ops.PrintV2(input=fed), {fed: ["a", "b"]}, "InvalidArgumentError",
            "Input is expected to be scalar, but got [2]"),
           (tf.print("x", output_stream="file:///nonexistent/dir/f.txt"), None, "NotFoundError",
            "/nonexistent/dir/f.txt; No such file or directory")]
    for op, feed, kind, message in bad:
        try:
            sess.run(op, feed)
            out("no error")
        except tf.errors.OpError as e:
            out(type(e).__name__ == kind, message in e.message)
    for build in (lambda: tf.raw_ops.StringFormat(inputs=[x], template="{} {}", placeholder="{}"),
                  lambda: tf.raw_ops.PrintV2(input=["a", "b"])):
        try:
            build()
            out("no error")
        except (ValueError, tf.errors.InvalidArgumentError) as e:  # TensorFlow: ValueError
            out(str(e).split(" for '{{node")[0].split("): ")[-1])
