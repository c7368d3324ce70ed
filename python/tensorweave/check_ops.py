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


def _static_int(t):
    """The value of t when it is a Python / NumPy value or a Const, else None."""
    if not _is_tensor_like(t):
        return np.asarray(t)
    op = getattr(t, "op", None)
    if op is not None and op.type == "Const":
        return np.asarray(op.get_attr("value"))
    return None


def _assert_rank_condition(opname, x, rank, data, summarize, message, name, static_ok, dynamic, wording):
    from tensorweave import array_ops
    with name_scope(name or opname):
        x = convert_to_tensor(x, name="x")
        rank_value = _static_int(rank)
        rank = convert_to_tensor(rank, name="rank", dtype=dtypes.int32)
        if rank.dtype != dtypes.int32:
            raise TypeError("rank must be of type tf.int32; got %s" % rank.dtype.name)
        if data is None:
            data = [message or "", "Tensor %s must have rank%s" % (x.name, wording), rank, "Received shape: ",
                    array_ops.shape(x)]
        if rank_value is not None:
            if rank_value.ndim != 0:
                raise ValueError("Rank must be a scalar.")
            if x.shape.ndims is not None:
                if not static_ok(x.shape.ndims, int(rank_value)):
                    raise ValueError("%s.  Tensor %s must have rank%s %d.  Received rank %d, shape %s"
                                     % (message or "", x.name, wording, int(rank_value), x.shape.ndims, x.shape))
                return array_ops.no_op(name="static_checks_determined_all_ok")
        return Assert(dynamic(array_ops.rank(x), rank), data, summarize=summarize)


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Asserts x has rank `rank`: ValueError now when both are known, else an Assert op."""
    return _assert_rank_condition("assert_rank", x, rank, data, summarize, message, name, lambda a, b: a == b,
                                  equal, "")


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Asserts x has rank `rank` or more: ValueError now when both are known, else an Assert op."""
    return _assert_rank_condition("assert_rank_at_least", x, rank, data, summarize, message, name,
                                  lambda a, b: a >= b, greater_equal, " at least")


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """Asserts x's rank is one of `ranks` (static check when x's rank is known)."""
    from tensorweave import array_ops
    from tensorweave.math_reduce_ops import reduce_any
    with name_scope(name or "assert_rank_in"):
        x = convert_to_tensor(x, name="x")
        values = [_static_int(r) for r in ranks]
        if x.shape.ndims is not None and all(v is not None for v in values):
            if x.shape.ndims not in [int(v) for v in values]:
                raise ValueError("%s.  Tensor %s must have rank in %s.  Received rank %d, shape %s"
                                 % (message or "", x.name, tuple(int(v) for v in values), x.shape.ndims, x.shape))
            return array_ops.no_op(name="static_checks_determined_all_ok")
        ranks_t = array_ops.stack([convert_to_tensor(r, dtype=dtypes.int32) for r in ranks])
        if data is None:
            data = [message or "", "Tensor %s must have rank in" % x.name, ranks_t, "Received shape: ",
                    array_ops.shape(x)]
        return Assert(reduce_any(equal(array_ops.rank(x), ranks_t)), data, summarize=summarize)


def assert_scalar(tensor, name=None, message=None):
    """The tensor itself when its static shape is a scalar; ValueError otherwise."""
    with name_scope(name or "assert_scalar"):
        tensor = convert_to_tensor(tensor)
        if tensor.shape.ndims != 0:
            raise ValueError("%sExpected scalar shape for %s, saw shape: %s."
                             % (_message_prefix(message), tensor.name, tensor.shape))
        return tensor


def assert_type(tensor, tf_type, message=None, name=None):
    """A no-op when tensor has dtype tf_type; TypeError otherwise (a static check)."""
    from tensorweave import array_ops
    with name_scope(name or "assert_type"):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != dtypes.as_dtype(tf_type):
            raise TypeError("%s%s must be of type %r; got %r"
                            % (_message_prefix(message), tensor.name, dtypes.as_dtype(tf_type), tensor.dtype))
        return array_ops.no_op("statically_determined_correct_type")


def assert_integer(x, message=None, name=None):
    """A no-op when x has an integer dtype; TypeError otherwise (a static check)."""
    from tensorweave import array_ops
    with name_scope(name or "assert_integer"):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError('%sExpected "x" to be integer type.  Found: %s of dtype %s'
                            % (_message_prefix(message), x.name, x.dtype))
        return array_ops.no_op("statically_determined_was_integer")


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one floating dtype shared by `tensors` (and `dtype` if given), float32 when there
    are none; ValueError when they differ or are not floating."""
    found = dtypes.as_dtype(dtype) if dtype is not None else None
    for t in tensors or []:
        t_dtype = convert_to_tensor(t).dtype
        if found is None:
            found = t_dtype
        elif t_dtype != found:
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s" % (found.name,
                                                                                                  t_dtype.name))
    if found is None:
        return dtypes.float32
    if not found.is_floating:
        raise ValueError("Expected floating point type, got %s." % found.name)
    return found


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """Asserts |x - y| < atol + rtol |y| element-wise (default tolerances 10 eps of x's dtype)."""
    from tensorweave.math_ops import abs as abs_
    with name_scope(name or "assert_near"):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype) if not _is_tensor_like(y) else convert_to_tensor(y)
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        rtol = 10 * eps if rtol is None else rtol
        atol = 10 * eps if atol is None else atol
        if data is None:
            data = [message or "", "x and y not equal to tolerance rtol = %s, atol = %s" % (rtol, atol),
                    "x (%s) = " % x.name, x, "y (%s) = " % y.name, y]
        rtol_t = convert_to_tensor(rtol, dtype=x.dtype, name="rtol")
        atol_t = convert_to_tensor(atol, dtype=x.dtype, name="atol")
        return Assert(reduce_all(less(abs_(x - y), atol_t + rtol_t * abs_(y))), data, summarize=summarize)


def assert_proper_iterable(values):
    """TypeError unless values is an iterable other than a tensor, an array or a string."""
    unintentional = (np.ndarray, bytes, str)
    if _is_tensor_like(values) or isinstance(values, unintentional):
        raise TypeError("Expected argument \"values\" to be a \"proper\" iterable.  Found: %s" % type(values))
    if not hasattr(values, "__iter__"):
        raise TypeError("Expected argument \"values\" to be iterable.  Found: %s" % type(values))
