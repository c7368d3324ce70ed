"""tf.manip: TF 1's namespace of tensor-manipulation ops, aliasing the top-level ones."""
from tensorweave.array_ops import reshape, tile  # noqa: F401
from tensorweave.array_reorder_ops import batch_to_space_nd, reverse, roll, space_to_batch_nd  # noqa: F401
from tensorweave.partition_ops import gather_nd, scatter_nd  # noqa: F401
