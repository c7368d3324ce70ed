"""tf.einsum (tf.linalg.einsum): the Einsum op for one or two inputs; more inputs are
contracted pairwise from the left, each step keeping the labels that later inputs or the
output still need. Without "->" the output is NumPy's implicit one: "..." first, then the
labels that appear once, in alphabetical order."""
import re

from tensorweave.framework import _op_output, convert_to_tensor

_LABELS = re.compile(r"\.\.\.|[A-Za-z]")


def _labels(subscript):
    return _LABELS.findall(subscript)


def _implicit_output(inputs):
    labels = [lab for s in inputs for lab in _labels(s)]
    once = sorted({lab for lab in labels if lab != "..." and labels.count(lab) == 1})
    return ("..." if "..." in labels else "") + "".join(once)


def einsum(equation, *inputs, **kwargs):
    """A tensor contraction over the subscripts of `equation` ("ij,jk->ik", "...ij,...jk->...ik")."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"invalid keyword arguments for einsum: {', '.join(sorted(kwargs))}")
    equation = equation.replace(" ", "")
    lhs, _, out = equation.partition("->")
    subs = lhs.split(",")
    if "->" not in equation:
        out = _implicit_output(subs)
    if len(subs) != len(inputs):
        raise ValueError(f"einsum equation '{equation}' has {len(subs)} input subscripts for {len(inputs)} inputs")
    tensors = [convert_to_tensor(x) for x in inputs]
    while len(tensors) > 2:
        later = set(out) | {lab for s in subs[2:] for lab in _labels(s)}
        seen = []
        for lab in _labels(subs[0]) + _labels(subs[1]):
            if (lab == "..." or lab in later) and lab not in seen:
                seen.append(lab)
        step = "".join(seen)
        tensors[:2] = [_op_output("Einsum", tensors[:2], {"equation": f"{subs[0]},{subs[1]}->{step}"}, "Einsum")]
        subs[:2] = [step]
    return _op_output("Einsum", tensors, {"equation": f"{','.join(subs)}->{out}"}, name or "Einsum")
