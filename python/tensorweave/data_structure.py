"""The nested structures of tf.data elements (tuples, lists, dicts, namedtuples of
tensors), flattened in TensorFlow's order (dict keys sorted) and rebuilt."""
import collections


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _dict_like(instance, items):
    """A dict of instance's type and key order (OrderedDict, defaultdict), as TensorFlow's
    nest rebuilds one."""
    if type(instance) is dict:
        return dict(items)
    if isinstance(instance, collections.defaultdict):
        return type(instance)(instance.default_factory, items)
    return type(instance)(items)


def flatten(structure):
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (tuple, list)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_sequence_as(structure, flat):
    """`flat` (a list) in the shape of `structure`."""
    flat = list(flat)
    position = [0]

    def build(s):
        if isinstance(s, dict):
            built = {key: build(s[key]) for key in sorted(s)}  # leaves in flatten's order
            return _dict_like(s, [(key, built[key]) for key in s])
        if _is_namedtuple(s):
            return type(s)(*[build(item) for item in s])
        if isinstance(s, (tuple, list)):
            return type(s)(build(item) for item in s)
        leaf = flat[position[0]]
        position[0] += 1
        return leaf

    result = build(structure)
    if position[0] != len(flat):
        raise ValueError("Structure had %d elements, but flat_sequence had %d elements." % (position[0], len(flat)))
    return result


def map_structure(fn, structure):
    return pack_sequence_as(structure, [fn(leaf) for leaf in flatten(structure)])


def assert_same_structure(a, b):
    def shape(s):
        if isinstance(s, dict):
            return ("dict", tuple(sorted(s)), tuple(shape(s[k]) for k in sorted(s)))
        if isinstance(s, (tuple, list)):
            return ("seq", len(s), tuple(shape(x) for x in s))
        return "leaf"
    if shape(a) != shape(b):
        raise TypeError("The two structures don't have the same nested structure.\n\nFirst structure: %s\n\n"
                        "Second structure: %s" % (a, b))
