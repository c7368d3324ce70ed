"""tf.tuple: tensors (and ops) released together, each only once all are computed. Its own
module because its TensorFlow name shadows Python's tuple."""
from tensorweave import framework
from tensorweave.array_ops import group, identity
from tensorweave.framework import convert_to_tensor


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TensorFlow's name
    """Identities (groups, for ops) behind one gate that waits for every input; None stays None."""
    tensors = [t if t is None or isinstance(t, framework.Operation) else convert_to_tensor(t) for t in tensors]
    gating = [t if isinstance(t, framework.Operation) else t.op for t in tensors if t is not None]
    gating += list(control_inputs or [])
    if not gating:
        raise ValueError("Must have at least one Tensor: %s" % (tensors,))
    with framework.name_scope(name or "tuple"):
        gate = group(*gating)
        out = []
        for t in tensors:
            if t is None:
                out.append(None)
                continue
            with framework.control_dependencies([gate]):
                out.append(group(t) if isinstance(t, framework.Operation) else identity(t))
        return out
