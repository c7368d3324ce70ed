"""tf.tensor_scatter_nd_update / add / sub / min / max (TF 1.15's tf.tensor_scatter_update,
tensor_scatter_add, tensor_scatter_sub): a copy of `tensor` with `updates` applied to the
slices that `indices`' last dimension addresses, in index order."""
from tensorweave.framework import _op_output, convert_to_tensor


def _scatter(op_type, tensor, indices, updates, name):
    tensor = convert_to_tensor(tensor)
    return _op_output(op_type, [tensor, convert_to_tensor(indices), convert_to_tensor(updates, dtype=tensor.dtype)],
                      name=name or op_type)


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """Slices replaced by updates (a repeated index: its last update)."""
    return _scatter("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    return _scatter("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    return _scatter("TensorScatterSub", tensor, indices, updates, name)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    return _scatter("TensorScatterMin", tensor, indices, updates, name)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    return _scatter("TensorScatterMax", tensor, indices, updates, name)


tensor_scatter_update = tensor_scatter_nd_update
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub
