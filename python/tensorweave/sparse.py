"""tf.sparse: the SparseTensor class and to_dense (the minimal set parse_example needs)."""
from tensorweave.sparse_tensor import SparseTensor, SparseTensorValue, to_dense  # noqa: F401
from tensorweave.sparse_tensor import sparse_placeholder as placeholder  # noqa: F401
