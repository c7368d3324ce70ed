"""Adds one TensorFlow op by name to the default graph from positional inputs, as tf.raw_ops
does (inputs mapped to the OpDef's input names, defaults filled in): shared by raw_ops.py
and run_stateful.py, whose callers know our op signatures, not TensorFlow's keywords."""
import tensorflow as tf
from tensorflow.python.framework import op_def_library, op_def_registry


def default_of(attr):
    """The Python value of an attr's default (what tf.raw_ops fills in by itself)."""
    v = attr.default_value
    kind = v.WhichOneof("value")
    if kind == "list":
        return list(v.list.i) or [x.decode() for x in v.list.s] or list(v.list.f)
    if kind == "s":
        return v.s.decode()
    if kind == "type":
        return tf.as_dtype(v.type)
    return getattr(v, kind)


def apply_op(op_type, inputs, attrs, list_sizes=None):
    """The Operation; `list_sizes` gives the length of each list input by its name."""
    op_def = op_def_registry.get(op_type)
    kwargs = {}
    position = 0
    for arg in op_def.input_arg:
        if arg.number_attr or arg.type_list_attr:  # a list input takes the rest
            count = list_sizes[arg.name]
            kwargs[arg.name] = inputs[position:position + count]
            position += count
        else:
            kwargs[arg.name] = inputs[position]
            position += 1
    for name, value in attrs.items():
        is_type = any(a.name == name and a.type == "type" for a in op_def.attr)
        kwargs[name] = tf.as_dtype(value) if is_type else value
    for attr in op_def.attr:
        if attr.name not in kwargs and attr.HasField("default_value") and attr.type != "type":
            kwargs[attr.name] = default_of(attr)
    _, _, op, _ = op_def_library._apply_op_helper(op_type, **kwargs)
    return op
