"""tf.raw_ops: every registered op by its own name, with keyword-only arguments
(`tf.raw_ops.MatMul(a=x, b=y, transpose_b=True)`), as TensorFlow has it. The functions are
generated from the op registry at build time (tensorweave/gen_ops.py, tools/op_gen)."""
from tensorweave import gen_ops as _gen_ops

for _op_name in _gen_ops.RAW_OPS:
    globals()[_op_name] = getattr(_gen_ops, _op_name)
del _op_name
