"""tf.raw_ops: every registered op by its own name, with keyword-only arguments
(`tf.raw_ops.MatMul(a=x, b=y, transpose_b=True)`), as TensorFlow has it. The functions are
generated from the op registry at build time (tensorweave/gen_ops.py, tools/op_gen)."""
import functools as _functools

from tensorweave import gen_ops as _gen_ops

# TensorFlow's API names for inputs and attrs whose schema name (TF1's OpDef, kept so that
# GraphDefs interoperate) TensorFlow's api_defs renamed: {op: {API name: schema name}}.
RENAMES = {
    **{op: {"axis": "reduction_indices"} for op in ("All", "Any", "Max", "Mean", "Min", "Prod", "Sum")},
    "ExpandDims": {"axis": "dim"},
    "Select": {"x": "t", "y": "e"},
    "Split": {"axis": "split_dim"},
    "SplitV": {"axis": "split_dim"},
    "Squeeze": {"axis": "squeeze_dims"},
    "Where": {"condition": "input"},
}


def _renamed(fn, renames):
    @_functools.wraps(fn)
    def call(**kwargs):
        return fn(**{renames.get(k, k): v for k, v in kwargs.items()})
    return call


for _op_name in _gen_ops.RAW_OPS:
    _fn = getattr(_gen_ops, _op_name)
    globals()[_op_name] = _renamed(_fn, RENAMES[_op_name]) if _op_name in RENAMES else _fn
del _op_name, _fn
