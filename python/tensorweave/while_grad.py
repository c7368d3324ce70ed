"""Gradients through a tf.while_loop whose iteration count is known only at run time, with
TF1's stacks (O(N) body runs, as TF1's GradLoopState):

- forward: the loop gets, after the fact, one more loop variable, a counter. Each iteration
  pushes the body's incoming loop variables (all of them: the body may read an int
  counter) onto one stack per variable (StackV2 made outside the loop, StackPushV2 inside);
  the counter's increment waits for those pushes, so iteration i pushes before i + 1. The
  counter's Exit is N, the number of body runs.
- backward: a loop of N steps pops the state of iteration N - 1 .. 0 (each step's pops wait
  for the previous step's), re-runs body once on it and takes the C++ gradient pass through
  that one body, carrying the loop variables' gradients and accumulating the outside
  tensors'. The stacks are closed once it is done.

Each tf.gradients call adds its own counter and stacks. A loop nested in the body is re-run
with it, and the step's gradient goes through it by the same method (gradients.py keeps each
pass to the loops of its own frame). Limits: the float loop variables and float outside
tensors get gradients; the body's random draws and TensorArray sizes (while_loop.REPLAYED_OPS)
are replayed from the forward run, its other stateful ops re-run."""
from tensorweave import _core, dtypes
from tensorweave.framework import Tensor, TensorShape, convert_to_tensor, get_default_graph
from tensorweave.while_loop import _outside_control_deps, _without_context


def _is_float(t):
    return t.dtype in (dtypes.float32, dtypes.float64)


def _in_context(graph, ctx, fn):
    """fn() with `ctx` current and no control dependencies from outside it."""
    saved = getattr(graph, "_control_flow_context", None)
    graph._control_flow_context = ctx
    try:
        with _outside_control_deps(graph):
            return fn()
    finally:
        graph._control_flow_context = saved


def _add_pushes(info):
    """Adds to `info`'s forward loop the counter and the pushes of each iteration's incoming
    loop variables and of its REPLAYED_OPS (while_loop.py); returns (the stack handles; the count
    Exit; the pushed tensors: the body's inputs, then the replayed ops' values)."""
    from tensorweave import math_ops
    graph, ctx = get_default_graph(), info.context
    pushed = list(info.body_in) + [op.outputs[0] for op in ctx._replayed]

    def outside():
        zero = convert_to_tensor(0)
        handles = [graph.create_op("StackV2", [convert_to_tensor(-1)], {"elem_type": v.dtype, "stack_name": "f_acc"},
                                   name="f_acc").outputs[0] for v in pushed]
        return zero, handles

    zero, handles = _in_context(graph, ctx._outer, outside)
    enter = ctx.enter(zero, False, name="f_count")
    merge = _without_context(graph, lambda: graph._create_op("Merge", [enter, enter], {"N": 2}, name="Merge"))
    ctx._add_op(merge.name)
    switch = _without_context(graph, lambda: graph._create_op("Switch", [merge.outputs[0], info.loop_cond],
                                                              name="Switch"))
    ctx._add_op(switch.name)
    count = _without_context(graph, lambda: graph._create_op("Identity", [switch.outputs[1]], name="Identity"))
    ctx._add_op(count.name)
    count = count.outputs[0]

    def in_frame():
        with graph.control_dependencies([count]):  # After the previous iteration's pushes.
            pushes = [graph.create_op("StackPushV2", [h, v], name="f_acc_push") for h, v in zip(handles, pushed)]
        with graph.control_dependencies(pushes):
            return math_ops.add(count, 1)

    nxt_value = _in_context(graph, ctx, in_frame)
    nxt = _without_context(graph, lambda: graph._create_op("NextIteration", [nxt_value], name="NextIteration"))
    ctx._add_op(nxt.name)
    graph._core.set_back_edge(merge.name, 1, nxt.name)
    # Marked as tf.while_loop's Exits are: the C++ pass takes it as a constant.
    exit_op = _without_context(graph, lambda: graph._create_op("Exit", [switch.outputs[0]], {"_grad_in_python": True},
                                                               name="f_count_exit"))
    if ctx._outer is not None:
        ctx._outer._add_op(exit_op.name)
    return handles, exit_op.outputs[0], pushed


def _pinned(tensor, shape):
    """tensor with static shape `shape` (EnsureShape) when its own says less."""
    from tensorweave.shape_n_ops import ensure_shape
    if shape.dims is None or tensor.shape == shape:
        return tensor
    return ensure_shape(tensor, shape)


def backprop(info, exit_grads):
    """(gradients of the initial values, gradients of the outside tensors) for `info`'s loop,
    given the gradients arriving at its exits (None: zero)."""
    from tensorweave import array_ops, math_ops
    from tensorweave.shape_n_ops import ensure_shape
    from tensorweave.while_loop import while_loop
    graph = get_default_graph()
    initial = info.initial
    floats = [i for i, v in enumerate(initial) if _is_float(v)]
    captured = [c for c in info.context._captured if _is_float(c)]
    scalar = TensorShape([])
    with graph.name_scope(info.context._frame_name + "/"):
        handles, count, pushed = _add_pushes(info)
    with graph.name_scope("while_grad"):
        # The backward loop starts once the forward loop is done: its re-run bodies must not
        # overtake a forward body still running (a TensorArray write, say).
        with graph.control_dependencies(info.exits):
            count = array_ops.identity(count)
        # An arriving gradient may know less of its shape than the loop's invariant (a
        # reduce_sum's BroadcastTo to a fed shape): pinned to it, as the exit's value is.
        g0 = [_pinned(exit_grads[i], info.invariants[i]) if exit_grads[i] is not None
              else array_ops.zeros_like(info.exits[i]) for i in floats]
        acc0 = [array_ops.zeros_like(c) for c in captured]

        def step(k, g, acc):
            ctx = graph._control_flow_context
            with graph.control_dependencies([k]):  # After the previous step's pops.
                pops = [graph.create_op("StackPopV2", [h], {"elem_type": v.dtype}, name="f_acc_pop")
                        for h, v in zip(handles, pushed)]
            popped = [p.outputs[0] for p in pops]
            n = len(info.body_in)
            state = [p if inv.dims is None else ensure_shape(p, inv) for p, inv in zip(popped[:n], info.invariants)]
            replays = iter(zip(info.context._replayed, pops[n:]))

            def replay(op_type):
                forward, pop = next(replays, (None, None))
                if forward is None or forward.type != op_type:
                    raise NotImplementedError("tf.gradients through a while_loop: the body made other ops when run "
                                              "again (%s)" % op_type)
                return pop

            loops_before = len(graph.__dict__.get("_while_loops", {}))
            # Re-run TensorArray ops may re-read (tensor_array_ops.py); REPLAYED_OPS are popped.
            graph._tw_grad_rerun, graph._tw_replay = True, replay
            try:
                out = info.call_body(state)
            finally:
                graph._tw_grad_rerun, graph._tw_replay = False, None
            nested = len(graph.__dict__.get("_while_loops", {})) != loops_before
            xs = [state[i] for i in floats] + [ctx._capture(c) for c in captured]
            before = len(graph.get_operations())
            with graph.control_dependencies([ctx._pivot]):  # C++-made ops run per iteration too.
                if nested:  # the re-run body made its own loops: the pass that goes through loops
                    from tensorweave.gradients import _gradients
                    grads = [None if r is None else r._core
                             for r in _gradients([out[i] for i in floats], xs, list(g), None)]
                else:
                    grads = _core.gradients([out[i]._core for i in floats], [x._core for x in xs],
                                            [t._core for t in g])
            for op in graph.get_operations()[before:]:
                ctx._add_op(op.name)
            grads = [array_ops.zeros_like(x) if r is None else Tensor(graph, r) for r, x in zip(grads, xs)]
            # The C++ pass may lose a static dim the loop's invariants keep: pinned back.
            shapes = [info.invariants[i] for i in floats] + [c.shape for c in captured]
            grads = [_pinned(g, s) for g, s in zip(grads, shapes)]
            with graph.control_dependencies(popped):
                k_next = k - 1
            return (k_next, grads[:len(floats)],
                    [math_ops.add(a, d) for a, d in zip(acc, grads[len(floats):])])

        invariants = (scalar, [info.invariants[i] for i in floats], [c.shape for c in captured])
        k_end, g_initial, g_captured = while_loop(lambda k, g, acc: k > 0, step, (count, g0, acc0),
                                                  shape_invariants=invariants, name="backward",
                                                  return_same_structure=True)
        # The stacks are empty now: closed before anyone reads the gradients.
        with graph.control_dependencies([k_end] + g_initial + g_captured):
            closes = [graph.create_op("StackCloseV2", [h], name="f_acc_close") for h in handles]
        with graph.control_dependencies(closes):
            g_initial = [array_ops.identity(g) for g in g_initial]
            g_captured = [array_ops.identity(g) for g in g_captured]
    return [initial[i] for i in floats], g_initial, captured, g_captured
