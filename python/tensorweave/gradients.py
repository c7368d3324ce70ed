"""tf.gradients: the C++ gradient pass over the default graph (a gather's gradient returned
as IndexedSlices, as TensorFlow does)."""
from tensorweave import _core
from tensorweave.framework import Tensor, convert_to_tensor
from tensorweave.indexed_slices import as_sparse_gradient
from tensorweave.variables import Variable


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def gradients(ys, xs, grad_ys=None, name="gradients", **kwargs):
    """d(sum of ys)/d(x) for each x in xs (None where no y depends on x). A variable in xs
    is differentiated through its handle, so every read of it counts."""
    ys = [convert_to_tensor(y) for y in _as_list(ys)]
    xs = _as_list(xs)
    core_xs = [x._core.handle if isinstance(x, Variable) else convert_to_tensor(x)._core for x in xs]
    core_grad_ys = [] if grad_ys is None else [
        convert_to_tensor(g, dtype=y.dtype)._core for g, y in zip(_as_list(grad_ys), ys)]
    graph = ys[0].graph
    grads = [None if g is None else Tensor(graph, g)
             for g in _core.gradients([y._core for y in ys], core_xs, core_grad_ys)]
    # A gather's gradient comes back as TensorFlow's IndexedSlices (rows and ids).
    return [as_sparse_gradient(g, x) for g, x in zip(grads, xs)]
