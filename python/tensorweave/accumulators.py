"""tf.ConditionalAccumulator and tf.SparseConditionalAccumulator (TF 1.x): sums of
gradients across replicas, taken once num_required non-stale ones arrived. The state
lives in the device's ResourceMgr (src/kernels/conditional_accumulator.h); ours are
resource handles where TensorFlow's are string refs."""
from tensorweave import dtypes as dtypes_lib, gen_ops
from tensorweave.array_ops import cast
from tensorweave.framework import TensorShape, convert_to_tensor


def _local_step(local_step):
    return cast(convert_to_tensor(local_step), dtypes_lib.int64)


def _num_required(num_required):
    return convert_to_tensor(num_required, dtype=dtypes_lib.int32)


class _AccumulatorBase:
    def __init__(self, dtype, handle):
        self._dtype = dtype
        self._accumulator_ref = handle

    accumulator_ref = property(lambda self: self._accumulator_ref)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._accumulator_ref.op.name)

    def num_accumulated(self, name=None):
        """The number of gradients accumulated since the last take."""
        return gen_ops.resource_accumulator_num_accumulated(self._accumulator_ref, name=name)

    def set_global_step(self, new_global_step, name=None):
        """Gradients with a local_step below new_global_step are dropped from now on."""
        return gen_ops.resource_accumulator_set_global_step(self._accumulator_ref, _local_step(new_global_step),
                                                           name=name)


class ConditionalAccumulator(_AccumulatorBase):
    """The mean (or sum) of whole gradients of one variable."""

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator", reduction_type="MEAN"):
        dtype = dtypes_lib.as_dtype(dtype)
        super().__init__(dtype, gen_ops.resource_conditional_accumulator(
            dtype, TensorShape(shape), shared_name=shared_name or "", reduction_type=reduction_type, name=name))

    def apply_grad(self, grad, local_step=0, name=None):
        return gen_ops.resource_accumulator_apply_gradient(self._accumulator_ref, _local_step(local_step),
                                                          convert_to_tensor(grad, dtype=self._dtype), name=name)

    def take_grad(self, num_required, name=None):
        """Waits for num_required gradients; their mean (or sum)."""
        return gen_ops.resource_accumulator_take_gradient(self._accumulator_ref, _num_required(num_required),
                                                         self._dtype, name=name)


class SparseConditionalAccumulator(_AccumulatorBase):
    """IndexedSlices gradients summed by index; for MEAN each row is divided by the number
    of gradients that touched its index."""

    def __init__(self, dtype, shape=None, shared_name=None, name="sparse_conditional_accumulator",
                 reduction_type="MEAN"):
        dtype = dtypes_lib.as_dtype(dtype)
        super().__init__(dtype, gen_ops.sparse_conditional_accumulator(
            dtype, TensorShape(shape), shared_name=shared_name or "", reduction_type=reduction_type, name=name))

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        return self.apply_grad(grad.indices, grad.values, grad.dense_shape, local_step, name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        known = grad_shape is not None
        if not known:
            grad_shape = []
        elif isinstance(grad_shape, tuple):  # IndexedSlices keep a shape known while building as a tuple.
            grad_shape = list(grad_shape)
        shape = cast(convert_to_tensor(grad_shape), dtypes_lib.int64)
        return gen_ops.sparse_accumulator_apply_gradient(
            self._accumulator_ref, _local_step(local_step), cast(convert_to_tensor(grad_indices), dtypes_lib.int64),
            convert_to_tensor(grad_values, dtype=self._dtype), shape, has_known_shape=known,
            name=name)

    def take_grad(self, num_required, name=None):
        """Waits for num_required gradients: (indices, values, shape) of their reduction."""
        return gen_ops.sparse_accumulator_take_gradient(self._accumulator_ref, _num_required(num_required),
                                                       self._dtype, name=name)

    def take_indexed_slices_grad(self, num_required, name=None):
        from tensorweave.indexed_slices import IndexedSlices
        indices, values, shape = self.take_grad(num_required, name)
        return IndexedSlices(values, indices, shape)
