"""tf.ConfigProto, tf.GPUOptions, tf.GraphOptions, tf.OptimizerOptions, tf.RunOptions and
tf.RunMetadata: TensorFlow's session option messages with their field names and defaults,
as the protobuf classes behave (keywords, nested messages set in place, repeated fields as
lists, maps as dicts, unknown fields refused).

Honoured: device_filters, device_count["CPU"], allow_soft_placement, log_device_placement,
inter/intra_op_parallelism_threads, operation_timeout_in_ms, use_per_session_threads (each
session has its own pools already), RunOptions.timeout_in_ms and RunOptions.trace_level
(any but NO_TRACE fills RunMetadata.step_stats, as in TF). Every other field is
accepted; a session given a value other than the default warns once, naming the field."""
import numbers

from tensorweave import _core
from tensorweave.proto import step_stats_pb2 as _step_stats_pb2
from tensorweave import tf_logging as logging
from tensorweave.security import _positive_int


class _UnknownFieldError(ValueError, TypeError):
    """Protobuf's error for an unknown keyword (ValueError); also a TypeError, as a keyword
    a function does not take."""


class _Repeated:
    def __init__(self, kind):
        self.kind = kind


class _Map:
    def __init__(self, key_kind, value_kind):
        self.key_kind = key_kind
        self.value_kind = value_kind


def _is_pb2(spec):
    """A field whose value is a generated protobuf message (RunMetadata.step_stats)."""
    return isinstance(spec, type) and hasattr(spec, "DESCRIPTOR")


_KIND_NAMES = {bool: "bool", int: "int", float: "float, int", str: "str, bytes"}


def _check_scalar(kind, value, where):
    ok = {bool: lambda v: isinstance(v, (bool, numbers.Integral)),
          int: lambda v: isinstance(v, numbers.Integral),
          float: lambda v: isinstance(v, numbers.Real),
          str: lambda v: isinstance(v, (str, bytes))}[kind]
    if not ok(value):
        raise TypeError("%r has type %s, but expected one of: %s (field %s)"
                        % (value, type(value).__name__, _KIND_NAMES[kind], where))
    if kind is str and isinstance(value, bytes):
        return value.decode("utf-8")
    return kind(value)


class _Message:
    """A protobuf-like message: _FIELDS maps each field to its default scalar, a _Message
    subclass, a _Repeated or a _Map."""
    _FIELDS = {}

    def __init__(self, **kwargs):
        for name, spec in self._FIELDS.items():
            object.__setattr__(self, name, self._default(spec))
        for name, value in kwargs.items():
            if name not in self._FIELDS:
                raise _UnknownFieldError('Protocol message %s has no "%s" field.' % (type(self).__name__, name))
            spec = self._FIELDS[name]
            if _is_pb2(spec):
                getattr(self, name).CopyFrom(value)
            elif isinstance(spec, type) and issubclass(spec, _Message):
                if isinstance(value, dict):
                    value = spec(**value)
                if not isinstance(value, spec):
                    raise TypeError("Parameter to initialize message field %s must be a %s or a dict, not %r"
                                    % (name, spec.__name__, value))
                getattr(self, name).CopyFrom(value)
            elif isinstance(spec, _Repeated):
                if isinstance(value, (str, bytes)):
                    raise TypeError("%s: a repeated field takes a list, not %r" % (name, value))
                getattr(self, name).extend(_check_scalar(spec.kind, v, name) for v in value)
            elif isinstance(spec, _Map):
                getattr(self, name).update({_check_scalar(spec.key_kind, k, name): _check_scalar(spec.value_kind, v, name)
                                            for k, v in dict(value).items()})
            else:
                setattr(self, name, value)

    @staticmethod
    def _default(spec):
        if _is_pb2(spec) or isinstance(spec, type) and issubclass(spec, _Message):
            return spec()
        if isinstance(spec, _Repeated):
            return []
        if isinstance(spec, _Map):
            return {}
        return spec

    def __setattr__(self, name, value):
        spec = self._FIELDS.get(name)
        if spec is None:
            raise AttributeError('Assignment not allowed (no field "%s" in protocol message object %s).'
                                 % (name, type(self).__name__))
        if not isinstance(spec, (bool, int, float, str)):
            raise AttributeError('Assignment not allowed to field "%s" in protocol message object.' % name)
        object.__setattr__(self, name, _check_scalar(type(spec), value, name))

    def CopyFrom(self, other):  # noqa: N802 - protobuf's name.
        if not isinstance(other, type(self)):
            raise TypeError("Parameter to CopyFrom() must be instance of same class: expected %s got %s."
                            % (type(self).__name__, type(other).__name__))
        for name, spec in self._FIELDS.items():
            value = getattr(other, name)
            if _is_pb2(spec) or isinstance(spec, type) and issubclass(spec, _Message):
                getattr(self, name).CopyFrom(value)
            elif isinstance(spec, _Repeated):
                getattr(self, name)[:] = list(value)
            elif isinstance(spec, _Map):
                mine = getattr(self, name)
                mine.clear()
                mine.update(value)
            else:
                object.__setattr__(self, name, value)

    # Bytes with TensorFlow's field numbers (proto/config.proto, through config_wire.py).
    def SerializeToString(self, deterministic=False):  # noqa: N802 - protobuf's name.
        from tensorweave import config_wire
        return config_wire.to_pb2(self).SerializeToString(deterministic=deterministic)

    def ParseFromString(self, data):  # noqa: N802 - protobuf's name.
        from tensorweave import config_wire
        config_wire.from_pb2(config_wire._PB2[type(self).__name__].FromString(data), self)
        return len(data)

    @classmethod
    def FromString(cls, data):  # noqa: N802 - protobuf's name.
        message = cls()
        message.ParseFromString(data)
        return message

    def _set_fields(self, prefix=""):
        """The dotted names of the fields that differ from their defaults."""
        changed = []
        for name, spec in self._FIELDS.items():
            value = getattr(self, name)
            if _is_pb2(spec):
                if value.ByteSize():
                    changed.append(prefix + name)
            elif isinstance(spec, type) and issubclass(spec, _Message):
                changed.extend(value._set_fields(prefix + name + "."))
            elif value != self._default(spec):
                changed.append(prefix + name)
        return changed

    def __eq__(self, other):
        return type(self) is type(other) and all(getattr(self, n) == getattr(other, n) for n in self._FIELDS)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%r" % (n, getattr(self, n))
                                                          for n in self._FIELDS if n in self._set_fields_top()))

    def _set_fields_top(self):
        return {name.split(".")[0] for name in self._set_fields()}


class ThreadPoolOptionProto(_Message):
    _FIELDS = {"num_threads": 0, "global_name": ""}


class OptimizerOptions(_Message):
    L1, L0 = 0, -1                          # Level.
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2  # GlobalJitLevel.
    _FIELDS = {"do_common_subexpression_elimination": False, "do_constant_folding": False,
               "max_folded_constant_in_bytes": 0, "do_function_inlining": False, "opt_level": 0,
               "global_jit_level": 0, "cpu_global_jit": False}


class GraphOptions(_Message):
    _FIELDS = {"enable_recv_scheduling": False, "optimizer_options": OptimizerOptions, "build_cost_model": 0,
               "build_cost_model_after": 0, "infer_shapes": False, "place_pruned_graph": False,
               "enable_bfloat16_sendrecv": False, "timeline_step": 0}


class _GPUExperimental(_Message):
    _FIELDS = {"use_unified_memory": False, "num_dev_to_dev_copy_streams": 0, "collective_ring_order": "",
               "timestamped_allocator": False, "kernel_tracker_max_interval": 0, "kernel_tracker_max_bytes": 0,
               "kernel_tracker_max_pending": 0, "internal_fragmentation_fraction": 0.0,
               "use_cuda_malloc_async": False, "disallow_retry_on_allocation_failure": False}


class GPUOptions(_Message):
    Experimental = _GPUExperimental
    _FIELDS = {"per_process_gpu_memory_fraction": 0.0, "allow_growth": False, "allocator_type": "",
               "deferred_deletion_bytes": 0, "visible_device_list": "", "polling_active_delay_usecs": 0,
               "polling_inactive_delay_msecs": 0, "force_gpu_compatible": False, "experimental": _GPUExperimental}


class RPCOptions(_Message):
    _FIELDS = {"use_rpc_for_inprocess_master": False, "compression_algorithm": "", "compression_level": 0,
               "cache_rpc_response": False, "disable_session_connection_sharing": False,
               "num_channels_per_target": 0}


class _ConfigExperimental(_Message):
    _FIELDS = {"collective_group_leader": "", "executor_type": "", "recv_buf_max_chunk": 0,
               "use_numa_affinity": False, "collective_deterministic_sequential_execution": False,
               "collective_nccl": False, "share_session_state_in_clusterspec_propagation": False,
               "disable_thread_spinning": False, "share_cluster_devices_in_session": False,
               "optimize_for_static_graph": False, "enable_mlir_bridge": False,
               "enable_mlir_graph_optimization": False, "disable_output_partition_graphs": False,
               "xla_fusion_autotuner_thresh": 0, "use_tfrt": False, "disable_functional_ops_lowering": False,
               "xla_prefer_single_graph_cluster": False}


class ConfigProto(_Message):
    """Session options (tf.ConfigProto). max_tensor_bytes is tensorweave's, not TF's: a
    session in this process refuses a kernel output bigger than this (default 4 GiB)."""
    Experimental = _ConfigExperimental
    _FIELDS = {"device_count": _Map(str, int), "intra_op_parallelism_threads": 0, "inter_op_parallelism_threads": 0,
               "use_per_session_threads": False, "session_inter_op_thread_pool": _Repeated(ThreadPoolOptionProto),
               "placement_period": 0, "device_filters": _Repeated(str), "gpu_options": GPUOptions,
               "allow_soft_placement": False, "log_device_placement": False, "graph_options": GraphOptions,
               "operation_timeout_in_ms": 0, "rpc_options": RPCOptions, "isolate_session_state": False,
               "share_cluster_devices_in_session": False, "experimental": _ConfigExperimental}

    def __init__(self, max_tensor_bytes=None, **kwargs):
        pools = kwargs.pop("session_inter_op_thread_pool", None)
        super().__init__(**kwargs)
        object.__setattr__(self, "max_tensor_bytes", max_tensor_bytes)
        for pool in pools or []:
            if not isinstance(pool, ThreadPoolOptionProto):
                raise TypeError("session_inter_op_thread_pool takes ThreadPoolOptionProto messages, not %r" % (pool,))
            self.session_inter_op_thread_pool.append(pool)

    def __setattr__(self, name, value):
        if name == "max_tensor_bytes":
            object.__setattr__(self, name, value)
        else:
            super().__setattr__(name, value)

    def _to_core(self):
        """The C++ SessionConfig; warns once for each field set that has no effect here."""
        _warn_ignored("ConfigProto", self, _HONOURED_CONFIG_FIELDS)
        gpus = self.device_count.get("GPU", 0)
        if gpus:
            _warn_once("ConfigProto.device_count['GPU']", "ConfigProto.device_count['GPU'] = %d is accepted and "
                       "ignored: tensorweave runs on CPU devices only" % gpus)
        if self.operation_timeout_in_ms < 0:
            raise ValueError("ConfigProto.operation_timeout_in_ms must not be negative, got %d"
                             % self.operation_timeout_in_ms)
        config = _core.SessionConfig()
        config.log_device_placement = bool(self.log_device_placement)
        config.allow_soft_placement = bool(self.allow_soft_placement)
        config.inter_op_threads = int(self.inter_op_parallelism_threads)
        config.intra_op_threads = int(self.intra_op_parallelism_threads)
        config.cpu_device_count = int(self.device_count.get("CPU", 1))
        config.device_filters = list(self.device_filters)
        config.operation_timeout_ms = int(self.operation_timeout_in_ms)
        if self.max_tensor_bytes is not None:
            config.max_tensor_bytes = _positive_int("max_tensor_bytes", self.max_tensor_bytes)
        return config


_HONOURED_CONFIG_FIELDS = {"device_count", "intra_op_parallelism_threads", "inter_op_parallelism_threads",
                           "use_per_session_threads", "device_filters", "allow_soft_placement",
                           "log_device_placement", "operation_timeout_in_ms"}


class RunOptions(_Message):
    """Options of one Session.run (tf.RunOptions): timeout_in_ms is honoured."""
    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3
    _FIELDS = {"trace_level": 0, "timeout_in_ms": 0, "inter_op_thread_pool": 0, "output_partition_graphs": False,
               "report_tensor_allocations_upon_oom": False}

    def _timeout_ms(self):
        _warn_ignored("RunOptions", self, {"timeout_in_ms", "trace_level"})
        if self.timeout_in_ms < 0:
            raise ValueError("RunOptions.timeout_in_ms must not be negative, got %d" % self.timeout_in_ms)
        return int(self.timeout_in_ms)


class StepWireBytes(_Message):
    """What one step moved between tasks (tensorweave's own; proto/config.proto)."""
    _FIELDS = {"tensor_bytes": 0, "run_graph_bytes": 0}


class RunMetadata(_Message):
    """What a run reports (tf.RunMetadata). step_stats (TF's StepStats message) is filled by
    a run whose RunOptions.trace_level is not NO_TRACE; partition_graphs is
    not collected; wire_bytes (tensorweave's) is filled by every run on a cluster's session."""
    _FIELDS = {"step_stats": _step_stats_pb2.StepStats, "wire_bytes": StepWireBytes}


_warned = set()


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        logging.warning(message)


def _warn_ignored(message_name, message, honoured):
    for field in message._set_fields():
        if field.split(".")[0] not in honoured:
            _warn_once(message_name + "." + field, "%s.%s is accepted and ignored by tensorweave"
                       % (message_name, field))
