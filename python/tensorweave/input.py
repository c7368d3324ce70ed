"""TF 1.x's queue-based input pipeline (tf.train.*): producers that fill a queue with file
names, indices or slices (num_epochs counted by a local variable, shuffling per epoch), and
batchers that gather elements into batches through a FIFO or shuffling queue. Each adds a
QueueRunner; start_queue_runners (or MonitoredTrainingSession) starts their threads."""
from tensorweave import array_ops, dtypes, math_ops, nn, random_ops
from tensorweave.check_ops import Assert
from tensorweave.data_flow_ops import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue, _with_static_shape
from tensorweave.framework import GraphKeys, _op_output, control_dependencies, convert_to_tensor, name_scope
from tensorweave.queue_runner import QueueRunner, add_queue_runner


def count_up_to(ref, limit, name=None):
    """ref's value, then ref += 1; OutOfRange ("Reached limit of N") once ref reaches limit."""
    return _op_output("ResourceCountUpTo", [ref.handle], {"limit": int(limit), "T": ref.dtype.base_dtype
                      if hasattr(ref.dtype, "base_dtype") else ref.dtype}, name or "CountUpTo")


def limit_epochs(tensor, num_epochs=None, name=None):
    """tensor, but only num_epochs times: then OutOfRange (an epoch counter in LOCAL_VARIABLES)."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError("num_epochs must be > 0 not %d." % num_epochs)
    from tensorweave.variables import Variable
    with name_scope(name, "limit_epochs"):
        epochs = Variable(convert_to_tensor(0, dtype=dtypes.int64), trainable=False, name="epochs",
                          collections=[GraphKeys.LOCAL_VARIABLES])
        counter = count_up_to(epochs, num_epochs)
        with control_dependencies([counter]):
            return array_ops.identity(tensor, name="limit_epochs")


def _shuffle_rows(tensor, seed):
    """A random permutation of tensor's rows: the order of uniform draws (top_k of all of them)."""
    n = array_ops.shape(tensor)[0]
    perm = nn.top_k(random_ops.random_uniform(array_ops.reshape(n, [1]), seed=seed), k=n).indices
    return array_ops.gather(tensor, perm)


def _prepared(input_tensor, element_shape, num_epochs, shuffle, seed):
    """(rows to enqueue each epoch, element shape), built in the caller's name scope."""
    input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
    if element_shape is None:
        dims = input_tensor.shape.as_list() if input_tensor.shape.ndims is not None else None
        if dims is None or any(d is None for d in dims[1:]):
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` "
                             "must be specified")
        element_shape = dims[1:]
    if shuffle:
        input_tensor = _shuffle_rows(input_tensor, seed)
    return limit_epochs(input_tensor, num_epochs), list(element_shape)


def _producer_queue(input_tensor, element_shape, capacity, shared_name, scope, cancel_op):
    # The queue is its scope's namesake, beside the scope's ops (TensorFlow's "input_producer").
    q = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype], shapes=[element_shape],
                  shared_name=shared_name, name=scope.rstrip("/").split("/")[-1] if scope else "input_producer")
    enq = q.enqueue_many([input_tensor])
    add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
    return q


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None, capacity=32,
                   shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFOQueue fed with the rows of input_tensor, epoch after epoch (reshuffled each one)."""
    with name_scope(name, "input_producer") as scope:
        rows, shape = _prepared(input_tensor, element_shape, num_epochs, shuffle, seed)
    return _producer_queue(rows, shape, capacity, shared_name, scope, cancel_op)


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):
    """A queue of the given strings (file names), num_epochs times over, shuffled per epoch."""
    not_null_err = "string_input_producer requires a non-null input tensor"
    if isinstance(string_tensor, (list, tuple)) and not string_tensor:
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer") as scope:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        with control_dependencies([Assert(math_ops.greater(array_ops.size(string_tensor), 0), [not_null_err])]):
            string_tensor = array_ops.identity(string_tensor)
        rows, shape = _prepared(string_tensor, [], num_epochs, shuffle, seed)
    return _producer_queue(rows, shape, capacity, shared_name, scope, cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """A queue of the integers 0 .. limit-1."""
    with name_scope(name, "input_producer") as scope:
        rows, shape = _prepared(array_ops.range(limit), [], num_epochs, shuffle, seed)
    return _producer_queue(rows, shape, capacity, shared_name, scope, None)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """One row of every tensor in tensor_list (the same row index for all) per dequeue."""
    with name_scope(name, "input_producer"):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                     capacity=capacity, shared_name=shared_name)
        index = array_ops.reshape(queue.dequeue(), [])  # a scalar, statically: the gathers keep row shapes
        return [array_ops.gather(t, index) for t in tensor_list]


# ---- batching

def _as_list(tensors):
    """(list of tensors, a function putting a list back into the caller's structure)."""
    if isinstance(tensors, dict):
        keys = sorted(tensors)
        return [tensors[k] for k in keys], lambda xs: dict(zip(keys, xs))
    if isinstance(tensors, (list, tuple)):
        # A list of one comes back as the bare tensor, as TensorFlow's batchers return it.
        return list(tensors), lambda xs: xs[0] if len(xs) == 1 else list(xs)
    return [tensors], lambda xs: xs[0]


def _shapes(tensors, shapes, enqueue_many, dynamic_pad=False):
    """The queue's shapes: given, else the tensors' (fully defined, or of known rank when
    dynamic_pad lets a PaddingFIFOQueue pad the unknown dims)."""
    if shapes is not None:
        return [list(s) for s in shapes]
    out = []
    for t in tensors:
        dims = t.shape.as_list() if t.shape.ndims is not None else None
        if dims is None and dynamic_pad:
            raise ValueError("Cannot infer Tensor's rank: %s" % t)
        if dims is not None and enqueue_many:
            dims = dims[1:]
        if dims is None or (any(d is None for d in dims) and not dynamic_pad):
            raise ValueError("All shapes must be fully defined: %s" % [t.shape for t in tensors])
        out.append(dims)
    return out


def _batch(tensors_list, make_queue, batch_size, enqueue_many, shapes, allow_smaller_final_batch, name,
           default_name, dynamic_pad=False):
    with name_scope(name, default_name):
        first, restructure = _as_list(tensors_list[0])
        lists = [[convert_to_tensor(t) for t in _as_list(ts)[0]] for ts in tensors_list]
        shapes = _shapes(lists[0], shapes, enqueue_many, dynamic_pad)
        q = make_queue([t.dtype for t in lists[0]], shapes)
        enqueue_ops = [(q.enqueue_many if enqueue_many else q.enqueue)(ts) for ts in lists]
        add_queue_runner(QueueRunner(q, enqueue_ops))
        out = q.dequeue_up_to(batch_size) if allow_smaller_final_batch else q.dequeue_many(batch_size)
        out = out if isinstance(out, list) else [out]
        # Static shapes as TensorFlow gives them: [batch_size or None] + the element's.
        rows = None if allow_smaller_final_batch or not isinstance(batch_size, int) else batch_size
        out = [_with_static_shape(t, [rows] + s) for t, s in zip(out, shapes)]
        return restructure(out)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of batch_size elements, in order, filled by num_threads enqueuing threads."""
    return _batch([tensors] * num_threads, _which_queue(capacity, dynamic_pad, shared_name),
                  batch_size, enqueue_many, shapes, allow_smaller_final_batch, name, "batch", dynamic_pad)


def _which_queue(capacity, dynamic_pad, shared_name):
    """A FIFOQueue, or with dynamic_pad a PaddingFIFOQueue (unknown dims padded per batch)."""
    if dynamic_pad:
        return lambda types, shp: PaddingFIFOQueue(capacity, types, shapes=shp, shared_name=shared_name)
    return lambda types, shp: FIFOQueue(capacity, types, shapes=shp, shared_name=shared_name)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
               allow_smaller_final_batch=False, shared_name=None, name=None):
    """As batch, one enqueuing thread per entry of tensors_list (e.g. one reader each)."""
    return _batch(list(tensors_list), _which_queue(capacity, dynamic_pad, shared_name),
                  batch_size, enqueue_many, shapes, allow_smaller_final_batch, name, "batch_join", dynamic_pad)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                  shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches drawn at random from a RandomShuffleQueue holding at least min_after_dequeue elements."""
    return _batch([tensors] * num_threads,
                  lambda types, shp: RandomShuffleQueue(capacity, min_after_dequeue, types, shapes=shp, seed=seed,
                                                        shared_name=shared_name),
                  batch_size, enqueue_many, shapes, allow_smaller_final_batch, name, "shuffle_batch")


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None, enqueue_many=False,
                       shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    return _batch(list(tensors_list),
                  lambda types, shp: RandomShuffleQueue(capacity, min_after_dequeue, types, shapes=shp, seed=seed,
                                                        shared_name=shared_name),
                  batch_size, enqueue_many, shapes, allow_smaller_final_batch, name, "shuffle_batch_join")
