"""Graphs, operations and tensors (tf.Graph, tf.Operation, tf.Tensor), the default-graph
stack and the graph scopes (name_scope, device, control_dependencies), collections, and
the conversion of Python and NumPy values to tensors."""
import contextlib
import threading

import numpy as np

from tensorweave import _core
from tensorweave import dtypes
from tensorweave.dimension import Dimension


class GraphKeys:
    """Standard collection names (tf.GraphKeys)."""
    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    GLOBAL_STEP = "global_step"
    TRAIN_OP = "train_op"
    LOSSES = "losses"
    SUMMARIES = "summaries"
    REGULARIZATION_LOSSES = "regularization_losses"
    UPDATE_OPS = "update_ops"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    QUEUE_RUNNERS = "queue_runners"
    SAVEABLE_OBJECTS = "saveable_objects"
    MODEL_VARIABLES = "model_variables"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"


# Collections the C++ graph keeps (of variable handles): read back as Variables.
_CORE_VARIABLE_COLLECTIONS = (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES,
                              GraphKeys.GLOBAL_STEP, GraphKeys.LOCAL_VARIABLES)


class TensorShape:
    """A static shape: dims is None for an unknown rank, else a list with None for unknown dims."""

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (int, np.integer)):
            self._dims = [int(dims)]
        else:
            dims = [d.value if isinstance(d, Dimension) else d for d in dims]
            self._dims = [None if d is None or d == -1 else int(d) for d in dims]

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        return self._dims is not None and None not in self._dims

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        return int(np.prod(self._dims, dtype=np.int64))

    def _as_core(self):
        return _core.PartialShape(self._dims)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        return iter(self.as_list())

    def __getitem__(self, key):
        return self.as_list()[key]

    def __eq__(self, other):
        try:
            other = other if isinstance(other, TensorShape) else TensorShape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self):
        return hash(None if self._dims is None else tuple(self._dims))

    def __repr__(self):
        return "TensorShape(%s)" % ("<unknown>" if self._dims is None else self._dims)


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


class Operation:
    """A node of a graph (tf.Operation)."""

    def __init__(self, graph, core_op):
        self._graph = graph
        self._core = core_op

    name = property(lambda self: self._core.name)
    type = property(lambda self: self._core.type)
    device = property(lambda self: self._core.device)
    graph = property(lambda self: self._graph)

    @property
    def outputs(self):
        return [Tensor(self._graph, self._core.output(i)) for i in range(self._core.num_outputs)]

    def values(self):
        return tuple(self.outputs)

    @property
    def inputs(self):
        return [Tensor(self._graph, o) for o in self._core.inputs]

    @property
    def control_inputs(self):
        return [Operation(self._graph, o) for o in self._core.control_inputs]

    @property
    def node_def(self):
        """This node as a NodeDef message (tensorweave.core.framework.node_def_pb2)."""
        from tensorweave.proto import graph_pb2
        node_def = graph_pb2.NodeDef()
        node_def.ParseFromString(_core.operation_node_def(self._core))
        return node_def

    def get_attr(self, name):
        """The value of attr `name` as TF returns it (graph_attrs.attr_value_to_python)."""
        from tensorweave import graph_attrs
        return graph_attrs.get_attr(self.node_def, name)

    def run(self, feed_dict=None, session=None):
        """Runs this op in `session` (the default session when None)."""
        from tensorweave import session as session_lib
        session_lib._session_for(session, self._graph).run(self, feed_dict=feed_dict)

    def __eq__(self, other):
        return isinstance(other, Operation) and self._core == other._core

    def __hash__(self):
        return hash(self._core)

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self.name, self.type)


class Tensor:
    """An output of an operation (tf.Tensor). Arithmetic operators build ops."""

    def __init__(self, graph, core_output):
        self._graph = graph
        self._core = core_output

    name = property(lambda self: self._core.name)
    graph = property(lambda self: self._graph)
    value_index = property(lambda self: self._core.index)
    dtype = property(lambda self: dtypes.as_dtype(self._core.dtype))

    @property
    def op(self):
        return Operation(self._graph, self._core.op)

    @property
    def device(self):
        return self._core.op.device

    @property
    def shape(self):
        return TensorShape(self._core.shape)

    def get_shape(self):
        return self.shape

    def eval(self, feed_dict=None, session=None):
        """The value of this tensor in `session` (the default session when None)."""
        from tensorweave import session as session_lib
        return session_lib._session_for(session, self._graph).run(self, feed_dict=feed_dict)

    def __eq__(self, other):
        return isinstance(other, Tensor) and self._core == other._core

    def __hash__(self):
        return hash(self._core)

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed. "
                        "Use `if t is not None:` or run the graph to get its value.")

    def __iter__(self):
        raise TypeError("Tensor objects are only iterable when eager execution is enabled.")

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, self.shape, self.dtype.name)


class Graph:
    """A dataflow graph (tf.Graph) over the C++ tw::Graph."""

    def __init__(self):
        self._core = _core.Graph()
        self._collections = {}

    def as_default(self):
        """A context manager making this the default graph of the current thread."""
        return _default_graph_context(self)

    # ---- scopes
    @contextlib.contextmanager
    def name_scope(self, name):
        """A new scope "name" inside the current one: "name_1", "name_2", ... when that
        name was used (by a scope or an op), as TensorFlow. "a/b/" re-enters exactly that
        scope and "" or None returns to the top level."""
        if name and not name.endswith("/"):
            current = self._core.current_name_scope()
            name = self._unique_scope_name(current + "/" + name if current else name) + "/"
        scope = self._core.name_scope(name or "")
        try:
            current = self._core.current_name_scope()
            yield current + "/" if current else ""
        finally:
            scope.close()

    def get_name_scope(self):
        return self._core.current_name_scope()

    def _unique_scope_name(self, full_name):
        used = self.__dict__.setdefault("_used_scope_names", {})
        count = used.get(full_name, 0)
        candidate = full_name
        while True:
            if count:
                candidate = "%s_%d" % (full_name, count)
            if candidate not in used and self._core.unique_name(candidate) == candidate:
                break
            count += 1
        used[full_name] = count + 1
        used.setdefault(candidate, 1)
        return candidate

    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Device scope: a device string, a DeviceSpec-like string, or a function of the op
        (which sees .type and .name) returning a device string or None."""
        spec = device_name_or_function
        if spec is None:
            yield
            return
        native = getattr(spec, "_native_device_function", None)
        if native is not None:  # replica_device_setter: applied in C++.
            scope = _core.device_function_scope(self._core, native)
        elif callable(spec):
            scope = self._core.device_function(spec)
        else:
            scope = self._core.device(str(spec))
        # Also kept here: tf.import_graph_def applies the scopes to the nodes it imports.
        stack = self.__dict__.setdefault("_device_stack", [])
        stack.append(spec)
        try:
            yield
        finally:
            stack.pop()
            scope.close()

    @contextlib.contextmanager
    def colocate_with(self, op):
        scope = self._core.colocate_with(_as_operation(op)._core)
        try:
            yield
        finally:
            scope.close()

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        if control_inputs is None:  # TF: None clears the enclosing dependencies.
            with self._init_scope():
                yield
            return
        ops = [_as_operation(c)._core for c in control_inputs]
        # [ops, open core scope]: _init_scope closes and reopens the core scopes.
        entry = [ops, self._core.control_dependencies(ops)]
        stack = self.__dict__.setdefault("_control_stack", [])
        stack.append(entry)
        try:
            yield
        finally:
            stack.remove(entry)
            entry[1].close()

    @contextlib.contextmanager
    def _init_scope(self):
        """No control dependencies inside, as TF's init_scope: variables (and optimizer
        slots) made under tf.control_dependencies(update_ops) initialize on their own."""
        stack = self.__dict__.get("_control_stack", [])
        for entry in reversed(stack):
            entry[1].close()
        # The entries below this index are suspended (read by _active_control_inputs).
        outer_active_from = self.__dict__.get("_control_active_from", 0)
        self.__dict__["_control_active_from"] = len(stack)
        try:
            yield
        finally:
            self.__dict__["_control_active_from"] = outer_active_from
            for entry in stack:
                entry[1] = self._core.control_dependencies(entry[0])

    def _active_control_inputs(self):
        """The core ops of the open control_dependencies scopes (tf.import_graph_def adds
        them to every node it imports, as TF)."""
        stack = self.__dict__.get("_control_stack", [])
        active = stack[self.__dict__.get("_control_active_from", 0):]
        return [op for entry in active for op in entry[0]]

    def _has_control_dependencies(self):
        return bool(self.__dict__.get("_control_stack"))

    # ---- ops
    def create_op(self, op_type, inputs, attrs=None, name=None):
        """Adds one operation: `inputs` are tensors (or values converted to tensors), `attrs`
        a dict of Python values (type attrs are inferred from the inputs)."""
        context = self.__dict__.get("_control_flow_context")
        if context is not None:  # Inside a tf.cond branch (control_flow_ops.CondContext).
            return context.create_op(op_type, inputs, attrs, name)
        return self._create_op(op_type, inputs, attrs, name)

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Ops of the types in op_type_map made inside use the gradient function registered
        under the mapped name (tf.RegisterGradient), through their "_gradient_op_type" attr."""
        stack = self.__dict__.setdefault("_gradient_override_stack", [])
        stack.append(dict(op_type_map))
        try:
            yield
        finally:
            stack.pop()

    def _create_op(self, op_type, inputs, attrs=None, name=None):
        core_inputs = [convert_to_tensor(i)._core for i in inputs]
        for overrides in reversed(self.__dict__.get("_gradient_override_stack", [])):
            if op_type in overrides:
                attrs = dict(attrs or {}, _gradient_op_type=overrides[op_type])
                break
        core_attrs = {}
        for key, value in (attrs or {}).items():
            if isinstance(value, dtypes.DType):
                value = value._core
            elif isinstance(value, TensorShape):
                value = value._as_core()
            core_attrs[key] = value
        return Operation(self, self._core.add_operation(op_type, name or op_type, core_inputs, core_attrs))

    def get_operation_by_name(self, name):
        return Operation(self, self._core.operation(name))

    def get_tensor_by_name(self, name):
        return Tensor(self, self._core.tensor(name))

    def get_operations(self):
        return [Operation(self, op) for op in self._core.operations()]

    def as_graph_element(self, obj):
        """A Tensor or Operation for `obj`: a name ("op" or "op:k"), tensor, op or variable."""
        if isinstance(obj, str):
            if ":" in obj:
                return self.get_tensor_by_name(obj)
            return self.get_operation_by_name(obj)
        if isinstance(obj, (Tensor, Operation)):
            if obj.graph is not self:
                raise ValueError("%s is not an element of this graph." % (obj,))
            return obj
        if hasattr(obj, "_as_graph_element"):
            return obj._as_graph_element()
        raise TypeError("Can not convert a %s into a Tensor or Operation." % type(obj).__name__)

    def unique_name(self, name):
        return self._core.unique_name(name)

    # ---- collections
    def add_to_collection(self, name, value):
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        for name in ([names] if isinstance(names, str) else names):
            self.add_to_collection(name, value)

    def get_collection(self, name, scope=None):
        items = []
        if name in _CORE_VARIABLE_COLLECTIONS:
            from tensorweave import variables
            items = [variables.Variable._from_core(self, _core.Variable.from_handle(h))
                     for h in self._core.get_collection(name)]
        items += self._collections.get(name, [])
        if scope is not None:
            items = [i for i in items if getattr(i, "name", "").startswith(scope)]
        return items

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def get_all_collection_keys(self):
        return sorted(set(self._collections) | set(_CORE_VARIABLE_COLLECTIONS))

    # ---- seeds and serialization
    @property
    def seed(self):
        return self._core.seed or None

    @seed.setter
    def seed(self, value):
        self._core.seed = int(value)

    def as_graph_def(self, from_version=None, add_shapes=False):
        """The GraphDef message (tensorweave.core.framework.graph_pb2.GraphDef): the nodes
        added after version `from_version` (all when None), with "_output_shapes" attrs
        when `add_shapes`."""
        from tensorweave import graph_attrs
        return graph_attrs.graph_def_of(self, from_version, add_shapes)

    @property
    def graph_def_versions(self):
        return self.as_graph_def().versions

    @property
    def version(self):
        """The number of operations added so far (TF's counter: grows with each op)."""
        return self._core.num_operations

    def import_graph_def(self, serialized):
        """Adds a GraphDef (message or bytes) as it is: no prefix, no input map."""
        if not isinstance(serialized, (bytes, bytearray)):
            serialized = serialized.SerializeToString()
        self._core.import_graph_def(bytes(serialized))

    def _next_seeds(self, op_seed):
        return self._core.next_seeds(0 if op_seed is None else int(op_seed))

    def finalize(self):
        pass  # Graphs are not frozen; kept for programs that call it.


# ---- the default graph: one per process, replaced per thread by as_default()
_default_graph = Graph()
_thread_state = threading.local()


def _graph_stack():
    if not hasattr(_thread_state, "graphs"):
        _thread_state.graphs = []
    return _thread_state.graphs


@contextlib.contextmanager
def _default_graph_context(graph):
    stack = _graph_stack()
    stack.append(graph)
    try:
        yield graph
    finally:
        stack.remove(graph) if stack and stack[-1] is not graph else stack.pop()


def get_default_graph():
    stack = _graph_stack()
    return stack[-1] if stack else _default_graph


def reset_default_graph():
    """Replaces the global default graph (not allowed inside a `with g.as_default()`)."""
    global _default_graph
    if _graph_stack():
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs.")
    _default_graph = Graph()


def _find_operation(name):
    """The Operation `name` in the default graph, or None."""
    try:
        return get_default_graph().get_operation_by_name(name)
    except Exception:  # pylint: disable=broad-except - the name may be from another graph.
        return None


def name_scope(name, default_name=None, values=None):
    return get_default_graph().name_scope(name if name is not None else default_name)


def get_name_scope():
    return get_default_graph().get_name_scope()


def device(device_name_or_function):
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing=False):
    return get_default_graph().colocate_with(op)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


def set_random_seed(seed):
    get_default_graph().seed = seed


# ---- conversion of values to tensors

def _as_operation(x):
    if isinstance(x, Operation):
        return x
    if isinstance(x, Tensor):
        return x.op
    if hasattr(x, "_as_graph_element"):
        return _as_operation(x._as_graph_element())
    raise TypeError("Can not convert a %s into an Operation." % type(x).__name__)


def _python_value_dtype(array):
    """TensorFlow's dtypes for Python values: floats -> float32, ints -> int32 (int64 when
    they do not fit), complex -> complex128."""
    if array.dtype.kind == "f":
        return dtypes.float32
    if array.dtype.kind == "c":
        return dtypes.complex128
    if array.dtype.kind in "iu":
        if array.size == 0 or (array.min() >= np.iinfo(np.int32).min and array.max() <= np.iinfo(np.int32).max):
            return dtypes.int32
        return dtypes.int64
    if array.dtype.kind == "b":
        return dtypes.bool
    if array.dtype.kind in "SU":
        return dtypes.string
    raise TypeError("cannot convert %r (NumPy dtype %s) to a tensor" % (array, array.dtype))


def _holds_strings(value):
    """Whether value (a NumPy array, a scalar or nested lists) holds bytes or str: its
    first element decides, as for TensorFlow's type inference."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "SU":
            return True
        return value.dtype.kind == "O" and value.size > 0 and isinstance(value.flat[0], (bytes, str))
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return isinstance(value, (bytes, str))


def _string_array(value, array):
    """An object array of bytes, as TensorFlow's Session returns strings: bytes stay, str is
    encoded as UTF-8, anything else is a TypeError."""
    if array.dtype.kind not in "OSU":
        raise TypeError("Expected string, got %s of type '%s' instead."
                        % (value if array.size <= 8 else "an array", array.dtype.name))
    out = np.empty(array.shape, dtype=object)
    for index, v in np.ndenumerate(array):
        if isinstance(v, str):
            v = v.encode("utf-8")
        elif not isinstance(v, bytes):
            raise TypeError("Expected string, got %r of type '%s' instead." % (v, type(v).__name__))
        out[index] = bytes(v)
    return out


def to_numpy(value, dtype=None):
    """`value` (NumPy array or scalar, Python scalar, nested lists) as a NumPy array of
    `dtype` (inferred as TensorFlow does when None). A conversion that would change the kind
    of the values (float to int, number to bool) raises TypeError."""
    is_numpy = isinstance(value, (np.ndarray, np.generic))
    if (dtype is not None and dtypes.as_dtype(dtype) == dtypes.string) or (dtype is None and _holds_strings(value)):
        # Built as objects: NumPy's own string conversion would decode bytes as ASCII.
        array = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
        return _string_array(value, array)
    try:
        array = np.asarray(value)
    except ValueError as e:
        raise ValueError("cannot convert %r to a tensor: %s" % (value, e)) from None
    if array.dtype == object:
        raise TypeError("cannot convert %r to a tensor (ragged or non-numeric values)" % (value,))
    if dtype is None:
        # uint8 and uint16 arrays keep their dtype; uint32/64 (no such dtype here) go by value.
        keep = is_numpy and (array.dtype.kind != "u" or array.dtype.itemsize <= 2)
        dtype = dtypes.as_dtype(array.dtype) if keep else _python_value_dtype(array)
    dtype = dtypes.as_dtype(dtype)
    target = np.dtype(dtype.as_numpy_dtype)
    if array.dtype != target:
        if not is_numpy and array.dtype.kind in "iu" and target.kind in "iu":  # Python ints: when every one fits
            fits = not array.size or np.iinfo(target).min <= array.min() and array.max() <= np.iinfo(target).max
        else:
            fits = not array.size or np.can_cast(array.dtype, target, casting="same_kind")
        if not fits:
            raise TypeError("Expected %s, got %s of type '%s' instead."
                            % (dtype.name, value if array.size <= 8 else "an array", array.dtype.name))
        array = array.astype(target)
    return array


def _packed_dtype(value):
    """The dtype of the first tensor in a (nested) list or tuple holding tensors, else None."""
    if not isinstance(value, (list, tuple)):
        return None
    for v in value:
        if isinstance(v, Tensor) or hasattr(v, "_as_graph_element"):
            return convert_to_tensor(v).dtype
        inner = _packed_dtype(v)
        if inner is not None:
            return inner
    return None


def convert_to_tensor(value, dtype=None, name=None):
    """A Tensor for `value`: a tensor or variable as it is (its dtype must match `dtype`),
    anything else as a Const."""
    if isinstance(value, Tensor):
        tensor = value
    elif hasattr(value, "_as_graph_element"):
        tensor = value._as_graph_element()
        if not isinstance(tensor, Tensor):
            raise TypeError("Can not convert %r to a Tensor" % (value,))
    else:
        from tensorweave import array_ops
        inner_dtype = _packed_dtype(value)
        if inner_dtype is not None:  # TF's autopacking: [tf.shape(x)[0], 5] becomes a Pack
            dtype = dtype or inner_dtype
            return array_ops.stack([convert_to_tensor(v, dtype=dtype) for v in value], name=name or "packed")
        return array_ops.constant(value, dtype=dtype, name=name or "Const")
    if dtype is not None and dtypes.as_dtype(dtype) != tensor.dtype:
        raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                         % (dtypes.as_dtype(dtype).name, tensor.dtype.name, tensor))
    return tensor


def _op(op_type, inputs, attrs=None, name=None, graph=None):
    """Adds an op to the inputs' graph (the default graph when no input is a tensor)."""
    if graph is None:
        default = get_default_graph()
        if hasattr(default, "captures"):  # Tracing a tf.data function: outer tensors are captured.
            graph = default
        else:
            graph = next((i.graph for i in inputs if isinstance(i, Tensor)), None) or default
    return graph.create_op(op_type, inputs, attrs, name)


def _op_output(op_type, inputs, attrs=None, name=None, graph=None):
    return _op(op_type, inputs, attrs, name, graph).outputs[0]
