"""Horovod's TF1 API (`import horovod.tensorflow as hvd`) over tensorweave's collective ops:
data-parallel training by all-reduce, no parameter server.

    import tensorweave as tf
    import tensorweave.horovod as hvd
    hvd.init()                                   # rank and size from TF_CONFIG
    opt = hvd.DistributedOptimizer(tf.train.AdamOptimizer(1e-3))
    train_op = opt.minimize(loss)
    bcast = hvd.broadcast_global_variables(0)
    with tf.Session(hvd.target()) as sess:       # this process's own task
        sess.run(tf.global_variables_initializer()); sess.run(bcast)
        ...

Rank and size: this task's index and the number of tasks of its job in TF_CONFIG (or in
the cluster given to init). init() starts this process's tf.train.Server for the task; the
graph's ops run there (hvd.target()), where the CollectiveService moves the data.
Every worker must build the same collectives in the same order (as Horovod): their
instance keys are numbered in creation order per graph."""
import json
import os

import numpy as np

from tensorweave import collective_ops, train
from tensorweave.framework import convert_to_tensor, get_default_graph

__all__ = ["init", "shutdown", "rank", "size", "local_rank", "local_size", "target", "allreduce",
           "broadcast", "broadcast_global_variables", "BroadcastGlobalVariablesHook", "DistributedOptimizer"]

# The group of every worker; keys of other groups may use other numbers.
WORLD_GROUP_KEY = 1
DEFAULT_BUCKET_BYTES = 25 * 1024 * 1024  # PyTorch DDP's default bucket size.

_state = {}


def init(cluster=None, job_name=None, task_index=None, server=None, rpc_timeout_ms=0):
    """Joins the job as rank `task_index` of its tasks. With no arguments the cluster, job
    and task come from TF_CONFIG. Starts this task's server unless `server` is given."""
    if cluster is None:
        config = json.loads(os.environ.get("TF_CONFIG", "{}"))
        if "cluster" not in config or "task" not in config:
            raise ValueError("hvd.init(): set TF_CONFIG (cluster and task) or pass cluster, job_name, task_index")
        cluster = config["cluster"]
        job_name = job_name or config["task"]["type"]
        task_index = config["task"]["index"] if task_index is None else task_index
    if not isinstance(cluster, train.ClusterSpec):
        cluster = train.ClusterSpec(cluster)
    job_name = job_name or "worker"
    task_index = int(task_index or 0)
    tasks = cluster.as_dict()[job_name]
    size_ = len(tasks)
    if not 0 <= task_index < size_:
        raise ValueError("hvd.init(): task %d is not in job '%s' of %d tasks" % (task_index, job_name, size_))
    if server is None:
        server = train.Server(cluster, job_name=job_name, task_index=task_index, rpc_timeout_ms=rpc_timeout_ms)
    _state.update(rank=task_index, size=size_, job=job_name, server=server, cluster=cluster)


def _need_init():
    if not _state:
        raise ValueError("Horovod has not been initialized; use hvd.init().")
    return _state


def shutdown():
    _state.clear()


def rank():
    return _need_init()["rank"]


def size():
    return _need_init()["size"]


local_rank, local_size = rank, size  # One task per process; every task counts as local.


def target():
    """The session target of this process's task."""
    return _need_init()["server"].target


def _next_instance_key(graph):
    key = getattr(graph, "_hvd_instance_key", 0) + 1
    graph._hvd_instance_key = key
    return key


def allreduce(tensor, average=True, name=None):
    """The sum (or mean, `average`) of `tensor` over every worker."""
    s = _need_init()
    tensor = convert_to_tensor(tensor)
    if hasattr(tensor, "indices"):  # IndexedSlices: reduced dense.
        tensor = _dense(tensor)
    return collective_ops.all_reduce(tensor, s["size"], WORLD_GROUP_KEY, _next_instance_key(tensor.graph), "Add",
                                     "Div" if average else "Id", name=name)


def _dense(slices):
    from tensorweave import math_ops
    return math_ops.unsorted_segment_sum(slices.values, slices.indices, slices.dense_shape[0])


def broadcast(tensor, root_rank, name=None):
    """`tensor` of worker `root_rank`, on every worker."""
    s = _need_init()
    tensor = convert_to_tensor(tensor)
    shape = _static_shape(tensor)
    if shape is None or None in shape:
        raise ValueError("hvd.broadcast needs a fully defined shape, got %s" % (shape,))
    key = _next_instance_key(tensor.graph)
    if s["rank"] == root_rank:
        return collective_ops.broadcast_send(tensor, shape, tensor.dtype, s["size"], WORLD_GROUP_KEY, key, name=name)
    return collective_ops.broadcast_recv(shape, tensor.dtype, s["size"], WORLD_GROUP_KEY, key, name=name)


def broadcast_variables(variables, root_rank):
    """One op assigning worker `root_rank`'s value to each variable on every worker."""
    from tensorweave.array_ops import group
    s = _need_init()
    if s["size"] == 1:
        return group()
    assigns = []
    for v in variables:
        value = broadcast(v.read_value() if hasattr(v, "read_value") else v, root_rank)
        assigns.append(value if s["rank"] == root_rank else v.assign(value))
    return group(*assigns)


def broadcast_global_variables(root_rank):
    from tensorweave.variables import global_variables
    return broadcast_variables(global_variables(), root_rank)


class BroadcastGlobalVariablesHook(train.SessionRunHook if hasattr(train, "SessionRunHook") else object):
    """Broadcasts the global variables from `root_rank` once the session is created."""

    def __init__(self, root_rank):
        self.root_rank = root_rank
        self._op = None

    def begin(self):
        self._op = broadcast_global_variables(self.root_rank)

    def after_create_session(self, session, coord=None):
        session.run(self._op)


class DistributedOptimizer:
    """Wraps any tf.train optimizer: compute_gradients all-reduces (averages) the
    gradients over the workers before apply_gradients uses them. Small gradients share a
    bucket (one all-reduce of their concatenation, up to `bucket_bytes`; 25 MB as DDP),
    filled in reverse variable order (the backward pass's order), so each bucket's
    all-reduce starts as soon as its own gradients exist while the others are computed."""

    def __init__(self, optimizer, name=None, use_locking=False, bucket_bytes=DEFAULT_BUCKET_BYTES, average=True,
                 device_dense="", device_sparse="", compression=None, sparse_as_dense=True):
        self._optimizer = optimizer
        self._bucket_bytes = int(bucket_bytes)
        self._average = average

    def __getattr__(self, attr):
        return getattr(self._optimizer, attr)

    def compute_gradients(self, *args, **kwargs):
        grads_and_vars = list(self._optimizer.compute_gradients(*args, **kwargs))
        if size() == 1:
            return grads_and_vars
        variables = [v for _, v in grads_and_vars]
        return list(zip(self.reduce_gradients([g for g, _ in grads_and_vars], variables), variables))

    def reduce_gradients(self, grads, variables=None):
        """The gradients averaged over the workers, in buckets. A dense gradient has its
        variable's shape, known even where the gradient's static shape is not."""
        from tensorweave import array_ops
        out = list(grads)
        dense = [(i, g if not hasattr(g, "indices") else _dense(g)) for i, g in enumerate(grads) if g is not None]
        buckets, current, current_bytes = [], [], 0
        for i, g in reversed(dense):
            shape = _static_shape(g)
            if (shape is None or None in shape) and variables is not None:
                shape = _static_shape(variables[i])
            if shape is None or None in shape:
                out[i] = allreduce(g, self._average)  # Unknown size: on its own.
                continue
            nbytes = np.dtype(g.dtype.as_numpy_dtype).itemsize * max(1, _prod(shape))
            if current and (current_bytes + nbytes > self._bucket_bytes or current[0][1].dtype != g.dtype):
                buckets.append(current)
                current, current_bytes = [], 0
            current.append((i, g, shape))
            current_bytes += nbytes
        if current:
            buckets.append(current)
        for bucket in buckets:
            if len(bucket) == 1:
                i, g, shape = bucket[0]
                out[i] = allreduce(g, self._average)
                if _static_shape(g) != shape:
                    out[i] = array_ops.reshape(out[i], shape)
                continue
            flat = array_ops.concat([array_ops.reshape(g, [-1]) for _, g, _ in bucket], 0)
            reduced = allreduce(flat, self._average)
            offset = 0
            for i, g, shape in bucket:
                n = _prod(shape)
                out[i] = array_ops.reshape(array_ops.slice(reduced, [offset], [n]), shape)
                offset += n
        return out

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._optimizer.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def minimize(self, loss, global_step=None, var_list=None, name=None, **kwargs):
        grads_and_vars = self.compute_gradients(loss, var_list=var_list)
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)


def _static_shape(t):
    """The static shape as a list (None for unknown dims), None for an unknown rank."""
    return None if t.shape.ndims is None else t.shape.as_list()


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n
