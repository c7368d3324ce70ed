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


def _int_or_none(value):
    return None if value is None else int(value)


class DeviceSpec:
    """TF 1's tf.DeviceSpec (DeviceSpecV1): a device's job, replica, task, device type and index,
    mutable, parsed from and printed as a device string ("/job:ps/task:1/device:GPU:0")."""

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job, self.replica, self.task = job, replica, task
        self.device_type, self.device_index = device_type, device_index

    job = property(lambda self: self._job, lambda self, v: setattr(self, "_job", None if v is None else str(v)))
    replica = property(lambda self: self._replica, lambda self, v: setattr(self, "_replica", _int_or_none(v)))
    task = property(lambda self: self._task, lambda self, v: setattr(self, "_task", _int_or_none(v)))
    device_index = property(lambda self: self._device_index,
                            lambda self, v: setattr(self, "_device_index", _int_or_none(v)))

    @property
    def device_type(self):
        return self._device_type

    @device_type.setter
    def device_type(self, value):
        # As TF: the legacy lower-case "cpu" / "gpu" are upper-cased, other types kept.
        self._device_type = value.upper() if value in ("cpu", "gpu") else (None if value is None else str(value))

    def _fields(self):
        return (self.job, self.replica, self.task, self.device_type, self.device_index)

    @staticmethod
    def _components(spec):
        fields = parse(spec)
        device_type = device_index = None
        if "device" in fields:
            device_type, _, index = fields["device"].partition(":")
            device_index = None if index in ("", "*") else int(index)
        return fields.get("job"), fields.get("replica"), fields.get("task"), device_type, device_index

    def to_string(self):
        out = [("/%s:%s" % (key, value)) for key, value in zip(_FIELDS[:3], self._fields()[:3]) if value is not None]
        if self.device_type is not None:
            out.append("/device:%s:%s" % (self.device_type, "*" if self.device_index is None else self.device_index))
        return "".join(out)

    @classmethod
    def from_string(cls, spec):
        return cls(*cls._components(spec))

    def parse_from_string(self, spec):
        self.job, self.replica, self.task, self.device_type, self.device_index = self._components(spec)
        return self

    def _merged(self, dev):
        return [theirs if theirs is not None else mine for mine, theirs in zip(self._fields(), dev._fields())]

    def merge_from(self, dev):
        """Takes each field `dev` sets."""
        self.job, self.replica, self.task, self.device_type, self.device_index = self._merged(dev)

    def make_merged_spec(self, dev):
        return self.__class__(*self._merged(dev))

    def replace(self, **kwargs):
        fields = dict(zip(("job", "replica", "task", "device_type", "device_index"), self._fields()))
        fields.update(kwargs)
        return self.__class__(**fields)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return "<DeviceSpec %s>" % self.to_string()
