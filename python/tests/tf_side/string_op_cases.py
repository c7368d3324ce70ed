"""String-op cases shared by both sides (test_string_ops.py here, string_op_results.py in
TensorFlow): each builds a graph with the `tf` module it is given and returns (fetches, feed).
A case that fails at run time is recorded as ("error", exception type, the kernel's message)."""
import re

import numpy as np

UTF = "héllo wörld"


def _p(tf, dtype, value):
    """A placeholder of unknown shape: shape errors surface in the kernel on both sides."""
    p = tf.placeholder(dtype)
    return p, {p: value}


def _sparse(sp):
    return [sp.indices, sp.values, sp.dense_shape]


def cases():
    c = {}
    c["as_string_float"] = lambda tf: ([tf.as_string(tf.constant([1.5, -2.25, 1e10, 3.14159], tf.float32)),
                                        tf.as_string(tf.constant([1.5, 1e-7], tf.float64), precision=3),
                                        tf.as_string(tf.constant([1234.5678]), scientific=True),
                                        tf.as_string(tf.constant([1234.5678, 0.0001]), shortest=True),
                                        tf.as_string(tf.constant([2.5]), width=9, precision=2, fill=" ")], {})
    c["as_string_int"] = lambda tf: ([tf.as_string(tf.constant([3, -42, 0])), tf.as_string(tf.constant([3, 42]), width=5, fill="0"),
                                      tf.as_string(tf.constant([2 ** 40], tf.int64)), tf.as_string(tf.constant(np.array([7], np.uint8))),
                                      tf.as_string(tf.constant(np.array([-7], np.int8)), width=4, fill="-"),
                                      tf.as_string(tf.constant([[True, False]]))], {})
    c["as_string_bad_fill"] = lambda tf: (tf.as_string(tf.constant([1]), fill="x"), {})
    c["as_string_both_notations"] = lambda tf: (tf.as_string(tf.constant([1.0]), scientific=True, shortest=True), {})
    c["to_number"] = lambda tf: ([tf.string_to_number(["1.5", " 7 ", "-2e3", "inf"]),
                                  tf.strings.to_number([["12", "-3"]], out_type=tf.int32),
                                  tf.string_to_number(["9000000000"], out_type=tf.int64),
                                  tf.string_to_number(["0.1"], out_type=tf.float64)], {})
    c["to_number_bad"] = lambda tf: (tf.string_to_number(["1", "x1"]), {})
    c["to_number_int32_overflow"] = lambda tf: (tf.string_to_number(["9000000000"], out_type=tf.int32), {})
    c["to_number_float_for_int"] = lambda tf: (tf.string_to_number(["1.5"], out_type=tf.int64), {})
    c["length_strip_case"] = lambda tf: ([tf.strings.length(["ab", "", UTF]), tf.strings.length([UTF], unit="UTF8_CHAR"),
                                          tf.string_strip(["  a b \n", "\t", "x"]), tf.strings.strip("  y "),
                                          tf.strings.upper(["aBc", UTF]), tf.strings.lower([["QwE1"]])], {})
    c["substr"] = lambda tf: ([tf.substr(["hello", "world"], 1, 3), tf.substr(["hello"], -3, 2),
                               tf.substr(["ab", "cd"], 0, 10), tf.substr(["abc", "defg"], [0, 1], [1, 2]),
                               tf.strings.substr([UTF], 1, 4, unit="UTF8_CHAR"),
                               tf.substr(["hello"], tf.constant(5, tf.int64), tf.constant(2, tf.int64))], {})
    c["substr_out_of_range"] = lambda tf: (tf.substr(["abc"], 5, 1), {})
    c["regex_replace"] = lambda tf: ([tf.regex_replace(["aaa bab", "xyz"], "a+", "<\\0>"),
                                      tf.regex_replace(["aaa bab"], "a", "-", replace_global=False),
                                      tf.strings.regex_replace(["k1=v1;k2=v2"], "(\\w+)=(\\w+)", "\\2:\\1"),
                                      tf.regex_replace(["  trim  "], "^\\s+|\\s+$", "")], {})
    c["regex_bad_pattern"] = lambda tf: (tf.regex_replace(["a"], "(", "x"), {})
    c["regex_bad_rewrite"] = lambda tf: (tf.regex_replace(["a"], "a", "\\3"), {})
    c["string_split"] = lambda tf: (_sparse(tf.string_split(["a b  c", "d", ""])) +
                                    _sparse(tf.string_split(["a,b;;c"], delimiter=",;", skip_empty=False)) +
                                    _sparse(tf.string_split(["abc", "de"], delimiter="")), {})
    c["string_split_not_vector"] = lambda tf: ((lambda p: (_sparse(tf.string_split(p[0])), p[1]))(
        _p(tf, tf.string, [["a b"]])))
    c["strings_split"] = lambda tf: (_sparse(tf.strings.split(["a b  c", " d ", ""])) +
                                     _sparse(tf.strings.split(["a b  c d"], maxsplit=1)) +
                                     _sparse(tf.strings.split(["a<>b<><>c", "<>"], sep="<>")) +
                                     _sparse(tf.strings.split(["1,2,3"], sep=",", maxsplit=1)), {})
    c["decode_raw"] = lambda tf: ([tf.decode_raw(tf.constant([np.arange(3, dtype="<i4").tobytes(),
                                                              np.array([-1, 7, 9], "<i4").tobytes()]), tf.int32),
                                   tf.decode_raw(np.array([1.5, -2], "<f8").tobytes(), tf.float64),
                                   tf.decode_raw([b"\x01\x02\x03\x04"], tf.int16, little_endian=False),
                                   tf.decode_raw([[b"ab"], [b"cd"]], tf.uint8)], {})
    c["decode_raw_ragged"] = lambda tf: (tf.decode_raw([b"abcd", b"ab"], tf.int16), {})
    c["decode_raw_not_multiple"] = lambda tf: (tf.decode_raw([b"abc"], tf.float32), {})
    return c


def describe(value):
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    a = np.asarray(value)
    if a.dtype.kind in "f":
        return ["ndarray", str(a.dtype), list(a.shape), [repr(float(x)) for x in a.ravel()]]
    return ["ndarray", str(a.dtype), list(a.shape), a.tolist()]


def message(error):
    """The kernel's own words: TensorFlow wraps them in 'Graph execution error' lines and a
    trailing '[[{{node ...}}]]', tensorweave prefixes "node 'NAME' (OP): "."""
    text = getattr(error, "message", None) or str(error)  # TF: str() adds a traceback
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.startswith("\t")]
    return re.sub(r"^node '[^']*' \([^)]*\): ", "", lines[-1])


def run_all(tf, session_factory):
    """{case name: described result or ("error", type, message's first line)}."""
    results = {}
    for name, case in cases().items():
        g = tf.Graph()
        with g.as_default():
            try:
                fetches, feed = case(tf)
            except Exception as e:  # noqa: BLE001 - recorded, so one case cannot hide the others
                results[name] = ["build error", type(e).__name__, str(e)]
                continue
            with session_factory(g) as sess:
                try:
                    results[name] = describe(sess.run(fetches, feed))
                except Exception as e:  # noqa: BLE001 - the error itself is the result compared
                    results[name] = ["error", type(e).__name__, message(e)]
    return results
