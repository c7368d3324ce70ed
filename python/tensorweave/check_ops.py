"""tf.Assert, the tf.assert_* family, tf.check_numerics and tf.verify_tensor_all_finite, built
as TensorFlow 1 builds them in a graph: the same data (hence the same messages:
"assertion failed: [message] [Condition x > 0 did not hold element-wise:] [x (x:0) = ] [1 -2 3]"),
an Assert op on reduce_all of the test, and an immediate InvalidArgumentError when both sides
are Python or NumPy values known while building."""
import numpy as np

from tensorweave import dtypes, errors, gen_ops
from tensorweave.array_ops import constant
from tensorweave.framework import _op, _op_output, convert_to_tensor, name_scope
from tensorweave.math_ops import equal, greater, greater_equal, less, less_equal, not_equal
from tensorweave.math_reduce_ops import reduce_all


def _is_tensor_like(v):
    return hasattr(v, "op") or hasattr(v, "_as_graph_element")


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TensorFlow's name
    """An op that fails with InvalidArgumentError, the data summarized, when condition is False."""
    with name_scope(name or "Assert"):
        xs = [convert_to_tensor(x) for x in data]
        attrs = {} if summarize is None else {"summarize": int(summarize)}
        return _op("Assert", [convert_to_tensor(condition, dtype=dtypes.bool)] + xs, attrs, name="Assert")


def _message_prefix(message):
    return "%s.  " % message if message else ""


def _to_tensor(v, name, known, dtype=None):
    """v as a tensor; a Python or NumPy value is also recorded in `known` (name -> value),
    as TensorFlow's constant_value would find it."""
    if _is_tensor_like(v):
        return convert_to_tensor(v)
    t = convert_to_tensor(v, name=name, dtype=dtype)
    known[t.name] = np.asarray(v)
    return t


def _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name, known=None):
    known = dict(known or {})
    with name_scope(name or opname):
        x = _to_tensor(x, "x", known)
        y = _to_tensor(y, "y", known, dtype=x.dtype)
        if data is None:
            data = ["Condition x %s y did not hold element-wise:" % sym, "x (%s) = " % x.name, x,
                    "y (%s) = " % y.name, y]
        if message is not None:
            data = [message] + list(data)
        condition = reduce_all(op_func(x, y))
        if x.name in known and y.name in known and not np.all(static_func(known[x.name], known[y.name])):
            # As TensorFlow: when both sides are known while building, the failure is immediate.
            raise errors.InvalidArgumentError(message="\n".join(
                str(known.get(d.name, d)) if _is_tensor_like(d) else str(d) for d in data))
        return Assert(condition, data, summarize=summarize)


def _binary(sym, opname, op_func, static_func):
    def fn(x, y, data=None, summarize=None, message=None, name=None):
        return _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name)
    fn.__name__ = opname
    fn.__doc__ = "Asserts x %s y element-wise: an Assert op, or InvalidArgumentError now if known now." % sym
    return fn


assert_equal = _binary("==", "assert_equal", equal, np.equal)
assert_none_equal = _binary("!=", "assert_none_equal", not_equal, np.not_equal)
assert_less = _binary("<", "assert_less", less, np.less)
assert_less_equal = _binary("<=", "assert_less_equal", less_equal, np.less_equal)
assert_greater = _binary(">", "assert_greater", greater, np.greater)
assert_greater_equal = _binary(">=", "assert_greater_equal", greater_equal, np.greater_equal)


def _sign_assert(opname, condition_text, sym, op_func, static_func, zero_first):
    """assert_positive and its kin: 0 < x (or x < 0, ...) through the binary assert, with data
    naming the condition as TensorFlow's do."""
    def fn(x, data=None, summarize=None, message=None, name=None):
        message = _message_prefix(message)
        known = {}
        with name_scope(name or opname):
            x = _to_tensor(x, "x", known)
            if data is None:
                data = [message, "Condition %s did not hold element-wise:" % condition_text, "x (%s) = " % x.name, x]
                if opname == "assert_non_positive":  # TensorFlow's lacks a comma: two items run together
                    data = [data[0], data[1] + data[2], x]
            zero = constant(0, dtype=x.dtype)
            known[zero.name] = np.zeros((), x.dtype.as_numpy_dtype)
            a, b = (zero, x) if zero_first else (x, zero)
            inner = "assert_less" if sym == "<" else "assert_less_equal"
            return _binary_assert(sym, inner, op_func, static_func, a, b, data, summarize, None, None, known)
    fn.__name__ = opname
    return fn


assert_positive = _sign_assert("assert_positive", "x > 0", "<", less, np.less, True)
assert_negative = _sign_assert("assert_negative", "x < 0", "<", less, np.less, False)
assert_non_negative = _sign_assert("assert_non_negative", "x >= 0", "<=", less_equal, np.less_equal, True)
assert_non_positive = _sign_assert("assert_non_positive", "x <= 0", "<=", less_equal, np.less_equal, False)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802 - TF's name
    """input_ passed through; running it writes message and the data, summarized, to stderr."""
    attrs = {"message": message or ""}
    if first_n is not None:
        attrs["first_n"] = int(first_n)
    if summarize is not None:
        attrs["summarize"] = int(summarize)
    return _op_output("Print", [convert_to_tensor(input_)] + [convert_to_tensor(d) for d in data], attrs,
                      name or "Print")


check_numerics = gen_ops.check_numerics  # generated from the registry (tools/op_gen)


def verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """check_numerics under the scope "VerifyFinite", with TF1's and TF2's argument names."""
    t = x if t is None else t
    msg = message if msg is None else msg
    with name_scope(name or "VerifyFinite"):
        return check_numerics(convert_to_tensor(t), message=msg)


def add_check_numerics_ops():
    """A CheckNumerics on every float output of the default graph, chained one after another
    (TensorFlow 1's order: ops as they were added), and an op grouping the last: running it
    fails the step naming the first tensor that holds NaN or infinity. Graphs with control
    flow are refused, as TensorFlow does."""
    from tensorweave import array_ops, dtypes
    from tensorweave.framework import control_dependencies, get_default_graph
    floats = (dtypes.float16, dtypes.float32, dtypes.float64)
    check = []
    for op in get_default_graph().get_operations():
        for output in op.outputs:
            if output.dtype not in floats:
                continue
            if op.type in ("Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"):
                raise ValueError("`tf.add_check_numerics_ops() is not compatible with TensorFlow control flow "
                                 "operations such as `tf.cond()` or `tf.while_loop()`.")
            with control_dependencies(check):
                check = [check_numerics(output, message="%s:%d" % (op.name, output.value_index))]
    return array_ops.group(*check)
