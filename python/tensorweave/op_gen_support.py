"""What the generated wrappers (tensorweave/gen_ops.py, written by tools/op_gen at build time)
call: one op added to the graph of its inputs, its attrs converted from Python values."""
from tensorweave import dtypes
from tensorweave.framework import TensorShape, _op, convert_to_tensor


def _attr_value(attr_type, value):
    if attr_type == "type":
        return dtypes.as_dtype(value)
    if attr_type == "shape":
        return TensorShape(value)
    if attr_type == "list(type)":
        return [dtypes.as_dtype(v)._core for v in value]
    if attr_type == "list(shape)":
        return [TensorShape(v)._as_core() for v in value]
    if attr_type.startswith("list("):
        return list(value)
    if attr_type == "func":  # A function of the graph's library, by name.
        from tensorweave import _core
        return value if isinstance(value, _core.FuncAttr) else _core.FuncAttr(getattr(value, "name", value))
    return value


def call_op(op_type, inputs, list_kinds, attrs, name, returns):
    """Adds `op_type`: `inputs` one value per input arg, `list_kinds` per arg None (one tensor),
    the length attr of an "N * T" list ("N"), or "" (a list(type) list); `attrs` (name, type,
    value) triples (None: the default, or inferred from the inputs). Returns the one output
    ("one"), all outputs as a list ("all") or the operation ("op")."""
    flat, lengths = [], {}
    for value, kind in zip(inputs, list_kinds):
        if kind is None:  # Converted here, as the hand-written wrappers did (variables read).
            flat.append(convert_to_tensor(value))
            continue
        value = [convert_to_tensor(v) for v in value]
        flat.extend(value)
        if kind:  # Set, not inferred: the core infers only one list's length.
            lengths[kind] = len(value)
    attr_dict = {n: _attr_value(t, v) for n, t, v in attrs if v is not None}
    attr_dict.update(lengths)
    op = _op(op_type, flat, attr_dict, name)
    if returns == "one":
        return op.outputs[0]
    if returns == "all":
        return list(op.outputs)
    return op
