"""tf.gradients: the C++ gradient pass over the default graph (a gather's gradient returned
as IndexedSlices, as TensorFlow does)."""
import numpy as np

from tensorweave import _core
from tensorweave.framework import Tensor, convert_to_tensor
from tensorweave.indexed_slices import as_sparse_gradient
from tensorweave.variables import Variable


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,  # noqa: ARG001
              gate_gradients=False, aggregation_method=None, stop_gradients=None,  # noqa: ARG001
              unconnected_gradients="none"):
    """d(sum of ys)/d(x) for each x in xs (None where no y depends on x, or zeros with
    unconnected_gradients="zero"). A variable in xs is differentiated through its handle, so
    every read of it counts. The pass does not differentiate through the ops of
    stop_gradients. Gradients are always summed with AddN (aggregation_method and the
    colocation and gating hints are accepted and have no effect)."""
    if unconnected_gradients not in ("none", "zero", UnconnectedGradients.NONE, UnconnectedGradients.ZERO):
        raise ValueError("Unknown value for unconnected_gradients: %r" % (unconnected_gradients,))
    grads = _gradients(ys, xs, grad_ys, name, stop_gradients)
    if unconnected_gradients in ("zero", UnconnectedGradients.ZERO):
        from tensorweave import array_ops
        grads = [array_ops.zeros_like(x.value() if isinstance(x, Variable) else x) if g is None else g
                 for g, x in zip(grads, _as_list(xs))]
    return grads


class UnconnectedGradients:
    """tf.UnconnectedGradients: what an x no y depends on gets."""
    NONE = "none"
    ZERO = "zero"


class AggregationMethod:
    """tf.AggregationMethod: accepted; gradients are always summed with AddN."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


# The graph of the gradient pass under way, for the Python gradient functions it calls.
_pass_graphs = []


def _gradients(ys, xs, grad_ys, name, stop_gradients=None):
    ys = [convert_to_tensor(y) for y in _as_list(ys)]
    xs = _as_list(xs)
    core_xs = [x._core.handle if isinstance(x, Variable) else convert_to_tensor(x)._core for x in xs]
    core_grad_ys = [] if grad_ys is None else [
        convert_to_tensor(g, dtype=y.dtype)._core for g, y in zip(_as_list(grad_ys), ys)]
    core_stops = [convert_to_tensor(t)._core for t in _as_list(stop_gradients or [])]
    graph = ys[0].graph
    loops = graph.__dict__.get("_while_loops")
    if loops:
        # One scope around the whole call: a TensorArray's gradient array is chosen by it
        # (src/autodiff/tensor_array_grad.cc), and the loop's inner passes must share it.
        if any(part.startswith("gradients") for part in graph.get_name_scope().split("/")):
            through = _through_loop(ys, xs, core_xs, grad_ys, loops)
        else:
            with graph.name_scope(name or "gradients"):
                through = _through_loop(ys, xs, core_xs, grad_ys, loops)
        if through is not None:
            return through
    _pass_graphs.append(graph)
    before = len(graph.get_operations())
    try:
        core_grads = _core.gradients([y._core for y in ys], core_xs, core_grad_ys, core_stops)
    finally:
        _pass_graphs.pop()
    context = getattr(graph, "_control_flow_context", None)
    if context is not None:  # built in a loop's body (a nested loop's gradient): its ops are the frame's
        for op in graph.get_operations()[before:]:
            context._add_op(op.name)
    grads = [None if g is None else Tensor(graph, g) for g in core_grads]
    # A gather's gradient comes back as TensorFlow's IndexedSlices (rows and ids).
    return [as_sparse_gradient(g, x) for g, x in zip(grads, xs)]


def _through_loop(ys, xs, core_xs, grad_ys, loops):
    """When a tf.while_loop lies between xs and ys: the gradients through it (while_grad.py),
    chained: ys -> its exits -> its initial values and outside tensors -> xs. None when no
    loop's exit is an ancestor of the ys."""
    from tensorweave import while_grad
    x_ops = {x.op.name for x in xs if isinstance(x, Tensor)}
    # What the loops may read: the xs, and the handles of the variables among them.
    x_sources = x_ops | {Tensor(ys[0].graph, c).op.name for x, c in zip(xs, core_xs) if isinstance(x, Variable)}
    exit_names = {}
    # Only the loops of the frame the pass is built in: a loop nested in another's body is
    # that loop's gradient's business (its body re-run, while_grad.py).
    here = getattr(ys[0].graph, "_control_flow_context", None)
    for info in loops.values():
        if info.context._outer is here and not any(e.op.name in x_ops for e in info.exits):
            for e in info.exits:
                exit_names[e.op.name] = info
    # The loop nearest the ys: the first exit met walking back from them (not past an x or
    # a StopGradient, which is how while_grad.py's replays are cut off) whose loop reads an x;
    # a loop beside the path (say, the other of two loops summed) gives no gradient here.
    seen, stack, info = set(), [y.op for y in ys], None
    while stack and info is None:
        op = stack.pop()
        if op.name in seen or op.name in x_ops or op.type == "StopGradient":
            continue
        seen.add(op.name)
        found = exit_names.get(op.name)
        if found is not None and _reads_any(found.initial + found.context._captured, x_sources):
            info = found
        stack.extend(t.op for t in op.inputs)
    if info is None:
        return None
    g_exits = gradients(ys, info.exits, grad_ys)
    initial, g_initial, captured, g_captured = while_grad.backprop(info, g_exits)
    # Through the loop, plus around it (the C++ pass treats the loop's exits as constants).
    through = gradients(initial + captured, xs, g_initial + g_captured)
    loops = dict(ys[0].graph.__dict__["_while_loops"])
    try:  # This loop handled: the pass around it may still meet other loops.
        del ys[0].graph.__dict__["_while_loops"][info.exits[0].op.name]
        around = gradients(ys, xs, grad_ys)
    finally:
        ys[0].graph.__dict__["_while_loops"] = loops
    from tensorweave import math_ops
    return [a if t is None else t if a is None else math_ops.add(t, a) for t, a in zip(through, around)]


def _reads_any(tensors, op_names):
    """Whether one of `op_names` is an ancestor of (or among) `tensors`' ops."""
    seen, stack = set(), [t.op for t in tensors]
    while stack:
        op = stack.pop()
        if op.name in op_names:
            return True
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(t.op for t in op.inputs)
    return False


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,  # noqa: ARG001
             aggregation_method=None):  # noqa: ARG001
    """For each x: the second derivatives of sum(ys), shaped x.shape + x.shape. TensorFlow
    loops over the gradient's elements in a while_loop; here the loop is unrolled, so each
    x needs a static number of elements."""
    from tensorweave import array_ops
    from tensorweave.framework import name_scope
    xs = _as_list(xs)
    out = []
    with name_scope(name):
        for gradient, x in zip(gradients(ys, xs), xs):
            x = convert_to_tensor(x) if not isinstance(x, Variable) else x
            shape = x.shape
            if not shape.is_fully_defined():
                raise ValueError("hessians needs x with a fully defined shape, got %s for %s" % (shape, x.name))
            n = int(np.prod(shape.as_list(), dtype=np.int64))
            if gradient is None:
                out.append(None)
                continue
            flat = array_ops.reshape(gradient, [-1])
            rows = []
            for j in range(n):
                second = gradients(flat[j], x)[0]
                rows.append(array_ops.zeros_like(x) if second is None else second)
            dims = shape.as_list()
            out.append(array_ops.reshape(array_ops.stack(rows), dims + dims) if rows else
                       array_ops.zeros(dims + dims, dtype=x.dtype))
    return out


class RegisterGradient:
    """A decorator registering f(op, *grads) -> gradients of op's inputs as the gradient
    function of the op type (or override name, see Graph.gradient_override_map) `op_type`."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        from tensorweave.framework import Operation

        def call(core_op, core_grads):
            graph = _pass_graphs[-1]
            grads = [None if g is None else Tensor(graph, g) for g in core_grads]
            result = f(Operation(graph, core_op), *grads)
            items = list(result) if isinstance(result, (list, tuple)) else [result]
            return [None if r is None else convert_to_tensor(r)._core for r in items]
        _core.register_gradient(self._op_type, call)
        return f


def NotDifferentiable(op_type):  # noqa: N802 - TensorFlow's name
    """Declares that ops of op_type have no gradient: every input gets None."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    _core.register_no_gradient(op_type)


NoGradient = NotDifferentiable
no_gradient = NotDifferentiable

_custom_gradient_count = [0]


def custom_gradient(f):
    """A decorator for f(*args) -> (result, grad_fn): the result as f computes it, with
    grad_fn(*result_grads) -> the args' gradients as its gradient (TensorFlow 1's graph-mode
    construction: an IdentityN over results and args with its gradient overridden).
    Variables f reads are not tracked: grad_fn gets no `variables`."""
    import functools

    from tensorweave import shape_n_ops
    from tensorweave.framework import get_default_graph

    @functools.wraps(f)
    def decorated(*args):
        args = [convert_to_tensor(a) for a in args]
        result, grad_fn = f(*args)
        flat_result = [convert_to_tensor(r) for r in (result if isinstance(result, (list, tuple)) else [result])]
        _custom_gradient_count[0] += 1
        name = "CustomGradient-%d" % _custom_gradient_count[0]

        @RegisterGradient(name)
        def _grad(unused_op, *result_grads):
            input_grads = grad_fn(*result_grads[:len(flat_result)])
            input_grads = list(input_grads) if isinstance(input_grads, (list, tuple)) else [input_grads]
            if len(input_grads) != len(args):
                raise ValueError("custom_gradient function expected to return %d gradients, but returned %d "
                                 "instead." % (len(args), len(input_grads)))
            return [None] * len(flat_result) + input_grads

        with get_default_graph().gradient_override_map({"IdentityN": name}):
            outs = shape_n_ops.identity_n(flat_result + args)
        outs = outs[:len(flat_result)]
        return type(result)(outs) if isinstance(result, (list, tuple)) else outs[0]
    return decorated
