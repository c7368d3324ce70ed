"""A tf.data iterator's position as something tf.train.Saver saves and restores
(tf.data.experimental.make_saveable_from_iterator): SerializeIterator gives its state,
DeserializeIterator takes it back. As in TensorFlow, the checkpoint holds it under
"<the iterator resource's tensor name>_STATE" (e.g. "IteratorV2:0_STATE")."""
from tensorweave import framework


class SaveSpec:
    """One tensor a saveable writes (TF's BaseSaverBuilder.SaveSpec)."""

    def __init__(self, tensor, slice_spec, name, dtype=None, device=None):
        self.tensor = tensor
        self.slice_spec = slice_spec
        self.name = name
        self.dtype = dtype if dtype is not None else tensor.dtype
        self.device = device


class _IteratorSaveable:
    """The saveable of one iterator (TF's iterator_ops._IteratorSaveable): `op` is the
    iterator's resource handle, `specs` its one SaveSpec."""

    def __init__(self, iterator_resource, name):
        serialized = framework._op("SerializeIterator", [iterator_resource], {"external_state_policy": 0},
                                   name="SerializeIterator").outputs[0]
        self.op = iterator_resource
        self.name = name
        self.specs = [SaveSpec(serialized, "", name + "_STATE", device=iterator_resource.device)]

    def restore(self, restored_tensors, restored_shapes=None):
        return framework._op("DeserializeIterator", [self.op, restored_tensors[0]], {}, name="DeserializeIterator")


def make_saveable_from_iterator(iterator, external_state_policy=None):
    """A saveable of `iterator`'s position for tf.train.Saver: pass it in var_list, or add it
    to tf.GraphKeys.SAVEABLE_OBJECTS for a Saver built with var_list=None."""
    if external_state_policy not in (None, "warn", "ignore", "fail"):
        raise ValueError("external_state_policy must be one of 'warn', 'ignore' or 'fail', got %r"
                         % (external_state_policy,))
    resource = getattr(iterator, "_iterator_resource", None)
    if resource is None:
        raise TypeError("make_saveable_from_iterator expects a tf.data iterator (from make_one_shot_iterator, "
                        "make_initializable_iterator or Iterator.from_structure), got %r" % (iterator,))
    return _IteratorSaveable(resource, resource.name)


def is_saveable(obj):
    return isinstance(obj, _IteratorSaveable)


def to_core(saveables):
    """The C++ Saver's Saveables of `saveables` (one per SaveSpec)."""
    from tensorweave import _core
    return [_core.Saver.Saveable(spec.name, spec.tensor._core, s.op._core, "DeserializeIterator")
            for s in saveables for spec in s.specs]


def in_collection(graph):
    """The saveables in `graph`'s SAVEABLE_OBJECTS collection."""
    return [s for s in graph.get_collection(framework.GraphKeys.SAVEABLE_OBJECTS) if is_saveable(s)]
