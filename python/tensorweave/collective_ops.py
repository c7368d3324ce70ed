"""TensorFlow's v1 collective ops (tf.raw_ops.CollectiveReduce / CollectiveBcastSend /
CollectiveBcastRecv, and the tensorflow.python.ops.collective_ops functions over them).

Members are the tasks that run an op of the same group_key; the n-th run of an
(group_key, instance_key) on one task meets the n-th run on the others. The ops run in a
server's tasks (a session on a `tf.train.Server`'s target): the data moves between the
tasks' CollectiveService (ring all-reduce, src/distributed/rpc/collective_rpc.h)."""
from tensorweave.dtypes import as_dtype
from tensorweave.framework import TensorShape, _op_output, convert_to_tensor


def _common(group_size, group_key, instance_key, communication_hint, timeout):
    return {"group_size": int(group_size), "group_key": int(group_key), "instance_key": int(instance_key),
            "communication_hint": str(communication_hint), "timeout_seconds": float(timeout)}


def all_reduce(t, group_size, group_key, instance_key, merge_op="Add", final_op="Id", subdiv_offsets=(0,),
               communication_hint="auto", timeout=0, name=None):
    """The group's elementwise reduction of `t` (merge_op Add, Mul, Max or Min), divided by
    group_size when final_op is 'Div'; every member gets it."""
    attrs = _common(group_size, group_key, instance_key, communication_hint, timeout)
    attrs.update({"merge_op": merge_op, "final_op": final_op, "subdiv_offsets": [int(o) for o in subdiv_offsets],
                  "wait_for": []})
    t = convert_to_tensor(t)
    attrs["T"] = t.dtype
    return _op_output("CollectiveReduce", [t], attrs, name)


def broadcast_send(t, shape, dtype, group_size, group_key, instance_key, communication_hint="auto", timeout=0,
                   name=None):
    """Sends `t` to the group's broadcast_recv ops; returns `t`."""
    attrs = _common(group_size, group_key, instance_key, communication_hint, timeout)
    t = convert_to_tensor(t, dtype=as_dtype(dtype))
    attrs.update({"T": t.dtype, "shape": TensorShape(shape)})
    return _op_output("CollectiveBcastSend", [t], attrs, name)


def broadcast_recv(shape, dtype, group_size, group_key, instance_key, communication_hint="auto", timeout=0,
                   name=None):
    """The tensor the group's broadcast_send sent."""
    attrs = _common(group_size, group_key, instance_key, communication_hint, timeout)
    attrs.update({"T": as_dtype(dtype), "shape": TensorShape(shape)})
    return _op_output("CollectiveBcastRecv", [], attrs, name)
