"""tf.linalg.pinv as TensorFlow builds it (linalg_impl.py): the Moore-Penrose pseudo-inverse
from the thin SVD, singular values at or below rcond * max(s) dropped (saturated to inf, so
1/s is 0 and the gradient stays finite); batched over leading dimensions; differentiable
through Svd."""
import numpy as np

from tensorweave import array_ops, dtypes, math_ops
from tensorweave.array_composites import where_v2
from tensorweave.framework import convert_to_tensor, name_scope
from tensorweave.linalg_factor_ops import svd


def pinv(a, rcond=None, validate_args=False, name=None):
    """The pseudo-inverse of the innermost matrices of `a` (float32 or float64). rcond
    defaults to 10 * max(rows, cols) * eps of the dtype, as TensorFlow's."""
    with name_scope(name or "pinv"):
        a = convert_to_tensor(a, name="a")
        if a.dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError("Input `a` must have `float`-like `dtype` (saw {}).".format(a.dtype.name))
        if a.shape.ndims is not None and a.shape.ndims < 2:
            raise ValueError("Input `a` must have at least 2 dimensions (saw: {}).".format(a.shape.ndims))
        np_dtype = a.dtype.as_numpy_dtype
        if rcond is None:
            dims = a.shape.as_list() if a.shape.ndims is not None else None
            rows, cols = (dims[-2], dims[-1]) if dims else (None, None)
            if rows is not None and cols is not None:
                max_rows_cols = float(max(rows, cols))
            else:
                shape = array_ops.shape(a)
                max_rows_cols = array_ops.cast(math_ops.maximum(shape[-2], shape[-1]), a.dtype)
            rcond = 10.0 * max_rows_cols * np.finfo(np_dtype).eps
        rcond = convert_to_tensor(rcond, dtype=a.dtype, name="rcond")
        s, u, v = svd(a, full_matrices=False, compute_uv=True)
        cutoff = rcond * math_ops.reduce_max(s, axis=-1)
        s = where_v2(s > array_ops.expand_dims(cutoff, -1), s, np.array(np.inf, np_dtype))
        # Real dtypes: the adjoint is the transpose. The shapes inferred carry a's static dims.
        return math_ops.matmul(v / array_ops.expand_dims(s, -2), u, transpose_b=True)
