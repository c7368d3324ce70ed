"""tf.while_loop as TensorFlow 1 builds it (control flow v1): per loop variable an Enter into
the loop's frame, a Merge of it with the NextIteration (the back edge, set once the body
exists), a Switch on the LoopCond, an Identity feeding the body and an Exit. Every tensor
cond or body reads from outside the loop enters through its own is_constant Enter (a loop
invariant, visible in every iteration). The executor runs the frames and iterations
(src/runtime/executor.cc).

While cond and body run, the graph's `_control_flow_context` is the WhileContext, and
Graph.create_op hands every new op to it to rewire the inputs (as control_flow_ops.CondContext,
which nests inside it for a tf.cond in the body)."""
import contextlib

from tensorweave import dtypes, tensor_array_ops
from tensorweave.control_flow_ops import _flatten, _pack_as, _same_structure, _structure_repr  # noqa: F401
from tensorweave.framework import TensorShape, convert_to_tensor, get_default_graph


# Ops whose value a second run would not repeat (random draws, an array's size while it
# grows): the loop gradient replays their forward values from stacks (while_grad.py).
REPLAYED_OPS = frozenset({"TensorArraySizeV3", "RandomUniform", "RandomStandardNormal", "TruncatedNormal",
                          "RandomUniformInt"})


class WhileContext:
    """One tf.while_loop: its frame, the ops made inside it, the outside tensors it entered."""

    def __init__(self, graph, frame_name, parallel_iterations, outer):
        self._graph = graph
        self._frame_name = frame_name
        self._parallel_iterations = parallel_iterations
        self._outer = outer
        self._ops = set()  # Names of ops whose outputs live in this frame.
        self._entered = {}  # Outside tensor name -> its Enter output.
        self._captured = []  # The outside tensors, in capture order (their gradients: while_grad.py).
        self._pivot = None  # Ops without data inputs depend on it (they must run per iteration).
        # Ops of REPLAYED_OPS made in the body, in order: their values are pushed for the
        # gradient's re-run of the body, which pops them instead of running them again.
        self._replayed = []

    def _add_op(self, name):
        ctx = self
        while ctx is not None:
            ctx._ops.add(name)
            ctx = ctx._outer

    def _in_outer(self, fn):
        """Runs fn with the enclosing context current (an Enter runs in the parent frame)."""
        graph = self._graph
        saved = getattr(graph, "_control_flow_context", None)
        graph._control_flow_context = self._outer
        try:
            return fn()
        finally:
            graph._control_flow_context = saved

    def enter(self, tensor, is_constant, name="Enter"):
        def make():
            with _outside_control_deps(self._graph):  # No control dependencies from outside the frame.
                return self._graph.create_op("Enter", [tensor], {
                    "frame_name": self._frame_name, "is_constant": is_constant,
                    "parallel_iterations": self._parallel_iterations}, name=name)
        op = self._in_outer(make)
        self._add_op(op.name)
        return op.outputs[0]

    def _capture(self, tensor):
        """`tensor` as the loop must read it: through an is_constant Enter when it is from outside."""
        if tensor.op.name in self._ops:
            return tensor
        entered = self._entered.get(tensor.name)
        if entered is None:
            entered = self.enter(tensor, True)
            # Recorded as the enclosing frame reads it (its own Enter of `tensor` when this
            # loop is nested in another's body): what the gradient chains through.
            source = entered.op.inputs[0]
            self._entered[tensor.name] = self._entered[source.name] = entered
            self._captured.append(source)
        return entered

    def create_op(self, op_type, inputs, attrs, name):
        graph = self._graph
        if op_type in REPLAYED_OPS:
            replay = getattr(graph, "_tw_replay", None)
            if replay is not None:  # The gradient's re-run of the body (while_grad.py).
                return replay(op_type)
        inputs = [self._capture(convert_to_tensor(i)) for i in inputs]
        graph._control_flow_context = None
        try:
            if not inputs and self._pivot is not None:  # As TF: run once per iteration, in the frame.
                with graph.control_dependencies([self._pivot]):
                    op = graph._create_op(op_type, inputs, attrs, name)
            else:
                op = graph._create_op(op_type, inputs, attrs, name)
        finally:
            graph._control_flow_context = self
        self._add_op(op.name)
        if op_type in REPLAYED_OPS:
            self._replayed.append(op)
        return op

    def call(self, fn, args, pivot):
        """Runs cond or body with this context current; returns its result."""
        graph = self._graph
        saved = getattr(graph, "_control_flow_context", None)
        graph._control_flow_context = self
        self._pivot = pivot
        try:
            with _outside_control_deps(graph):  # Outside control dependencies stay outside the frame.
                return fn(*args)
        finally:
            graph._control_flow_context = saved


class WhileInfo:
    """A built loop as its gradient needs it: the functions, the initial values, the exits and
    the outside tensors cond and body read."""

    def __init__(self, cond, body, structure, initial, exits, context, parallel_iterations, invariants,
                 body_in, loop_cond):
        self.cond, self.body, self.structure = cond, body, structure
        self.initial, self.exits, self.context = initial, exits, context
        self.parallel_iterations = parallel_iterations
        self.invariants = invariants  # The loop variables' shape invariants, flat.
        # Where while_grad.py hooks its stack pushes into the forward loop: each iteration's
        # incoming loop variables (the body's inputs) and the loop's predicate.
        self.body_in, self.loop_cond = body_in, loop_cond

    def call_body(self, flat):
        result = _like(self.structure, self.body(*_as_args(_pack_as(self.structure, iter(flat)))))
        return [convert_to_tensor(r) for r in _flatten(result)]

    def call_cond(self, flat):
        return self.cond(*_as_args(_pack_as(self.structure, iter(flat))))


def _shape_error(var, entered, after):
    return ValueError(
        "Input tensor '%s' enters the loop with shape %s, but has shape %s after one iteration. To allow "
        "the shape to vary across iterations, use the `shape_invariants` argument of tf.while_loop to "
        "specify a less-specific shape." % (var.name, _fmt(entered), _fmt(after)))


def _fmt(shape):
    """As TF prints a TensorShape: (), (3,), (None, 2), <unknown>."""
    return "<unknown>" if shape.dims is None else str(tuple(shape.dims))


def _compatible(invariant, shape):
    """Whether `shape` fits `invariant` (unknown rank or dims in the invariant match anything)."""
    if invariant.dims is None:
        return True
    if shape.dims is None or len(shape.dims) != len(invariant.dims):
        return False
    return all(i is None or (s is not None and s == i) for i, s in zip(invariant.dims, shape.dims))


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None, return_same_structure=False):
    """tf.compat.v1.while_loop: repeats body while cond is true; returns the final loop_vars
    (a single var unpacked, as TF1). swap_memory is accepted and ignored (no device memory);
    with back_prop=False tf.gradients treats the loop's results as constants."""
    del swap_memory
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    if isinstance(loop_vars, (list, tuple)) and len(loop_vars) == 0:
        raise ValueError("No loop variables provided")
    graph = get_default_graph()
    outer = getattr(graph, "_control_flow_context", None)
    ta_template = None
    if tensor_array_ops.has_tensor_arrays(loop_vars):  # As TF1: a TensorArray travels as its flow.
        ta_template, cond, body = loop_vars, _over_flows(loop_vars, cond, False), _over_flows(loop_vars, body, True)
        loop_vars = tensor_array_ops.to_flows(loop_vars)
    with graph.name_scope(name or "while"):
        frame_name = graph.get_name_scope()
        if maximum_iterations is not None:
            counter_cond, counter_body = cond, body
            limit = convert_to_tensor(maximum_iterations)
            if limit.shape.ndims not in (None, 0):
                raise ValueError("maximum_iterations must be a scalar, saw shape: %s" % (limit.shape,))
            from tensorweave import math_ops

            def cond(i, lv):  # noqa: F811 - TF1 wraps the loop in an iteration counter.
                return math_ops.logical_and(i < limit, counter_cond(*_as_args(lv)))

            def body(i, lv):  # noqa: F811
                return i + 1, _like(original, counter_body(*_as_args(lv)))

            original = loop_vars
            loop_vars = (convert_to_tensor(0, dtype=limit.dtype), loop_vars)
            if shape_invariants is not None:
                shape_invariants = (TensorShape([]), shape_invariants)
            packed = True
        else:
            packed = False
        structure = loop_vars
        flat_vars = [convert_to_tensor(v) for v in _flatten(loop_vars)]
        if outer is not None:
            flat_vars = [outer._capture(v) for v in flat_vars]
        if shape_invariants is None:
            invariants = [v.shape for v in flat_vars]
        else:
            if not _same_structure(structure, shape_invariants) and len(_flatten(shape_invariants)) != len(flat_vars):
                raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: %s\n\n"
                                 "Second structure: %s" % (_structure_repr(structure), _structure_repr(shape_invariants)))
            invariants = [TensorShape(s) for s in _flatten_shapes(shape_invariants)]
            for v, inv in zip(flat_vars, invariants):
                if not _compatible(inv, v.shape):
                    raise ValueError("The shape invariant specified for %s is not compatible with the initial shape "
                                     "of the loop variable. It enters the loop with shape %s, but the specified shape "
                                     "invariant is %s." % (v.name, _fmt(v.shape), _fmt(inv)))
        ctx = WhileContext(graph, frame_name, parallel_iterations, outer)
        enters = [ctx.enter(v, False) for v in flat_vars]

        def make_merges():
            merges = []
            for e, v, inv in zip(enters, flat_vars, invariants):
                stand_in = e
                # The Merge's static shape is the invariant: a stand-in of that shape stays its
                # input (a session's copy of the graph infers the Merge again before the back edge).
                if inv != e.shape:
                    stand_in = graph._create_op("PlaceholderWithDefault", [e], {"dtype": e.dtype, "shape": inv},
                                                name="shape_invariant")
                    stand_in = stand_in.outputs[0]
                merges.append(graph._create_op("Merge", [stand_in, stand_in], {"N": 2}, name="Merge"))
            return merges

        merges = _without_context(graph, make_merges)
        for m in merges:
            ctx._add_op(m.name)
        merged = [m.outputs[0] for m in merges]
        packed_merged = _pack_as(structure, iter(merged))
        pred = ctx.call(cond, _as_args(packed_merged), merged[0])
        pred = ctx._capture(convert_to_tensor(pred))
        if pred.dtype != dtypes.bool:
            raise TypeError("cond must return a bool tensor, got %s" % pred.dtype.name)
        loop_cond = _without_context(graph, lambda: graph._create_op("LoopCond", [pred], name="LoopCond"))
        ctx._add_op(loop_cond.name)
        switches = [_without_context(graph, lambda m=m: graph._create_op("Switch", [m, loop_cond.outputs[0]],
                                                                           name="Switch")) for m in merged]
        for s in switches:
            ctx._add_op(s.name)
        body_in = [_without_context(graph, lambda s=s: graph._create_op("Identity", [s.outputs[1]], name="Identity"))
                   for s in switches]
        for i in body_in:
            ctx._add_op(i.name)
        body_in = [i.outputs[0] for i in body_in]
        result = _like(structure, ctx.call(body, _as_args(_pack_as(structure, iter(body_in))), body_in[0]))
        if not _same_loose(structure, result) or len(_flatten(result)) != len(flat_vars):
            raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: %s\n\n"
                             "Second structure: %s\n\nloop_vars: %r\nbody returned: %r"
                             % (_structure_repr(structure), _structure_repr(result), structure, result))
        flat_result = [ctx._capture(convert_to_tensor(r)) for r in _flatten(result)]
        for v, r, inv, e in zip(flat_vars, flat_result, invariants, enters):
            if r.dtype != v.dtype:
                raise TypeError("Loop variable %s enters the loop as %s but the body returns %s"
                                % (v.name, v.dtype.name, r.dtype.name))
            if not _compatible(inv, r.shape):
                raise _shape_error(v, e.shape if shape_invariants is None else inv, r.shape)
        for m, r in zip(merges, flat_result):
            nxt = _without_context(graph, lambda r=r: graph._create_op("NextIteration", [r], name="NextIteration"))
            ctx._add_op(nxt.name)
            graph._core.set_back_edge(m.name, 1, nxt.name)
        # Marked: the C++ gradient pass leaves this loop to while_grad.py (control_flow_grad.cc).
        exits = [_without_context(graph, lambda s=s: graph._create_op("Exit", [s.outputs[0]],
                                                                        {"_grad_in_python": True}, name="Exit"))
                 for s in switches]
        if outer is not None:
            for x in exits:
                outer._add_op(x.name)
        out = _pack_as(structure, iter([x.outputs[0] for x in exits]))
        # What tf.gradients needs to differentiate through this loop (while_grad.py); without
        # it the C++ pass takes the marked Exits as constants (back_prop=False).
        if back_prop:
            graph.__dict__.setdefault("_while_loops", {})[exits[0].name] = WhileInfo(
                cond, body, structure, flat_vars, [x.outputs[0] for x in exits], ctx, parallel_iterations,
                invariants, body_in, loop_cond.outputs[0])
    if packed:
        out = out[1]
    if ta_template is not None:
        out = tensor_array_ops.from_flows(ta_template, out)
    if not return_same_structure and isinstance(out, (list, tuple)) and not hasattr(out, "_fields") and len(out) == 1:
        return out[0]
    return out


def _over_flows(template, fn, is_body):
    """cond or body over loop vars whose TensorArrays (in `template`) travel as flows."""
    def wrapped(*args):
        if isinstance(template, (list, tuple)) and not hasattr(template, "_fields"):
            packed = type(template)(args)
        else:
            packed = args[0]
        result = fn(*_as_args(tensor_array_ops.from_flows(template, packed)))
        return tensor_array_ops.to_flows(_like(template, result)) if is_body else result
    return wrapped


def _same_loose(a, b):
    """As TF1's check of the body's result: lists and tuples are interchangeable."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)
                and all(_same_loose(a[k], b[k]) for k in a))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b)
                and all(_same_loose(x, y) for x, y in zip(a, b)))
    return True


def _like(structure, result):
    """As TF1: a body may return a lone tensor for a one-element list of loop vars, and
    [x] for a lone loop var."""
    if not isinstance(structure, (list, tuple, dict)) and isinstance(result, (list, tuple)) and len(result) == 1:
        return result[0]
    if (isinstance(structure, (list, tuple)) and not hasattr(structure, "_fields") and len(structure) == 1
            and not isinstance(result, (list, tuple))):
        return type(structure)([result])
    return result


def _as_args(packed):
    """cond and body take the loop vars as positional arguments (a list/tuple is spread)."""
    if isinstance(packed, (list, tuple)) and not hasattr(packed, "_fields"):
        return list(packed)
    return [packed]


def _flatten_shapes(structure):
    """Like _flatten, but a shape given as a list of dims is one leaf."""
    if isinstance(structure, TensorShape) or structure is None:
        return [structure]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in _flatten_shapes(structure[key])]
    if isinstance(structure, (list, tuple)) and all(d is None or isinstance(d, int) for d in structure):
        return [TensorShape(list(structure))]
    return [leaf for item in structure for leaf in _flatten_shapes(item)]


def _without_context(graph, fn):
    saved = getattr(graph, "_control_flow_context", None)
    graph._control_flow_context = None
    try:
        with _outside_control_deps(graph):
            return fn()
    finally:
        graph._control_flow_context = saved


@contextlib.contextmanager
def _outside_control_deps(graph):
    """No control dependencies inside, and a fresh stack for the ones opened inside (unlike
    Graph._init_scope, this nests: a cond in a loop body captures under it)."""
    stack = graph.__dict__.get("_control_stack", [])
    for entry in reversed(stack):
        entry[1].close()
    graph._control_stack = []
    try:
        yield
    finally:
        graph._control_stack = stack
        for entry in stack:
            entry[1] = graph._core.control_dependencies(entry[0])
