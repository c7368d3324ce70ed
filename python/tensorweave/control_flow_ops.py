"""tf.cond and tf.case as TensorFlow 1 builds them (cond_v1): a Switch of the predicate
gives each branch a pivot; every tensor a branch takes from outside goes through its own
Switch (output 1 for the true branch, 0 for the false one); the ops a branch makes depend
on its pivot (TF does that for ops without inputs; here for all, which also covers ops the
C++ side makes without passing through Graph.create_op); one Merge per output. The
untaken branch's tensors are dead and the executor skips the ops that read them
(src/runtime/executor.cc).

While a branch function runs, the graph's `_control_flow_context` is its CondContext, and
Graph.create_op hands every new op to it to rewire the inputs."""
from tensorweave import dtypes
from tensorweave.framework import Operation, convert_to_tensor, get_default_graph


class CondContext:
    """One branch of one tf.cond: which ops it made, which outside tensors it switched."""

    def __init__(self, graph, pred, pivot, branch, outer):
        self._graph = graph
        self._pred = pred  # The cond's pred_id (an Identity of the predicate).
        self._pivot = pivot
        self._branch = branch  # 1: true branch, 0: false branch.
        self._outer = outer
        self._ops = set()  # Names of ops made in this branch and the conds nested in it.
        self._switched = {}  # Outside tensor name -> its Switch output in this branch.
        # Read as they are, never switched (as TF's CondContext values).
        self._ops.update((pivot.op.name, pred.op.name))

    def _add_op(self, name):
        ctx = self
        while ctx is not None:
            ctx._ops.add(name)
            ctx = ctx._outer

    def _capture(self, tensor):
        """`tensor` as this branch must read it: through a Switch when it comes from outside."""
        if tensor.op.name in self._ops:
            return tensor
        switched = self._switched.get(tensor.name)
        if switched is None:
            # The enclosing branch captures it first (its own Switch, for a nested cond).
            outer_tensor = self._outer._capture(tensor) if self._outer is not None else tensor
            graph = self._graph
            saved = graph._control_flow_context
            graph._control_flow_context = None
            try:
                # As TF: no control dependencies (this branch's pivot among them), so that
                # the side the branch does not read stays live for the gradient's zeros.
                # (_init_scope is not reentrant: nothing inside may capture again.)
                with graph._init_scope():
                    switch = graph._create_op("Switch", [outer_tensor, self._pred], name="Switch")
            finally:
                graph._control_flow_context = saved
            if self._outer is not None:
                self._outer._add_op(switch.name)
            switched = self._switched[tensor.name] = switch.outputs[self._branch]
        return switched

    def create_op(self, op_type, inputs, attrs, name):
        graph = self._graph
        inputs = [self._capture(convert_to_tensor(i)) for i in inputs]
        graph._control_flow_context = None
        try:
            op = graph._create_op(op_type, inputs, attrs, name)
        finally:
            graph._control_flow_context = self
        self._add_op(op.name)
        return op

    def _output(self, value):
        """A branch result as a tensor: an operation becomes the pivot after it, as TF's
        with_dependencies([op], pivot) (the cond then returns a bool tensor for it)."""
        if isinstance(value, Operation):
            with self._graph.control_dependencies([value]):
                return self._graph.create_op("Identity", [self._pivot], name="Identity").outputs[0]
        return self._capture(convert_to_tensor(value))

    def build(self, fn):
        """Runs the branch function in this context; returns (its result, its tensors)."""
        graph = self._graph
        saved = getattr(graph, "_control_flow_context", None)
        graph._control_flow_context = self
        try:
            # Every op made in the branch depends on the pivot: ops the C++ side makes (a
            # variable's assign) never pass through create_op, and must not run untaken.
            with graph.control_dependencies([self._pivot]):
                result = fn()
                if result is None:
                    raise ValueError("'%s' must have a return value." % ("true_fn" if self._branch else "false_fn"))
                flat = [self._output(v) for v in _flatten(result)]
        finally:
            graph._control_flow_context = saved
        return result, flat


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _flatten(structure):
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in _flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _pack_as(structure, flat):
    """`flat` (an iterator) laid out as `structure`."""
    if isinstance(structure, dict):
        packed = {key: _pack_as(structure[key], flat) for key in sorted(structure)}
        return type(structure)((key, packed[key]) for key in structure)
    if _is_namedtuple(structure):
        return type(structure)(*[_pack_as(item, flat) for item in structure])
    if isinstance(structure, (list, tuple)):
        return type(structure)(_pack_as(item, flat) for item in structure)
    return next(flat)


def _structure_repr(structure):
    """The structure with "." for every leaf, for errors naming both sides."""
    if isinstance(structure, dict):
        return "{%s}" % ", ".join("%r: %s" % (k, _structure_repr(structure[k])) for k in sorted(structure))
    if isinstance(structure, (list, tuple)):
        inner = ", ".join(_structure_repr(s) for s in structure)
        if _is_namedtuple(structure):
            return "%s(%s)" % (type(structure).__name__, inner)
        return ("[%s]" if isinstance(structure, list) else "(%s)") % inner
    return "."


def _same_structure(a, b):
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)
                and all(_same_structure(a[k], b[k]) for k in a))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b)
                and len(a) == len(b) and all(_same_structure(x, y) for x, y in zip(a, b)))
    return True


def _switch(data, pred, name="Switch"):
    op = get_default_graph().create_op("Switch", [data, pred], name=name)
    return op.outputs[0], op.outputs[1]


def merge(inputs, name="Merge"):
    """tf.raw_ops.Merge: (the first live input, its index)."""
    op = get_default_graph().create_op("Merge", list(inputs), {"N": len(inputs)}, name=name)
    return op.outputs[0], op.outputs[1]


def switch(data, pred, name="Switch"):
    """(output_false, output_true): `data` on the side `pred` picks; the other is dead."""
    return _switch(convert_to_tensor(data), convert_to_tensor(pred), name)


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """tf.compat.v1.cond: true_fn() when `pred` (a scalar bool tensor) is true at run time,
    else false_fn(); only the taken branch runs."""
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    graph = get_default_graph()
    outer = getattr(graph, "_control_flow_context", None)
    with graph.name_scope(name or "cond"):
        pred = convert_to_tensor(pred)
        if pred.dtype != dtypes.bool:
            raise TypeError("pred must be a bool tensor, got %s" % pred.dtype.name)
        if pred.shape.ndims not in (None, 0):
            raise ValueError("pred must be a scalar, got shape %s" % (pred.shape,))
        p_false, p_true = _switch(pred, pred)
        pivot_true = graph.create_op("Identity", [p_true], name="switch_t").outputs[0]
        pivot_false = graph.create_op("Identity", [p_false], name="switch_f").outputs[0]
        pred_id = graph.create_op("Identity", [pred], name="pred_id").outputs[0]

        result_t, flat_t = CondContext(graph, pred_id, pivot_true, 1, outer).build(true_fn)
        result_f, flat_f = CondContext(graph, pred_id, pivot_false, 0, outer).build(false_fn)
        if not _same_structure(result_t, result_f) or len(flat_t) != len(flat_f):
            raise ValueError(
                "The two structures don't have the same nested structure.\n\nFirst structure: %r\n\n"
                "Second structure: %r\n\nEntire first structure:\n%s\nEntire second structure:\n%s"
                % (result_t, result_f, _structure_repr(result_t), _structure_repr(result_f)))
        for t, f in zip(flat_t, flat_f):
            if t.dtype != f.dtype:
                raise ValueError(
                    "Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received %s from "
                    "'true_fn' and %s from 'false_fn'." % (t.dtype.name, f.dtype.name))
        merged = [merge([f, t])[0] for t, f in zip(flat_t, flat_f)]
    if not strict and isinstance(result_t, (list, tuple)) and not _is_namedtuple(result_t) and len(result_t) == 1:
        return merged[0]  # TF1's non-strict cond unpacks a one-element list.
    return _pack_as(result_t, iter(merged))


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """tf.case: the fn of the first pair whose predicate is true, else default(); built as
    nested conds, last pair innermost (as TF1 does when exclusive=False)."""
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    pairs = list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not callable(pair[1]):
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple (pred, callable), got %r" % (pair,))
    all_preds = [convert_to_tensor(p) for p, _ in pairs]
    if default is None:
        if not pairs:
            raise ValueError("pred_fn_pairs is empty and there is no default")
        *pairs, (_, default) = pairs  # TF: the last pair's fn is the default.
    graph = get_default_graph()
    with graph.name_scope(name):
        guard = []
        if exclusive:  # As TF: an Assert, run before the conds, that at most one pred holds.
            from tensorweave import array_ops, check_ops, math_ops
            as_int = array_ops.stack([array_ops.cast(p, dtypes.int32) for p in all_preds])
            message = ("Input error: exclusive=True: more than 1 conditions (%s) evaluated as True:"
                       % ", ".join(p.name for p in all_preds))
            guard = [check_ops.Assert(math_ops.reduce_sum(as_int) <= 1, [message, as_int])]
        with graph.control_dependencies(guard):
            return _nested_conds(pairs, default, strict)


def _nested_conds(pairs, default, strict):
    """cond(p0, f0, lambda: cond(p1, f1, ... default)): the first true pred wins."""
    fn = default
    for pred, branch in reversed(pairs):
        fn = (lambda p, b, rest: lambda: cond(p, b, rest, strict=strict))(pred, branch, fn)
    return fn()
