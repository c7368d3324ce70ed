"""Diagonals and sequences with TensorFlow 1's names: tf.diag, tf.diag_part, tf.matrix_diag,
tf.matrix_diag_part, tf.matrix_set_diag, tf.lin_space/linspace (ops) and tf.sequence_mask
(a composite, as TensorFlow writes it in Python)."""
from tensorweave import dtypes, gen_ops
from tensorweave.array_ops import cast, expand_dims
from tensorweave.array_ops import range as _range
from tensorweave.framework import Tensor, _op_output, convert_to_tensor
from tensorweave.math_ops import less, reduce_max


diag = gen_ops.diag  # generated from the registry (tools/op_gen)


diag_part = gen_ops.diag_part  # generated from the registry (tools/op_gen)


matrix_diag = gen_ops.matrix_diag  # generated from the registry (tools/op_gen)


matrix_diag_part = gen_ops.matrix_diag_part  # generated from the registry (tools/op_gen)


def matrix_set_diag(input, diagonal, name=None):  # noqa: A002
    input = convert_to_tensor(input)  # noqa: A001
    # A Python or NumPy diagonal takes the matrices' dtype, as in TensorFlow.
    diagonal = diagonal if isinstance(diagonal, Tensor) else convert_to_tensor(diagonal, dtype=input.dtype)
    return _op_output("MatrixSetDiag", [input, diagonal], name=name or "MatrixSetDiag")


def lin_space(start, stop, num, name=None):
    """`num` evenly spaced values from start to stop, both included."""
    start = convert_to_tensor(start)
    stop = convert_to_tensor(stop, dtype=start.dtype)
    return _op_output("LinSpace", [start, stop, convert_to_tensor(num)], name=name or "LinSpace")


linspace = lin_space


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """mask[i..., j] = j < lengths[i...], for j below maxlen (default: the largest length)."""
    lengths = convert_to_tensor(lengths)
    maxlen = reduce_max(lengths) if maxlen is None else convert_to_tensor(maxlen)
    if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
        raise ValueError(f"maxlen must be scalar for sequence_mask, got shape {maxlen.shape}")
    row = _range(0, maxlen, 1)
    mask = less(row, cast(expand_dims(lengths, -1), maxlen.dtype), name=name or "SequenceMask")
    return mask if dtypes.as_dtype(dtype) == dtypes.bool else cast(mask, dtype)
