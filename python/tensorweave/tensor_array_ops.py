"""tf.TensorArray as TF1's graph implementation: a resource handle plus a float32 scalar
"flow" that chains the ops on one array (each write returns a new TensorArray object on the
same handle with the write's flow). Ops TensorArrayV3 & co. (src/ops/tensor_array_ops.cc);
gradients in src/autodiff/tensor_array_grad.cc. In a tf.while_loop a TensorArray travels as
its flow (while_loop.py turns it into its flow and back).

A while loop's gradient re-runs the loop body once per iteration (while_grad.py); ops made
then carry `_tw_rerun` so that a read may see an element its forward read cleared and a
write of an element already written is skipped."""
from tensorweave import dtypes
from tensorweave.framework import Tensor, TensorShape, _op, convert_to_tensor, get_default_graph


def _rerun_attrs(attrs=None):
    attrs = dict(attrs or {})
    if getattr(get_default_graph(), "_tw_grad_rerun", False):
        attrs["_tw_rerun"] = True
    return attrs


def _fmt(shape):
    return "<unknown>" if shape.dims is None else str(tuple(shape.dims))


def _merge(a, b):
    """The most specific shape compatible with both; None when they conflict."""
    if a.dims is None:
        return b
    if b.dims is None:
        return a
    if len(a.dims) != len(b.dims):
        return None
    dims = []
    for x, y in zip(a.dims, b.dims):
        if x is not None and y is not None and x != y:
            return None
        dims.append(x if x is not None else y)
    return TensorShape(dims)


def _with_shape(value, shape):
    """value with static shape `shape` (checked at run time), when that says more."""
    from tensorweave.shape_n_ops import ensure_shape
    if shape.dims is None or value.shape == shape:
        return value
    return ensure_shape(value, shape)


class TensorArray:
    """tf.TensorArray (TF1): dtype, size, dynamic_size, clear_after_read, tensor_array_name,
    handle/flow (an existing array), infer_shape, element_shape."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        del colocate_with_first_write_call
        self._dtype = dtypes.as_dtype(dtype)
        self._infer_shape = infer_shape
        self._dynamic_size = bool(dynamic_size)
        self._size = size if isinstance(size, int) else None  # Known while building: stack's static shape.
        # Shared by every TensorArray object on this handle (as TF's list of one shape).
        self._element_shape = [TensorShape(element_shape) if element_shape is not None else TensorShape(None)]
        if handle is not None:
            if flow is None:
                raise ValueError("flow must not be None if handle is not None.")
            if size is not None:
                raise ValueError("Cannot provide both a handle and size at the same time")
            self._handle, self._flow = handle, convert_to_tensor(flow)
            return
        if size is None:
            raise ValueError("Size must be provided if handle is not provided")
        if clear_after_read is None:
            clear_after_read = True
        attrs = {"dtype": self._dtype, "element_shape": self._element_shape[0],
                 "dynamic_size": self._dynamic_size, "clear_after_read": bool(clear_after_read),
                 "identical_element_shapes": bool(infer_shape), "tensor_array_name": tensor_array_name or ""}
        op = _op("TensorArrayV3", [convert_to_tensor(size, dtype=dtypes.int32)], attrs, name=name or "TensorArray")
        self._handle, self._flow = op.outputs[0], op.outputs[1]

    # ---- properties
    flow = property(lambda self: self._flow)
    dtype = property(lambda self: self._dtype)
    handle = property(lambda self: self._handle)
    dynamic_size = property(lambda self: self._dynamic_size)

    @property
    def element_shape(self):
        return self._element_shape[0]

    def _derived(self, flow):
        """A TensorArray on this handle with a new flow, sharing the element shape."""
        ta = TensorArray(self._dtype, handle=self._handle, flow=flow, infer_shape=self._infer_shape)
        ta._element_shape = self._element_shape
        ta._dynamic_size = self._dynamic_size
        ta._size = self._size
        return ta

    def _merge_element_shape(self, shape):
        merged = _merge(self._element_shape[0], shape)
        if merged is None:
            raise ValueError("Inconsistent shapes: saw %s but expected %s " % (_fmt(shape), _fmt(self.element_shape)))
        self._element_shape[0] = merged

    def identity(self):
        from tensorweave import array_ops
        return self._derived(array_ops.identity(self._flow))

    def grad(self, source, flow=None, name=None):
        flow = self._flow if flow is None else flow
        op = _op("TensorArrayGradV3", [self._handle, flow], {"source": source}, name=name or "TensorArrayGrad")
        ta = TensorArray(self._dtype, handle=op.outputs[0], flow=op.outputs[1], infer_shape=self._infer_shape)
        ta._element_shape = self._element_shape
        return ta

    # ---- element access
    def read(self, index, name=None):
        op = _op("TensorArrayReadV3", [self._handle, convert_to_tensor(index, dtype=dtypes.int32), self._flow],
                 _rerun_attrs({"dtype": self._dtype}), name=name or "TensorArrayReadV3")
        return _with_shape(op.outputs[0], self.element_shape)

    def write(self, index, value, name=None):
        value = _value(value, self._dtype)
        if self._infer_shape:
            self._merge_element_shape(value.shape)
        op = _op("TensorArrayWriteV3", [self._handle, convert_to_tensor(index, dtype=dtypes.int32), value, self._flow],
                 _rerun_attrs(), name=name or "TensorArrayWrite")
        return self._derived(op.outputs[0])

    def gather(self, indices, name=None):
        return self._gather(indices, name, None)

    def _gather(self, indices, name, count):
        indices = convert_to_tensor(indices, dtype=dtypes.int32)
        op = _op("TensorArrayGatherV3", [self._handle, indices, self._flow],
                 _rerun_attrs({"dtype": self._dtype, "element_shape": self.element_shape}),
                 name=name or "TensorArrayGatherV3")
        value = op.outputs[0]
        if self.element_shape.dims is not None:
            value = _with_shape(value, TensorShape([count] + list(self.element_shape.dims)))
        return value

    def stack(self, name=None):
        """All elements along a new first dim (its size static when the array's is, as TF)."""
        from tensorweave import array_ops
        count = None if self._dynamic_size else self._size
        return self._gather(array_ops.range(0, self.size()), name or "TensorArrayStack", count)

    def concat(self, name=None):
        shape = self.element_shape
        rest = TensorShape(list(shape.dims[1:])) if shape.dims else TensorShape(None)
        op = _op("TensorArrayConcatV3", [self._handle, self._flow], {"dtype": self._dtype, "element_shape_except0": rest},
                 name=name or "TensorArrayConcatV3")
        return op.outputs[0]

    def unstack(self, value, name=None):
        from tensorweave import array_ops
        value = _value(value, self._dtype)
        return self.scatter(array_ops.range(0, array_ops.shape(value)[0]), value, name=name or "TensorArrayUnstack")

    def scatter(self, indices, value, name=None):
        value = _value(value, self._dtype)
        if self._infer_shape and value.shape.dims is not None:
            self._merge_element_shape(TensorShape(list(value.shape.dims[1:])))
        op = _op("TensorArrayScatterV3", [self._handle, convert_to_tensor(indices, dtype=dtypes.int32), value, self._flow],
                 _rerun_attrs(), name=name or "TensorArrayScatter")
        return self._derived(op.outputs[0])

    def split(self, value, lengths, name=None):
        value = _value(value, self._dtype)
        if self._infer_shape and value.shape.dims is not None and isinstance(lengths, (list, tuple)) and lengths \
                and min(lengths) == max(lengths):
            self._merge_element_shape(TensorShape([lengths[0]] + list(value.shape.dims[1:])))
        lengths = convert_to_tensor(lengths, dtype=dtypes.int64)
        op = _op("TensorArraySplitV3", [self._handle, value, lengths, self._flow], _rerun_attrs(),
                 name=name or "TensorArraySplit")
        return self._derived(op.outputs[0])

    def size(self, name=None):
        return _op("TensorArraySizeV3", [self._handle, self._flow], name=name or "TensorArraySizeV3").outputs[0]

    def close(self, name=None):
        return _op("TensorArrayCloseV3", [self._handle], name=name or "TensorArrayCloseV3")


def _value(value, dtype):
    """A written value as a tensor: Python values in the array's dtype; a tensor of another
    dtype is passed on (the kernel names both dtypes, as TF's)."""
    if isinstance(value, Tensor) or hasattr(value, "_as_graph_element"):
        return convert_to_tensor(value)
    return convert_to_tensor(value, dtype=dtype)


# ---- TensorArrays as while_loop variables (their flows travel through the loop).
def to_flows(structure):
    from tensorweave.control_flow_ops import _flatten, _pack_as
    leaves = _flatten(structure)
    if not any(isinstance(x, TensorArray) for x in leaves):
        return structure
    return _pack_as(structure, iter([x.flow if isinstance(x, TensorArray) else x for x in leaves]))


def from_flows(template, structure):
    """`structure` with each leaf where `template` has a TensorArray made back into one."""
    from tensorweave.control_flow_ops import _flatten, _pack_as
    t_leaves = _flatten(template)
    if not any(isinstance(x, TensorArray) for x in t_leaves):
        return structure
    leaves = _flatten(structure)
    return _pack_as(template, iter([t._derived(v) if isinstance(t, TensorArray) and not isinstance(v, TensorArray)
                                    else v for t, v in zip(t_leaves, leaves)]))


def has_tensor_arrays(structure):
    from tensorweave.control_flow_ops import _flatten
    return any(isinstance(x, TensorArray) for x in _flatten(structure))
