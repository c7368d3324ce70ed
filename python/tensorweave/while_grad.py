"""Gradients through a tf.while_loop whose iteration count is known only at run time, by
recomputation instead of TF1's stacks: a replay loop counts the iterations N; a backward
loop runs k = N .. 1, each step replaying the forward loop k - 1 times from its initial
values (stopped for gradients), re-running body once on that state and taking the C++
gradient pass through that one body. O(N^2) body runs: correct, not fast (the stacks of
src/kernels/cpu/stack_kernels.cc are the way to O(N)).

Limits: the float loop variables and float outside tensors get gradients; a loop nested in
the body is refused (NotImplementedError)."""
from tensorweave import _core, dtypes
from tensorweave.framework import Tensor, TensorShape, get_default_graph


def _is_float(t):
    return t.dtype in (dtypes.float32, dtypes.float64)


def backprop(info, exit_grads):
    """(gradients of the initial values, gradients of the outside tensors) for `info`'s loop,
    given the gradients arriving at its exits (None: zero)."""
    from tensorweave import array_ops, math_ops
    from tensorweave.math_reduce_ops import stop_gradient
    from tensorweave.while_loop import while_loop
    graph = get_default_graph()
    initial = info.initial
    floats = [i for i, v in enumerate(initial) if _is_float(v)]
    captured = [c for c in info.context._captured if _is_float(c)]
    scalar = TensorShape([])
    with graph.name_scope("while_grad"):
        count = while_loop(lambda k, s: info.call_cond(s), lambda k, s: (k + 1, info.call_body(s)),
                           (0, list(initial)), shape_invariants=(scalar, info.invariants), name="count",
                           return_same_structure=True)[0]
        g0 = [exit_grads[i] if exit_grads[i] is not None else array_ops.zeros_like(info.exits[i]) for i in floats]
        acc0 = [array_ops.zeros_like(c) for c in captured]

        def step(k, g, acc):
            ctx = graph._control_flow_context
            _, state = while_loop(lambda j, s: j < k - 1, lambda j, s: (j + 1, info.call_body(s)),
                                  (0, list(initial)), shape_invariants=(scalar, info.invariants), name="replay",
                                  return_same_structure=True)
            state = [stop_gradient(t) for t in state]
            loops_before = len(graph.__dict__.get("_while_loops", {}))
            out = info.call_body(state)
            if len(graph.__dict__.get("_while_loops", {})) != loops_before:
                raise NotImplementedError("tf.gradients through a while_loop nested in another loop's body is not "
                                          "supported yet (loop '%s')" % info.context._frame_name)
            xs = [state[i] for i in floats] + [ctx._capture(c) for c in captured]
            before = len(graph.get_operations())
            with graph.control_dependencies([ctx._pivot]):  # C++-made ops run per iteration too.
                grads = _core.gradients([out[i]._core for i in floats], [x._core for x in xs],
                                        [t._core for t in g])
            for op in graph.get_operations()[before:]:
                ctx._add_op(op.name)
            grads = [array_ops.zeros_like(x) if r is None else Tensor(graph, r) for r, x in zip(grads, xs)]
            return (k - 1, grads[:len(floats)],
                    [math_ops.add(a, d) for a, d in zip(acc, grads[len(floats):])])

        invariants = (scalar, [info.invariants[i] for i in floats], [c.shape for c in captured])
        _, g_initial, g_captured = while_loop(lambda k, g, acc: k > 0, step, (count, g0, acc0),
                                              shape_invariants=invariants, name="backward",
                                              return_same_structure=True)
    return [initial[i] for i in floats], g_initial, captured, g_captured
