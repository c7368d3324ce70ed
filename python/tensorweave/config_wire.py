"""Bytes for tf.ConfigProto & co. (python/tensorweave/config.py): each _Message converts
field by field to and from its protobuf class generated from proto/config.proto (TF's
field numbers), so SerializeToString / ParseFromString interchange with TensorFlow's."""
from tensorweave.proto import config_pb2

# The generated class of each config.py message, by the Python class's name.
_PB2 = {"ThreadPoolOptionProto": config_pb2.ThreadPoolOptionProto,
        "OptimizerOptions": config_pb2.OptimizerOptions, "GraphOptions": config_pb2.GraphOptions,
        "GPUOptions": config_pb2.GPUOptions, "_GPUExperimental": config_pb2.GPUOptions.Experimental,
        "RPCOptions": config_pb2.RPCOptions, "ConfigProto": config_pb2.ConfigProto,
        "_ConfigExperimental": config_pb2.ConfigProto.Experimental, "RunOptions": config_pb2.RunOptions,
        "RunMetadata": config_pb2.RunMetadata, "StepWireBytes": config_pb2.StepWireBytes}


def _is_message_spec(spec):
    from tensorweave import config
    return isinstance(spec, type) and issubclass(spec, config._Message)


def to_pb2(message):
    """The generated message holding `message`'s fields."""
    from tensorweave import config
    out = _PB2[type(message).__name__]()
    for name, spec in message._FIELDS.items():
        value = getattr(message, name)
        if config._is_pb2(spec):
            getattr(out, name).CopyFrom(value)
        elif _is_message_spec(spec):
            if value._set_fields():
                getattr(out, name).CopyFrom(to_pb2(value))
        elif isinstance(spec, config._Repeated):
            if _is_message_spec(spec.kind):
                getattr(out, name).extend(to_pb2(v) for v in value)
            else:
                getattr(out, name).extend(value)
        elif isinstance(spec, config._Map):
            getattr(out, name).update(value)
        else:
            setattr(out, name, value)
    return out


def from_pb2(pb, message):
    """Sets `message`'s fields (a config.py _Message) from the generated message `pb`."""
    from tensorweave import config
    for name, spec in message._FIELDS.items():
        value = getattr(pb, name)
        if config._is_pb2(spec):
            getattr(message, name).CopyFrom(value)
        elif _is_message_spec(spec):
            from_pb2(value, getattr(message, name))
        elif isinstance(spec, config._Repeated):
            items = getattr(message, name)
            items[:] = []
            for v in value:
                items.append(from_pb2(v, spec.kind()) if _is_message_spec(spec.kind) else v)
        elif isinstance(spec, config._Map):
            mine = getattr(message, name)
            mine.clear()
            mine.update(dict(value))
        else:
            setattr(message, name, value)
    return message
