"""tf.foldl, tf.foldr, tf.scan and tf.map_fn (TF1 semantics: elems and the accumulator may be nested structures;
without an initializer the first (foldl) or last (foldr) element starts the fold). Built on
tf.while_loop: folds read element i with gather; scan and map_fn read and write TensorArrays
as TF1's (O(n)); gradients go through while_grad.py."""
from tensorweave.control_flow_ops import _flatten, _pack_as
from tensorweave import dtypes
from tensorweave.framework import TensorShape, convert_to_tensor, get_default_graph


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


def _unstacked(flat, n):
    """One TensorArray per elems tensor, holding its rows (read once each, as TF1's)."""
    from tensorweave.tensor_array_ops import TensorArray
    return [TensorArray(e.dtype, size=n, element_shape=_rest(e.shape), infer_shape=True).unstack(e) for e in flat]


def _rest(shape):
    return TensorShape(None) if shape.dims is None or not shape.dims else TensorShape(list(shape.dims[1:]))


def _stacked(tas, n_static):
    """Each TensorArray's elements stacked, the first dim n when known while building (as TF1)."""
    from tensorweave.tensor_array_ops import _with_shape
    out = []
    for ta in tas:
        value = ta.stack()
        if value.shape.dims is not None:
            value = _with_shape(value, TensorShape([n_static] + list(value.shape.dims[1:])))
        out.append(value)
    return out


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """tf.compat.v1.scan: the accumulators fn(acc, elems[i]) of every step, stacked in elems'
    order (reverse: from the last element back). Without an initializer, elems' first (last
    when reversed) element is both the start and that step's output. As TF1: elems are read
    from TensorArrays and each step writes its accumulator to one (O(n))."""
    from tensorweave import array_ops
    from tensorweave.tensor_array_ops import TensorArray
    from tensorweave.while_loop import while_loop
    del swap_memory
    if not callable(fn):
        raise TypeError("fn must be callable.")
    graph = get_default_graph()
    with graph.name_scope(name or "scan"):
        flat = [convert_to_tensor(e, name="elem") for e in _flatten(elems)]
        n_static = flat[0].shape.dims[0] if flat[0].shape.dims else None
        n = array_ops.shape(flat[0])[0]
        elems_ta = _unstacked(flat, n)
        if initializer is None:
            structure = elems
            first = n - 1 if reverse else 0
            acc = [ta.read(first) for ta in elems_ta]
            i = n - 2 if reverse else convert_to_tensor(1)
        else:
            structure = initializer
            acc = [convert_to_tensor(a) for a in _flatten(initializer)]
            i = n - 1 if reverse else convert_to_tensor(0)
        accs_ta = [TensorArray(a.dtype, size=n, element_shape=a.shape if infer_shape else None, infer_shape=infer_shape)
                   for a in acc]
        if initializer is None:
            accs_ta = [ta.write(first, a) for ta, a in zip(accs_ta, acc)]

        def body(i, acc, tas):
            x = _pack_as(elems, iter([ta.read(i) for ta in elems_ta]))
            new = [convert_to_tensor(a) for a in _flatten(fn(_pack_as(structure, iter(acc)), x))]
            return (i - 1 if reverse else i + 1), new, [ta.write(i, a) for ta, a in zip(tas, new)]

        cond = (lambda i, acc, tas: i >= 0) if reverse else (lambda i, acc, tas: i < n)
        _, _, tas = while_loop(cond, body, (i, acc, accs_ta), parallel_iterations=parallel_iterations,
                               back_prop=back_prop, return_same_structure=True)
        outs = _stacked(tas, n_static)
    return _pack_as(structure, iter(outs))


def map_fn(fn, elems, dtype=None, parallel_iterations=10, back_prop=True, swap_memory=False,
           infer_shape=True, name=None):
    """tf.compat.v1.map_fn: fn(elems[i]) for every i, stacked; `dtype` gives the output
    structure and dtypes when they differ from elems'. As TF1: elems are read from
    TensorArrays and each step writes its results to one (O(n)); zero elements give an empty
    [0, ...] result when fn's static output shape is known."""
    from tensorweave import array_ops
    from tensorweave.tensor_array_ops import TensorArray
    from tensorweave.while_loop import while_loop
    del swap_memory
    if not callable(fn):
        raise TypeError("fn must be callable.")
    graph = get_default_graph()
    with graph.name_scope(name or "map"):
        flat = [convert_to_tensor(e, name="elem") for e in _flatten(elems)]
        out_structure = elems if dtype is None else dtype
        out_dtypes = [e.dtype for e in flat] if dtype is None else [dtypes.as_dtype(d) for d in _flatten(dtype)]
        n_static = flat[0].shape.dims[0] if flat[0].shape.dims else None
        n = array_ops.shape(flat[0])[0]
        elems_ta = _unstacked(flat, n)
        accs_ta = [TensorArray(d, size=n, infer_shape=infer_shape) for d in out_dtypes]

        def body(i, tas):
            x = _pack_as(elems, iter([ta.read(i) for ta in elems_ta]))
            new = [convert_to_tensor(r) for r in _flatten(fn(x))]
            if len(new) != len(out_dtypes):
                raise ValueError("The two structures don't have the same number of elements. First structure: %s, "
                                 "second structure: %s." % (out_structure, new))
            return i + 1, [ta.write(i, r) for ta, r in zip(tas, new)]

        _, tas = while_loop(lambda i, tas: i < n, body, (convert_to_tensor(0), accs_ta),
                            parallel_iterations=parallel_iterations, back_prop=back_prop,
                            return_same_structure=True)
        outs = _stacked(tas, n_static)
    return _pack_as(out_structure, iter(outs))
