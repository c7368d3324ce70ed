"""tf.bitwise: and, or, xor, invert and shifts of integer tensors (math_fn_ops.py)."""
from tensorweave.math_fn_ops import bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift  # noqa: F401
