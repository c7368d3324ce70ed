"""tf.py_func (tf.compat.v1.py_func), tf.numpy_function and tf.py_function in graph mode:
the PyFunc, PyFuncStateless and EagerPyFunc ops calling a Python function of this process.

The function is kept in a registry under a token ("pyfunc_N", as TensorFlow's) that the op
carries; the kernel (src/kernels/cpu/py_func_kernels.cc) calls back through
python/src/py_func.cc into `_dispatch`, which converts the results as TensorFlow's
script_ops does: py_func and numpy_function take what np.asarray makes of them (the kernel
checks the dtypes against Tout), py_function casts to Tout. A graph run on a `tw server`
process cannot reach the function: the step fails saying so."""
import itertools
import threading

import numpy as np

from tensorweave import _core, dtypes
from tensorweave.framework import _op, convert_to_tensor, get_default_graph

_lock = threading.Lock()
_funcs = {}
_counter = itertools.count()


class EagerValue(np.ndarray):
    """What tf.py_function's function receives for each input: a NumPy array that also
    answers .numpy(), as TensorFlow's EagerTensor does (there is no eager mode here)."""

    def numpy(self):
        return np.asarray(self)


def _register(func):
    with _lock:
        token = "pyfunc_%d" % next(_counter)
        _funcs[token] = func
    return token


def _convert(value, dtype=None):
    """A result as TensorFlow's FuncRegistry._convert makes it: a C-contiguous array, text
    as object arrays of bytes."""
    result = np.asarray(value, dtype=dtype, order="C")
    if result.dtype.char == "S" and result is not value:
        return np.asarray(value, order="C", dtype=object)
    if result.dtype.char == "U" and result is not value:
        value = np.vectorize(lambda x: x.encode("utf8"))(value)
        return np.asarray(value, order="C", dtype=object)
    if result.dtype.char == "U":
        return result.astype(np.bytes_).astype(object)
    return result


def _dispatch(token, eager, args, out_types):
    """Called by the kernel with the GIL held: the results of the token's function."""
    func = _funcs.get(token)
    if func is None:
        raise ValueError("Could not find callback with key=%s in the registry. (A py_func runs in the Python "
                         "process that built its graph; this is another process.)" % token)
    out_dtypes = [dtypes.as_dtype(_core.DType(t)) for t in out_types]
    if eager:
        args = [np.asarray(a).view(EagerValue) for a in args]
    ret = func(*args)
    if isinstance(ret, bytes):
        ret = [ret]
    if ret is None and not out_dtypes:
        return []
    if not isinstance(ret, (tuple, list)):
        ret = [ret]
    if eager:
        if len(ret) != len(out_dtypes):  # the kernel says how many it expected
            return [_convert(x) for x in ret]
        return [_convert(x, None if d == dtypes.string else d.as_numpy_dtype) for x, d in zip(ret, out_dtypes)]
    return [_convert(x) for x in ret]


_core._set_py_func_dispatcher(_dispatch)


def _internal_py_func(func, inp, Tout, stateful, eager, name):
    is_list = isinstance(Tout, (list, tuple))
    types = [dtypes.as_dtype(t) for t in (Tout if is_list else [Tout])]
    token = _register(func)
    op_type = "EagerPyFunc" if eager else ("PyFunc" if stateful else "PyFuncStateless")
    inputs = [convert_to_tensor(x) for x in inp]
    graph = next((i.graph for i in inputs), None) or get_default_graph()
    # The graph keeps its functions alive as long as it lives (TensorFlow's
    # _cleanup_py_funcs_used_in_graph); the registry entry goes with them at exit.
    if not hasattr(graph, "_py_funcs_used_in_graph"):
        graph._py_funcs_used_in_graph = []
    graph._py_funcs_used_in_graph.append(func)
    op = _op(op_type, inputs, {"token": token, "Tout": [t._core for t in types]}, name=name or op_type, graph=graph)
    outputs = list(op.outputs)
    if not outputs:
        return op
    return outputs if is_list else outputs[0]


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TensorFlow's argument name
    """tf.compat.v1.py_func: `func` called on NumPy arrays when the op runs; its results must
    have the dtypes of Tout (a list gives a list, a single dtype a tensor)."""
    return _internal_py_func(func, inp, Tout, stateful, eager=False, name=name)


def numpy_function(func, inp, Tout, stateful=True, name=None):  # noqa: N803
    """tf.numpy_function: py_func under its TF2 name."""
    return _internal_py_func(func, inp, Tout, stateful, eager=False, name=name)


def py_function(func, inp, Tout, name=None):  # noqa: N803
    """tf.py_function in graph mode: `func` gets arrays that also answer .numpy(); results are
    cast to Tout. No gradient: TensorFlow differentiates it with an eager GradientTape, which
    this runtime does not have (tf.gradients fails naming the op)."""
    return _internal_py_func(func, inp, Tout, True, eager=True, name=name)

