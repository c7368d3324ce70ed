"""tf.FIFOQueue over the C++ tw::FIFOQueue: a queue resource shared by the steps (and, on
a cluster, the sessions) that use it; dequeues wait while it is empty."""
from tensorweave import _core, dtypes as dtypes_lib
from tensorweave.framework import Operation, Tensor, TensorShape, convert_to_tensor, get_default_graph


class FIFOQueue:
    """A first-in first-out queue of elements of len(dtypes) components (TF 1.x
    tf.FIFOQueue). capacity < 0: unbounded."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        if names is not None:
            raise NotImplementedError("FIFOQueue(names=...) is not supported: give components as a list")
        self._single = not isinstance(dtypes, (list, tuple))
        self._dtypes = [dtypes_lib.as_dtype(d) for d in ([dtypes] if self._single else dtypes)]
        shapes = _as_shape_list(shapes)
        if shapes and len(shapes) != len(self._dtypes):
            raise ValueError("Queue shapes must have the same length as dtypes (%d vs %d)"
                             % (len(shapes), len(self._dtypes)))
        self._shapes = [TensorShape(s) for s in shapes]
        self._graph = get_default_graph()
        self._core = _core.FIFOQueue(self._graph._core, int(capacity), [d._core for d in self._dtypes],
                                     [s.dims for s in self._shapes], shared_name or "", name)

    @property
    def queue_ref(self):
        return Tensor(self._graph, self._core.queue_ref)

    @property
    def name(self):
        return self.queue_ref.op.name

    @property
    def dtypes(self):
        return list(self._dtypes)

    @property
    def shapes(self):
        return list(self._shapes)

    def _components(self, vals):
        if not isinstance(vals, (list, tuple)):
            vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError("Expected %d components for queue '%s', got %d"
                             % (len(self._dtypes), self.name, len(vals)))
        return [convert_to_tensor(v, dtype=d)._core for v, d in zip(vals, self._dtypes)]

    def _outputs(self, cores):
        outs = [Tensor(self._graph, c) for c in cores]
        return outs[0] if len(outs) == 1 else outs

    def enqueue(self, vals, name=None):
        return Operation(self._graph, self._core.enqueue(self._components(vals), name or ""))

    def enqueue_many(self, vals, name=None):
        return Operation(self._graph, self._core.enqueue_many(self._components(vals), name or ""))

    def dequeue(self, name=None):
        return self._outputs(self._core.dequeue(name or ""))

    def dequeue_many(self, n, name=None):
        return self._outputs(self._core.dequeue_many(convert_to_tensor(n, dtype=dtypes_lib.int32)._core, name or ""))

    def close(self, cancel_pending_enqueues=False, name=None):
        return Operation(self._graph, self._core.close(bool(cancel_pending_enqueues), name or ""))

    def size(self, name=None):
        return Tensor(self._graph, self._core.size(name or ""))


def _as_shape_list(shapes):
    """TF's reading of `shapes`: None, one shape (a TensorShape or a list of ints), or a list
    of shapes."""
    if shapes is None:
        return []
    if isinstance(shapes, TensorShape):
        return [shapes]
    if not isinstance(shapes, (list, tuple)):
        raise TypeError("shapes must be a TensorShape or a list or tuple of TensorShapes, got %r" % (shapes,))
    if all(s is None or isinstance(s, int) for s in shapes):
        return [shapes]
    return list(shapes)
