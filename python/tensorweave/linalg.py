"""tf.linalg: TensorFlow 1's linear-algebra namespace, aliasing functions defined elsewhere
under the names tf.linalg gives them."""
from tensorweave.array_reorder_ops import matrix_band_part as band_part  # noqa: F401
from tensorweave.math_ops import matmul  # noqa: F401
