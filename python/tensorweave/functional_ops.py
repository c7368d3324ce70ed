"""tf.foldl, tf.foldr, tf.scan and tf.map_fn (TF1 semantics: elems and the accumulator may be nested structures;
without an initializer the first (foldl) or last (foldr) element starts the fold). Built on
tf.while_loop, reading element i with gather instead of TF1's TensorArray (not built yet);
gradients go through while_grad.py."""
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


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """tf.compat.v1.scan: the accumulators fn(acc, elems[i]) of every step, stacked in elems'
    order (reverse: from the last element back). Without an initializer, elems' first (last
    when reversed) element is both the start and that step's output. Until TensorArray exists
    the outputs fill a [n, ...] tensor row by row (a select per step)."""
    from tensorweave import array_ops, math_ops
    from tensorweave.while_loop import while_loop
    del swap_memory, infer_shape
    if not callable(fn):
        raise TypeError("fn must be callable.")
    graph = get_default_graph()
    with graph.name_scope(name or "scan"):
        flat = [convert_to_tensor(e, name="elem") for e in _flatten(elems)]
        n = array_ops.shape(flat[0])[0]
        rows = array_ops.range(n)

        def put(outs, i, acc):  # outs with row i replaced by acc
            return [math_ops.where(math_ops.equal(rows, i),
                                   array_ops.broadcast_to(array_ops.expand_dims(a, 0), array_ops.shape(o)), o)
                    for o, a in zip(outs, acc)]

        if initializer is None:
            structure = elems
            first = n - 1 if reverse else 0
            acc = [array_ops.gather(e, first) for e in flat]
            outs = put([array_ops.zeros_like(e) for e in flat], first, acc)
            i = n - 2 if reverse else convert_to_tensor(1)
        else:
            structure = initializer
            acc = [convert_to_tensor(a) for a in _flatten(initializer)]
            outs = [array_ops.zeros(array_ops.concat([array_ops.expand_dims(n, 0), array_ops.shape(a)], 0),
                                    dtype=a.dtype) for a in acc]
            i = n - 1 if reverse else convert_to_tensor(0)

        def body(i, acc, outs):
            x = _pack_as(elems, iter([array_ops.gather(e, i) for e in flat]))
            new = [convert_to_tensor(a) for a in _flatten(fn(_pack_as(structure, iter(acc)), x))]
            return (i - 1 if reverse else i + 1), new, put(outs, i, new)

        cond = (lambda i, acc, outs: i >= 0) if reverse else (lambda i, acc, outs: i < n)
        _, _, outs = while_loop(cond, body, (i, acc, outs), parallel_iterations=parallel_iterations,
                                back_prop=back_prop, return_same_structure=True)
    return _pack_as(structure, iter(outs))


def map_fn(fn, elems, dtype=None, parallel_iterations=10, back_prop=True, swap_memory=False,
           infer_shape=True, name=None):
    """tf.compat.v1.map_fn: fn(elems[i]) for every i, stacked; `dtype` gives the output
    structure and dtypes when they differ from elems'. Until TensorArray exists each output
    is a loop variable of unknown shape, made [n, ...] by the first step (a cond) and filled a
    row per step with a select."""
    from tensorweave import array_ops, math_ops
    from tensorweave.control_flow_ops import cond as tf_cond
    from tensorweave.while_loop import while_loop
    del swap_memory, infer_shape
    if not callable(fn):
        raise TypeError("fn must be callable.")
    graph = get_default_graph()
    with graph.name_scope(name or "map"):
        flat = [convert_to_tensor(e, name="elem") for e in _flatten(elems)]
        out_structure = elems if dtype is None else dtype
        out_dtypes = [e.dtype for e in flat] if dtype is None else [dtypes.as_dtype(d) for d in _flatten(dtype)]
        n = array_ops.shape(flat[0])[0]
        rows = array_ops.range(n)
        static = {}

        def body(i, outs):
            x = _pack_as(elems, iter([array_ops.gather(e, i) for e in flat]))
            new = [convert_to_tensor(r) for r in _flatten(fn(x))]
            if len(new) != len(out_dtypes):
                raise ValueError("The two structures don't have the same number of elements. First structure: %s, "
                                 "second structure: %s." % (out_structure, new))
            static["shapes"] = [r.shape for r in new]
            filled = []
            for o, r in zip(outs, new):
                o = tf_cond(math_ops.equal(i, 0),  # the first step makes the [n, ...] output
                            lambda r=r: array_ops.zeros(array_ops.concat([array_ops.expand_dims(n, 0),
                                                                           array_ops.shape(r)], 0), dtype=r.dtype),
                            lambda o=o: o)
                row = array_ops.broadcast_to(array_ops.expand_dims(r, 0), array_ops.shape(o))
                filled.append(math_ops.where(math_ops.equal(rows, i), row, o))
            return i + 1, filled

        outs0 = [array_ops.zeros([], dtype=d) for d in out_dtypes]
        _, outs = while_loop(lambda i, outs: i < n, body, (convert_to_tensor(0), outs0),
                             shape_invariants=(TensorShape([]), [TensorShape(None)] * len(outs0)),
                             parallel_iterations=parallel_iterations, back_prop=back_prop,
                             return_same_structure=True)
        # The static shape fn gave each element: [n, ...] as TF's map_fn (a reshape sets it).
        outs = [array_ops.reshape(o, [-1] + list(s.dims)) if s.dims is not None and None not in s.dims else o
                for o, s in zip(outs, static["shapes"])]
    return _pack_as(out_structure, iter(outs))
