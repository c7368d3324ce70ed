"""tf.foldl and tf.foldr (TF1 semantics: elems and the accumulator may be nested structures;
without an initializer the first (foldl) or last (foldr) element starts the fold). Built on
tf.while_loop, reading element i with gather instead of TF1's TensorArray (not built yet);
gradients go through while_grad.py."""
from tensorweave.control_flow_ops import _flatten, _pack_as
from tensorweave.framework import convert_to_tensor, get_default_graph


def _fold(fn, elems, initializer, parallel_iterations, back_prop, name, reverse):
    from tensorweave import array_ops
    from tensorweave.while_loop import while_loop
    if not callable(fn):
        raise TypeError("fn must be callable.")
    graph = get_default_graph()
    with graph.name_scope(name):
        flat = [convert_to_tensor(e, name="elem") for e in _flatten(elems)]
        n = array_ops.shape(flat[0])[0]
        if initializer is None:
            first = n - 1 if reverse else 0
            acc = _pack_as(elems, iter([array_ops.gather(e, first) for e in flat]))
            i = n - 2 if reverse else convert_to_tensor(1)
        else:
            acc = initializer
            i = n - 1 if reverse else convert_to_tensor(0)

        def body(i, acc):
            x = _pack_as(elems, iter([array_ops.gather(e, i) for e in flat]))
            return (i - 1 if reverse else i + 1), fn(acc, x)

        cond = (lambda i, acc: i >= 0) if reverse else (lambda i, acc: i < n)
        _, out = while_loop(cond, body, (i, acc), parallel_iterations=parallel_iterations,
                            back_prop=back_prop, return_same_structure=True)
    return out


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """tf.compat.v1.foldl: fn(acc, elems[i]) for i = 0 .. n-1."""
    del swap_memory
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, name or "foldl", False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """tf.compat.v1.foldr: fn(acc, elems[i]) for i = n-1 .. 0."""
    del swap_memory
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, name or "foldr", True)
