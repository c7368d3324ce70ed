"""tf.FIFOQueue over the C++ tw::FIFOQueue, and tf.RandomShuffleQueue and tf.PaddingFIFOQueue from the same kernels: a queue
resource shared by the steps (and, on a cluster, the sessions) that use it; dequeues wait while it is empty."""
from tensorweave import _core, dtypes as dtypes_lib
from tensorweave.framework import Operation, Tensor, TensorShape, _op, convert_to_tensor, get_default_graph


class FIFOQueue:
    """A first-in first-out queue of elements of len(dtypes) components (TF 1.x
    tf.FIFOQueue). capacity < 0: unbounded."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        self._single, self._dtypes, self._shapes = _queue_components("FIFOQueue", dtypes, shapes, names, False)
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
        outs = self._core.dequeue(name or "")
        return self._shaped([Tensor(self._graph, c) for c in outs], None, batched=False)

    def dequeue_many(self, n, name=None):
        outs = self._core.dequeue_many(convert_to_tensor(n, dtype=dtypes_lib.int32)._core, name or "")
        return self._shaped([Tensor(self._graph, c) for c in outs], n if isinstance(n, int) else None, batched=True)

    def _shaped(self, outs, n, batched):
        """The dequeued components with the queue's static shapes (TensorFlow sets them on the
        op's outputs; here a reshape carries them when the queue's shapes are fully defined)."""
        shaped = [_with_static_shape(t, ([n] if batched else []) + s.as_list()) if s.is_fully_defined() else t
                  for t, s in zip(outs, self._shapes or [TensorShape(None)] * len(outs))]
        return shaped[0] if len(shaped) == 1 else shaped

    def dequeue_up_to(self, n, name=None):
        """As dequeue_many, but a closed queue hands over its last (fewer than n) elements."""
        return _dequeue_up_to(self, n, name)

    def close(self, cancel_pending_enqueues=False, name=None):
        return Operation(self._graph, self._core.close(bool(cancel_pending_enqueues), name or ""))

    def size(self, name=None):
        return Tensor(self._graph, self._core.size(name or ""))


def _with_static_shape(t, dims):
    """t reshaped to dims when they are all known but one (-1): the static shape TF's queues give."""
    if dims is None or sum(d is None for d in dims) > 1:
        return t
    from tensorweave import array_ops
    return array_ops.reshape(t, [-1 if d is None else d for d in dims])


def _batched_outputs(queue, op, n):
    # Known rank is enough: a PaddingFIFOQueue's [n, None, 2] reshapes to it (one dim unknown).
    outs = [_with_static_shape(t, [n] + s.as_list()) if s.ndims is not None else t
            for t, s in zip(op.outputs, queue.shapes or [TensorShape(None)] * len(op.outputs))]
    return outs[0] if len(outs) == 1 else outs


def _dequeue_up_to(queue, n, name):
    op = _op("QueueDequeueUpToV2", [queue.queue_ref, convert_to_tensor(n, dtype=dtypes_lib.int32)],
             {"component_types": [d._core for d in queue.dtypes]}, name or queue.name + "_DequeueUpTo")
    return _batched_outputs(queue, op, None)


class _OpQueue:
    """The queue methods over the queue ops, for queues made by one op (self._handle)."""

    queue_ref = property(lambda self: self._handle)
    name = property(lambda self: self._handle.op.name)
    dtypes = property(lambda self: list(self._dtypes))
    shapes = property(lambda self: list(self._shapes))

    def _components(self, vals):
        if not isinstance(vals, (list, tuple)):
            vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError("Expected %d components for queue '%s', got %d"
                             % (len(self._dtypes), self.name, len(vals)))
        return [convert_to_tensor(v, dtype=d) for v, d in zip(vals, self._dtypes)]

    def _single_outputs(self, op):
        outs = [_with_static_shape(t, s.as_list()) if s.is_fully_defined() else t
                for t, s in zip(op.outputs, self._shapes or [TensorShape(None)] * len(op.outputs))]
        return outs[0] if len(outs) == 1 else outs

    def _checked(self, vals, batched):
        """The components, their static shapes checked against the queue's (TF's ValueError)."""
        comps = self._components(vals)
        for t, want in zip(comps, self._shapes):
            have = t.shape
            if have.ndims is None or want.ndims is None:
                continue
            dims = have.as_list()[1:] if batched else have.as_list()
            wants = want.as_list()
            if len(dims) != len(wants) or any(a is not None and b is not None and a != b for a, b in zip(dims, wants)):
                raise ValueError("Shapes %s and %s are incompatible" % (_shape_text(dims), _shape_text(wants)))
        return comps

    def enqueue(self, vals, name=None):
        return _op("QueueEnqueueV2", [self._handle] + self._checked(vals, False), {},
                   name or self.name + "_enqueue")

    def enqueue_many(self, vals, name=None):
        return _op("QueueEnqueueManyV2", [self._handle] + self._checked(vals, True), {},
                   name or self.name + "_EnqueueMany")

    def dequeue(self, name=None):
        op = _op("QueueDequeueV2", [self._handle], {"component_types": [d._core for d in self._dtypes]},
                 name or self.name + "_Dequeue")
        return self._single_outputs(op)

    def dequeue_many(self, n, name=None):
        op = _op("QueueDequeueManyV2", [self._handle, convert_to_tensor(n, dtype=dtypes_lib.int32)],
                 {"component_types": [d._core for d in self._dtypes]}, name or self.name + "_DequeueMany")
        return _batched_outputs(self, op, n if isinstance(n, int) else None)

    def dequeue_up_to(self, n, name=None):
        return _dequeue_up_to(self, n, name)

    def close(self, cancel_pending_enqueues=False, name=None):
        return _op("QueueCloseV2", [self._handle], {"cancel_pending_enqueues": bool(cancel_pending_enqueues)},
                   name or self.name + "_Close")

    def size(self, name=None):
        return _op("QueueSizeV2", [self._handle], {}, name or self.name + "_Size").outputs[0]


class RandomShuffleQueue(_OpQueue):
    """TF 1.x tf.RandomShuffleQueue: dequeues a random element while more than
    min_after_dequeue remain (every element once closed). A seed makes the order repeatable."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,
                 shared_name=None, name="random_shuffle_queue"):
        self._single, self._dtypes, self._shapes = _queue_components("RandomShuffleQueue", dtypes, shapes, names, False)
        self._graph = get_default_graph()
        seed1, seed2 = self._graph._next_seeds(seed)  # The op seed and the graph's, as TensorFlow's.
        attrs = {"component_types": [d._core for d in self._dtypes],
                 "shapes": [s._as_core() for s in self._shapes], "capacity": int(capacity),
                 "min_after_dequeue": int(min_after_dequeue), "seed": int(seed1), "seed2": int(seed2),
                 "shared_name": shared_name or ""}
        self._handle = _op("RandomShuffleQueueV2", [], attrs, name, graph=self._graph).outputs[0]


class PaddingFIFOQueue(_OpQueue):
    """TF 1.x tf.PaddingFIFOQueue: a FIFO queue whose shapes may leave dims unknown (None);
    dequeue_many / dequeue_up_to pad every component to the batch's largest element along
    them, with zeros ("" for strings)."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):
        self._single, self._dtypes, self._shapes = _queue_components("PaddingFIFOQueue", dtypes, shapes, names, True)
        self._graph = get_default_graph()
        attrs = {"component_types": [d._core for d in self._dtypes],
                 "shapes": [s._as_core() for s in self._shapes], "capacity": int(capacity),
                 "shared_name": shared_name or ""}
        self._handle = _op("PaddingFIFOQueueV2", [], attrs, name, graph=self._graph).outputs[0]


def _queue_components(kind, dtypes, shapes, names, shapes_required):
    """(single, dtypes, shapes) of a `kind` queue's components, read as TensorFlow reads them:
    one dtype or a list; shapes optional (each component's, when given) unless required."""
    if names is not None:
        raise NotImplementedError("%s(names=...) is not supported: give components as a list" % kind)
    single = not isinstance(dtypes, (list, tuple))
    dtypes = [dtypes_lib.as_dtype(d) for d in ([dtypes] if single else dtypes)]
    shapes = _as_shape_list(shapes)
    if shapes_required and len(shapes) != len(dtypes):
        raise ValueError("Shapes must be provided for all components, but received %d dtypes and %d shapes."
                         % (len(dtypes), len(shapes)))
    if shapes and len(shapes) != len(dtypes):
        raise ValueError("Queue shapes must have the same length as dtypes (%d vs %d)" % (len(shapes), len(dtypes)))
    return single, dtypes, [TensorShape(s) for s in shapes]


def _shape_text(dims):
    """A shape as TF's TensorShape prints it: (1, 3), (None, 2), (5,), ()."""
    return "(%s)" % (", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else ""))


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
