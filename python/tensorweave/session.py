"""tf.Session: runs fetches (nested lists, tuples, dicts of tensors, ops, variables and
names) with feeds (NumPy arrays, Python scalars, nested lists) in this process or on a
cluster (target "grpc://host:port"). The step runs with the GIL released."""
import collections
import threading

import numpy as np

from tensorweave import _core, dtypes
from tensorweave.config import ConfigProto, RunOptions  # noqa: F401 - tf.ConfigProto lives in session.
from tensorweave.security import _security_to_core
from tensorweave.framework import Operation, Tensor, get_default_graph, to_numpy


_session_state = threading.local()


def _session_stack():
    if not hasattr(_session_state, "sessions"):
        _session_state.sessions = []
    return _session_state.sessions


def get_default_session():
    stack = _session_stack()
    return stack[-1] if stack else None


def _session_for(session, graph):
    session = session or get_default_session()
    if session is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. "
                         "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    if session.graph is not graph:
        raise ValueError("Cannot use the given session to evaluate tensor: "
                         "the tensor's graph is different from the session's graph.")
    return session


class _DefaultSession:
    def __init__(self, session):
        self._session = session

    def __enter__(self):
        _session_stack().append(self._session)
        return self._session

    def __exit__(self, *exc):
        _session_stack().pop()


class _FetchPlan:
    """Flattens nested fetches into unique tensor names and op names, and rebuilds the
    structure from the results (None for ops, as TensorFlow)."""

    def __init__(self, graph, fetches):
        self._graph = graph
        self.tensor_names = []
        self.op_names = []
        self._tensor_index = {}
        self._structure = self._flatten(fetches)

    def _flatten(self, fetch):
        if isinstance(fetch, (list, tuple)) and not isinstance(fetch, str):
            items = [self._flatten(f) for f in fetch]
            if hasattr(fetch, "_fields"):  # A namedtuple.
                return ("namedtuple", type(fetch), items)
            return ("list" if isinstance(fetch, list) else "tuple", None, items)
        if isinstance(fetch, (dict, collections.OrderedDict)):
            return ("dict", type(fetch), [(k, self._flatten(v)) for k, v in fetch.items()])
        if hasattr(fetch, "_fetch_parts"):  # A composite (tf.SparseTensor): its value class and parts.
            cls, parts = fetch._fetch_parts()
            return ("namedtuple", cls, [self._flatten(p) for p in parts])
        if fetch is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        element = self._graph.as_graph_element(fetch)
        if isinstance(element, Operation):
            self.op_names.append(element.name)
            return ("op", None, None)
        if element.name not in self._tensor_index:
            self._tensor_index[element.name] = len(self.tensor_names)
            self.tensor_names.append(element.name)
        return ("tensor", None, self._tensor_index[element.name])

    def build(self, values):
        return self._build(self._structure, values)

    def _build(self, node, values):
        kind, cls, payload = node
        if kind == "tensor":
            return values[payload]
        if kind == "op":
            return None
        if kind == "list":
            return [self._build(n, values) for n in payload]
        if kind == "tuple":
            return tuple(self._build(n, values) for n in payload)
        if kind == "namedtuple":
            return cls(*[self._build(n, values) for n in payload])
        return cls((k, self._build(n, values)) for k, n in payload)


class Session:
    """A session over `graph` (the default graph). target: "" (this process) or
    "grpc://host:port" (a task of a cluster). config: a tf.ConfigProto. security (not in
    TensorFlow): a tw.train.TransportSecurity, the TLS files and cluster token presented to
    a grpc:// target."""

    def __init__(self, target="", graph=None, config=None, security=None):
        self._graph = graph or get_default_graph()
        self._target = target.decode() if isinstance(target, bytes) else target
        core_config = (config or ConfigProto())._to_core()
        core_config.security = _security_to_core(security)
        self._core = _core.Session(self._graph._core, self._target, core_config)
        self._closed = False
        self._default_graph_context = None
        self._default_session_context = None

    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        """The session graph's GraphDef message (TF1 programs write it with write_graph)."""
        return self._graph.as_graph_def()

    @property
    def sess_str(self):
        return self._target

    def as_default(self):
        return _DefaultSession(self)

    def list_devices(self):
        return self._core.list_devices()

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs one step; returns the fetches' values in the fetches' structure (NumPy arrays,
        NumPy scalars for scalars, None for ops)."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        plan = _FetchPlan(self._graph, fetches)
        feeds = self._feeds(feed_dict)
        if not plan.tensor_names and not plan.op_names:
            return plan.build([])
        timeout_ms = _run_timeout_ms(options)
        if run_metadata is None:
            return plan.build(self._core.run(feeds, plan.tensor_names, plan.op_names, timeout_ms))
        trace_level = int(options.trace_level) if options is not None else RunOptions.NO_TRACE
        values, metadata = self._core.run_with_metadata(feeds, plan.tensor_names, plan.op_names, timeout_ms,
                                                        trace_level)
        run_metadata.ParseFromString(metadata)
        return plan.build(values)

    def _feeds(self, feed_dict):
        return [(element.name, array) for element, array in _feed_arrays(self._graph, feed_dict)]

    def close(self):
        if not self._closed:
            self._closed = True
            self._core.close()

    def __enter__(self):
        self._default_graph_context = self._graph.as_default()
        self._default_graph_context.__enter__()
        self._default_session_context = self.as_default()
        self._default_session_context.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._default_session_context.__exit__(exc_type, exc, tb)
        self._default_graph_context.__exit__(exc_type, exc, tb)
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # pylint: disable=broad-except - nothing to report to at teardown.
            pass


class _SessionView(Session):
    """A session owned by C++ (the one a MonitoredTrainingSession gives its hooks): runs
    like a Session; closing it is left to its owner."""

    def __init__(self, core, graph, target):  # pylint: disable=super-init-not-called
        self._graph = graph
        self._target = target
        self._core = core
        self._closed = False
        self._default_graph_context = None
        self._default_session_context = None

    def close(self):
        self._closed = True


class InteractiveSession(Session):
    """A Session that makes itself the default session on creation."""

    def __init__(self, target="", graph=None, config=None, security=None):
        super().__init__(target, graph, config, security)
        self._default_session_context = self.as_default()
        self._default_session_context.__enter__()

    def close(self):
        if not self._closed and self._default_session_context is not None:
            stack = _session_stack()
            if self in stack:
                stack.remove(self)
        super().close()


def _feed_arrays(graph, feed_dict):
    """[(fed Tensor, NumPy array of its dtype)] for a feed_dict, validated as TensorFlow does."""
    feeds = []
    for key, value in (feed_dict or {}).items():
        if hasattr(key, "_fetch_parts"):  # A composite (tf.SparseTensor): each part from the value's.
            feeds.extend(_feed_arrays(graph, dict(zip(key._fetch_parts()[1], value))))
            continue
        element = graph.as_graph_element(key)
        if not isinstance(element, Tensor):
            raise TypeError("Cannot interpret feed_dict key as Tensor: %r is an operation" % (key,))
        if isinstance(value, (Tensor, Operation)) or hasattr(value, "_as_graph_element"):
            raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values "
                            "include Python scalars, strings, lists, numpy ndarrays, or TensorHandles.")
        try:
            array = to_numpy(value, element.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError("Cannot feed value %s to Tensor '%s' of dtype %s: %s"
                            % (_short(value), element.name, element.dtype.name, e)) from None
        if not element.shape.ndims is None and not _shape_fits(element.shape.dims, array.shape):
            raise ValueError("Cannot feed value of shape %s for Tensor '%s', which has shape %s"
                             % (tuple(array.shape), element.name, element.shape.dims))
        feeds.append((element, array))
    return feeds


def _run_timeout_ms(options):
    """RunOptions.timeout_in_ms (0: the session's operation_timeout_in_ms)."""
    if options is None:
        return 0
    if not isinstance(options, RunOptions):
        raise TypeError("options must be a tf.RunOptions, not %r" % (options,))
    return options._timeout_ms()


def _shape_fits(dims, shape):
    return len(dims) == len(shape) and all(d is None or d == s for d, s in zip(dims, shape))


def _short(value):
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."
