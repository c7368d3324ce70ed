"""tf.train.replica_device_setter over the C++ one: variables (the ps op types) on the ps
tasks, round-robin or by your ps_strategy, every other op on worker_device."""
import collections

from tensorweave import _core


_PendingOp = collections.namedtuple("_PendingOp", ["type", "name", "device"])


class _ReplicaDeviceSetter:
    """A device function whose choices are made in C++ (tf.device applies it natively);
    calling it with an op (anything with .type, .name and .device) gives the device."""

    def __init__(self, native):
        self._native_device_function = native

    def __call__(self, op):
        return self._native_device_function(op.type, op.name, op.device or "")


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker", merge_devices=True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for `with tf.device(...)`. With `cluster` (a ClusterSpec or its
    dict), ps_tasks is the number of tasks of ps_device's job. ps_strategy: a callable of
    the op (.type, .name, .device) returning its ps task; round-robin when None."""
    if not merge_devices:
        raise NotImplementedError("replica_device_setter(merge_devices=False) is not supported")
    from tensorweave.train import ClusterSpec
    core_cluster = None if cluster is None else ClusterSpec(cluster)._core
    strategy = None
    if ps_strategy is not None:
        if not callable(ps_strategy):
            raise TypeError("ps_strategy must be callable")
        strategy = lambda op_type, name, device: ps_strategy(_PendingOp(op_type, name, device))  # noqa: E731
    native = _core.replica_device_setter(int(ps_tasks), core_cluster, worker_device or "", ps_device or "",
                                         list(ps_ops or []), strategy)
    return _ReplicaDeviceSetter(native)
