"""String ops (tf.strings.join, TF 1.x's tf.string_join)."""
from tensorweave import dtypes
from tensorweave.framework import _op_output, convert_to_tensor


def join(inputs, separator="", name=None):
    """Element-wise concatenation of string tensors (scalars broadcast), joined by separator."""
    inputs = [convert_to_tensor(i, dtype=dtypes.string) for i in inputs]
    if not inputs:
        raise ValueError("tf.strings.join needs at least one input")
    return _op_output("StringJoin", inputs, {"separator": separator}, name or "StringJoin")


string_join = join
