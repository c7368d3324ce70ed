"""Device strings as TensorFlow merges them: "/job:ps/task:1" and "/device:CPU:0" (or the
legacy "/cpu:0") parsed into fields; a scope's device fills only the fields a node's own
device leaves unset (tf.import_graph_def applies the device scopes this way)."""
import re

_FIELDS = ("job", "replica", "task", "device")
_LEGACY = re.compile(r"^(cpu|gpu):(\d+|\*)$", re.IGNORECASE)


def parse(device):
    """{"job": "ps", "task": "1", "device": "CPU:0"} for "/job:ps/task:1/device:CPU:0"."""
    fields = {}
    for part in (device or "").split("/"):
        if not part:
            continue
        legacy = _LEGACY.match(part)
        if legacy:
            fields["device"] = "%s:%s" % (legacy.group(1).upper(), legacy.group(2))
            continue
        key, _, value = part.partition(":")
        if key not in _FIELDS or not value:
            raise ValueError("Unknown attribute: '%s' in '%s'" % (part, device))
        fields[key] = value
    return fields


def to_string(fields):
    return "".join("/%s:%s" % (key, fields[key]) for key in _FIELDS if key in fields)


def fill_unset(device, scope_device):
    """`device` with the fields it lacks taken from `scope_device`."""
    fields = parse(device)
    for key, value in parse(scope_device).items():
        fields.setdefault(key, value)
    return to_string(fields)
