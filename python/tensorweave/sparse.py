"""tf.sparse: the SparseTensor class and to_dense (the minimal set parse_example needs)."""
from tensorweave.sparse_tensor import SparseTensor, to_dense  # noqa: F401
