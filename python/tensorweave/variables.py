"""Variables (tf.Variable), variable scopes and get_variable, and initializers; the logic
is the C++ engine's (tw::Variable, tw::variable_scope, tw::get_variable)."""
import contextlib

from tensorweave import _core, dtypes, errors
from tensorweave.framework import (GraphKeys, Operation, Tensor, TensorShape, as_shape, convert_to_tensor,
                                   control_dependencies, get_default_graph)
from tensorweave.math_ops import TensorOperators

AUTO_REUSE = "auto"


class Variable(TensorOperators):
    """A variable: state that persists across runs, placed where its handle op is placed."""

    def __init__(self, initial_value=None, trainable=True, name=None, dtype=None, collections=None,
                 validate_shape=True):
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        graph = get_default_graph()
        with graph._init_scope():  # As TF: a variable initializes without open control dependencies.
            if callable(initial_value):
                initial_value = initial_value()
            value = convert_to_tensor(initial_value, dtype=dtype)
            if collections is None:
                self._init(graph, _core.Variable(graph._core, value._core, name or "Variable", trainable))
            else:
                # The C++ graph keeps the variable collections initializers walk; others are Python's.
                collections = [collections] if isinstance(collections, str) else list(collections)
                kept = [c for c in collections if c in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES)]
                self._init(graph, _core.Variable(graph._core, value._core, name or "Variable", trainable, kept))
                for c in collections:
                    if c not in kept and c != GraphKeys.TRAINABLE_VARIABLES:
                        graph.add_to_collection(c, self)

    @classmethod
    def _from_core(cls, graph, core):
        var = cls.__new__(cls)
        var._init(graph, core)
        return var

    def _init(self, graph, core):
        self._graph = graph
        self._core = core

    # ---- TensorFlow's properties
    @property
    def name(self):
        # A TF1 reference variable lowered on import is known by its read ("w"), as in TF.
        read = self._core.read
        return read.op.name + ":0" if read.op.name + "/handle" == self._core.name else self._core.name + ":0"

    @property
    def op(self):
        return Operation(self._graph, self._core.handle.op)

    @property
    def graph(self):
        return self._graph

    @property
    def dtype(self):
        return dtypes.as_dtype(self._core.dtype)

    @property
    def shape(self):
        return TensorShape(self._core.shape)

    def get_shape(self):
        return self.shape

    @property
    def device(self):
        return self._core.handle.op.device

    @property
    def initializer(self):
        return Operation(self._graph, self._core.initializer)

    @property
    def initial_value(self):
        return Tensor(self._graph, self._core.initial_value)

    @property
    def handle(self):
        return Tensor(self._graph, self._core.handle)

    def value(self):
        """The value read when the variable was made (what `x + var` uses)."""
        return Tensor(self._graph, self._core.read)

    def read_value(self):
        """A fresh read (ordered after the control dependencies in scope)."""
        return Tensor(self._graph, self._core.value())

    def _as_graph_element(self):
        return self.value()

    def eval(self, session=None):
        return self.value().eval(session=session)

    def _update(self, method, value, name, read_value):
        value = convert_to_tensor(value, dtype=self.dtype)
        update = Operation(self._graph, getattr(self._core, method)(value._core, name).op)
        if not read_value:
            return update
        with control_dependencies([update]):
            return self.read_value()

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Assigns `value`; returns the new value (or the assign op when read_value=False)."""
        return self._update("assign", value, name or "Assign", read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._update("assign_add", delta, name or "AssignAdd", read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._update("assign_sub", delta, name or "AssignSub", read_value)

    def is_initialized(self, name=None):
        return Tensor(self._graph, self._core.is_initialized(name or "IsInitialized"))

    def __eq__(self, other):
        return isinstance(other, Variable) and self._core.handle == other._core.handle

    def __hash__(self):
        return hash(self._core.handle)

    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (self.name, self.shape, self.dtype.name)

    class SaveSliceInfo:
        """Which block of a partitioned variable a shard is (TF's Variable.SaveSliceInfo):
        the Saver saves the shard as that slice of `full_name`."""

        def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None):
            self.full_name = full_name
            self.full_shape = list(full_shape)
            self.var_offset = list(var_offset)
            self.var_shape = list(var_shape)

        @property
        def spec(self):
            """TF's shape_and_slice text, e.g. "10 4 5,5:0,4"."""
            return " ".join(str(d) for d in self.full_shape) + " " + ":".join(
                "%d,%d" % (o, s) for o, s in zip(self.var_offset, self.var_shape))

    # A graph keeps each shard's slice info by variable name: wrappers are made afresh.
    @property
    def _save_slice_info(self):
        return self._graph.__dict__.get("_tw_save_slice_info", {}).get(self._core.name)

    def _set_save_slice_info(self, info):
        self._graph.__dict__.setdefault("_tw_save_slice_info", {})[self._core.name] = info


def _wrap_all(graph, core_vars):
    return [Variable._from_core(graph, v) for v in core_vars]


def global_variables(scope=None):
    graph = get_default_graph()
    return [v for v in _wrap_all(graph, _core.global_variables(graph._core)) if scope is None or v.name.startswith(scope)]


all_variables = global_variables


def trainable_variables(scope=None):
    graph = get_default_graph()
    return [v for v in _wrap_all(graph, _core.trainable_variables(graph._core))
            if scope is None or v.name.startswith(scope)]


def local_variables(scope=None):
    """The variables of the LOCAL_VARIABLES collection (per client, not saved)."""
    graph = get_default_graph()
    return [v for v in _wrap_all(graph, _core.local_variables(graph._core))
            if scope is None or v.name.startswith(scope)]


def variables_initializer(var_list, name="init"):
    graph = get_default_graph()
    return Operation(graph, _core.variables_initializer(graph._core, [v._core for v in var_list], name))


def is_variable_initialized(variable):
    """A bool tensor: whether `variable` has been initialized (tf.is_variable_initialized)."""
    return variable.is_initialized()


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor of the names of the variables (all global and local ones when
    var_list is None) that are not initialized, built as TF 1.x builds it."""
    graph = get_default_graph()
    core_vars = None if var_list is None else [v._core for v in var_list]
    return Tensor(graph, _core.report_uninitialized_variables(graph._core, core_vars, name))


def assert_variables_initialized(var_list=None):
    """An op that fails with FailedPreconditionError when a variable is not initialized;
    None when there are no variables (as TF 1.x)."""
    graph = get_default_graph()
    core_vars = None if var_list is None else [v._core for v in var_list]
    out = _core.assert_variables_initialized(graph._core, core_vars)
    return None if out is None else Tensor(graph, out)


def global_variables_initializer():
    graph = get_default_graph()
    return Operation(graph, _core.global_variables_initializer(graph._core, "init"))


initialize_all_variables = global_variables_initializer


def local_variables_initializer():
    """Initializes the local variables (e.g. SyncReplicasOptimizer's local step)."""
    graph = get_default_graph()
    return Operation(graph, _core.local_variables_initializer(graph._core))


# ---- TF1's state ops (tf.assign, tf.scatter_update, ...): on our resource-backed variables
# they take TF's resource path, the update followed by a fresh read of the variable.

def assign(ref, value, validate_shape=None, use_locking=None, name=None):  # noqa: ARG001
    return ref.assign(value, name=name)


def assign_add(ref, value, use_locking=None, name=None):  # noqa: ARG001
    return ref.assign_add(value, name=name)


def assign_sub(ref, value, use_locking=None, name=None):  # noqa: ARG001
    return ref.assign_sub(value, name=name)


def _resource_scatter(op_type, locking_default=False):
    # use_locking is accepted with TF's default (True for scatter_update) and unused, as on
    # TF's resource variables.
    def scatter(ref, indices, updates, use_locking=locking_default, name=None):  # noqa: ARG001
        graph = ref.graph
        update = graph.create_op("Resource" + op_type, [ref.handle, convert_to_tensor(indices),
                                                        convert_to_tensor(updates, dtype=ref.dtype)],
                                 {}, name=name or op_type)
        with control_dependencies([update]):
            return ref.read_value()
    scatter.__name__ = "scatter_" + op_type[len("Scatter"):].lower()
    return scatter


scatter_update = _resource_scatter("ScatterUpdate", True)
scatter_add = _resource_scatter("ScatterAdd")
scatter_sub = _resource_scatter("ScatterSub")
scatter_mul = _resource_scatter("ScatterMul")
scatter_div = _resource_scatter("ScatterDiv")
scatter_min = _resource_scatter("ScatterMin")
scatter_max = _resource_scatter("ScatterMax")


# ---- initializers

class Initializer:
    """An initializer (tf.*_initializer): callable as init(shape, dtype) -> Tensor, and
    usable as get_variable's initializer."""

    def __init__(self, core):
        self._core = core

    def __call__(self, shape, dtype=dtypes.float32, partition_info=None):
        graph = get_default_graph()
        return Tensor(graph, self._core(graph._core, as_shape(shape).as_list(), dtypes.as_dtype(dtype)._core))


def zeros_initializer(dtype=dtypes.float32):
    return Initializer(_core.zeros_initializer())


def ones_initializer(dtype=dtypes.float32):
    return Initializer(_core.ones_initializer())


def constant_initializer(value=0, dtype=dtypes.float32, verify_shape=False):
    """Every element `value`, or the values of a list in row-major order."""
    import numpy as np
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0:
        return Initializer(_core.constant_initializer(float(array)))
    return Initializer(_core.constant_initializer_values(array.ravel().tolist()))


def _seed(seed):
    return 0 if seed is None else int(seed)


def random_uniform_initializer(minval=0, maxval=None, seed=None, dtype=dtypes.float32):
    return Initializer(_core.random_uniform_initializer(minval, 1.0 if maxval is None else maxval, _seed(seed)))


def random_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
    return Initializer(_core.random_normal_initializer(mean, stddev, _seed(seed)))


def truncated_normal_initializer(mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
    return Initializer(_core.truncated_normal_initializer(mean, stddev, _seed(seed)))


def glorot_uniform_initializer(seed=None, dtype=dtypes.float32):
    return Initializer(_core.glorot_uniform_initializer(_seed(seed)))


# ---- variable scopes

class VariableScope:
    """What tf.variable_scope yields and tf.get_variable_scope returns: name and reuse."""

    def __init__(self, name, reuse):
        self._name = name
        self._reuse = reuse

    @property
    def name(self):
        return self._name

    @property
    def original_name_scope(self):
        return self._name + "/" if self._name else ""

    @property
    def reuse(self):
        return self._reuse

    @property
    def initializer(self):
        return _scope_initializer(get_default_graph(), self._name)

    def reuse_variables(self):
        """Reuses variables in this scope (the innermost open one) until it closes."""
        graph = get_default_graph()
        current, _ = _core.get_variable_scope(graph._core)
        if current != self._name:
            raise ValueError("reuse_variables: scope '%s' is not the innermost open variable scope ('%s')"
                             % (self._name, current))
        _core.reuse_variables(graph._core)
        self._reuse = True

    def __repr__(self):
        return "<VariableScope '%s' reuse=%s>" % (self._name, self._reuse)


_REUSE = {"false": False, "true": True, "auto": AUTO_REUSE}


def get_variable_scope():
    name, reuse = _core.get_variable_scope(get_default_graph()._core)
    return VariableScope(name, _REUSE[reuse])


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, values=None, initializer=None, reuse=None, **kwargs):
    """Opens a variable scope (and the name scope of the same name). reuse: None/False
    inherits, True reuses, tf.AUTO_REUSE creates or reuses."""
    if isinstance(name_or_scope, VariableScope):
        name_or_scope = name_or_scope.name
    name = name_or_scope if name_or_scope is not None else default_name
    if name is None:
        raise ValueError("variable_scope needs a name_or_scope or a default_name")
    graph = get_default_graph()
    scope = _core.variable_scope(graph._core, name, reuse)
    # The scope's default initializer for get_variable: its own, else its parent's.
    stack = graph.__dict__.setdefault("_variable_scope_initializers", [])
    full_name, _ = _core.get_variable_scope(graph._core)
    stack.append((full_name, initializer if initializer is not None else
                  (stack[-1][1] if stack else None)))
    try:
        yield get_variable_scope()
    finally:
        stack.pop()
        scope.close()


def _scope_initializer(graph, scope_name=None):
    """The default initializer of the innermost open variable scope (or of scope_name)."""
    for name, initializer in reversed(graph.__dict__.get("_variable_scope_initializers", [])):
        if scope_name is None or name == scope_name:
            return initializer
    return None


def _as_core_initializer(initializer, dtype):
    if initializer is None:
        return None
    if isinstance(initializer, Initializer):
        return initializer._core
    if callable(initializer):
        graph = get_default_graph()

        def call(shape, core_dtype):
            return convert_to_tensor(initializer(shape, dtype=dtypes.as_dtype(core_dtype)))._core
        return _core.initializer_from_callable(call)
    value = convert_to_tensor(initializer, dtype=dtype)
    return _core.initializer_from_callable(lambda shape, core_dtype: value._core)


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True,
                 collections=None, **kwargs):
    """The variable "<scope>/<name>": made (with `initializer`, a tensor or value, or the
    default glorot_uniform/zeros) unless the scope reuses it. With a `partitioner`, a
    PartitionedVariable of shards "<name>/part_<i>" (partitioned_variables.py)."""
    partitioner = kwargs.pop("partitioner", None)
    if partitioner is not None:
        from tensorweave.partitioned_variables import get_partitioned_variable
        return get_partitioned_variable(get_variable, name, shape, dtype, initializer, partitioner,
                                        regularizer=regularizer, trainable=trainable, collections=collections,
                                        **kwargs)
    if initializer is None:
        initializer = _scope_initializer(get_default_graph())
    value_initializer = initializer is not None and not callable(initializer)
    if value_initializer:
        value = convert_to_tensor(initializer, dtype=dtype)
        if shape is not None and as_shape(shape) != value.shape:
            raise ValueError("If initializer is a constant, do not specify shape.")
        shape, dtype = value.shape, value.dtype
        initializer = value
    if shape is None:
        raise ValueError("Shape of a new variable (%s) must be fully defined, but instead was None." % name)
    dtype = dtypes.as_dtype(dtype or dtypes.float32)
    graph = get_default_graph()
    existing = {v.name for v in global_variables()} if regularizer is not None else set()
    try:
        with graph._init_scope():
            core = _core.get_variable(graph._core, name, as_shape(shape).as_list(), dtype._core,
                                      _as_core_initializer(initializer, dtype), trainable)
    except errors.InvalidArgumentError as e:  # TensorFlow raises ValueError for misuse.
        raise ValueError(str(e)) from None
    var = Variable._from_core(graph, core)
    if regularizer is not None and var.name not in existing:
        # As TF: the loss of a new variable only (a reused one added it when made).
        with graph.name_scope(var.op.name + "/Regularizer/"):
            loss = regularizer(var)
        if loss is not None:
            graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return var
