"""Programs over stateful ops written once for both libraries (`tf` is tensorflow.compat.v1
with resource variables in TensorFlow's process, tensorweave in ours; `raw(op, inputs,
attrs)` adds an op by name and returns the Operation): variables, the optimizers' ResourceApply*
updates, FIFO queues and conditional accumulators. Each program builds its graph in the
graph(s) it makes, runs them and returns ({name: value}, [graphs]), where a value is an
array or, for a step expected to fail, the error's class name (the graphs tell which ops a
program compared). Run here by
test_tf_oracle_stateful.py and in TensorFlow by tf_side/run_stateful.py."""
import numpy as np

STEPS = 3


def _error_name(sess, fetch, feed=None):
    try:
        sess.run(fetch, feed)
        return "no error"
    except Exception as e:  # noqa: BLE001 - the class is the result compared
        return type(e).__name__


def variables(tf, raw):
    graph = tf.Graph()
    with graph.as_default():
        return _variables(tf, raw), [graph]


def _variables(tf, raw):
    v = tf.Variable(np.array([1.5, -2.0, 3.25], np.float32), name="v")
    w = tf.Variable(np.arange(6, dtype=np.float64).reshape(2, 3), name="w")
    initialized = tf.is_variable_initialized(v)
    assign = v.assign([4.0, 5.0, 6.0])
    add = v.assign_add([0.5, 0.25, -1.0])
    sub = w.assign_sub(np.ones((2, 3)))
    destroy = raw("DestroyResourceOp", [w.handle], {"ignore_lookup_error": False})
    read_w = w.read_value()
    out = {}
    with tf.Session() as sess:
        out["initialized_before"] = np.array(sess.run(initialized))
        out["read_uninitialized"] = _error_name(sess, v.read_value())
        sess.run(tf.global_variables_initializer())
        out["initialized_after"] = np.array(sess.run(initialized))
        out["assign"] = sess.run(assign)
        out["assign_add"] = sess.run(add)
        out["assign_sub"] = sess.run(sub)
        out["read"] = sess.run(v.read_value())
        sess.run(destroy)
        out["read_destroyed"] = _error_name(sess, read_w)
        out["destroy_again"] = _error_name(sess, destroy)
    return out


# (optimizer class name, arguments): every ResourceApply* update, with its options.
OPTIMIZERS = [
    ("GradientDescentOptimizer", dict(learning_rate=0.1)),
    ("MomentumOptimizer", dict(learning_rate=0.1, momentum=0.9)),
    ("MomentumOptimizer", dict(learning_rate=0.1, momentum=0.9, use_nesterov=True)),
    ("AdagradOptimizer", dict(learning_rate=0.1, initial_accumulator_value=0.1)),
    ("RMSPropOptimizer", dict(learning_rate=0.01, decay=0.9, momentum=0.0, epsilon=1e-10)),
    ("RMSPropOptimizer", dict(learning_rate=0.01, decay=0.8, momentum=0.5, epsilon=1e-6)),
    ("AdamOptimizer", dict(learning_rate=0.05, beta1=0.9, beta2=0.999, epsilon=1e-8)),
    ("AdamOptimizer", dict(learning_rate=0.01, beta1=0.5, beta2=0.9, epsilon=1e-4)),
]


def optimizers(tf, raw):
    """STEPS updates of each optimizer on the same variables with the same fed gradients;
    the variables after each step. float32 variables take the hyperparameters as Python
    numbers, float64 ones as float64 tensors (TensorFlow makes a number a float32 tensor
    and casts it: see number_hyperparameters)."""
    rng = np.random.RandomState(7)
    out, graphs = {}, []
    for k, (cls, args) in enumerate(OPTIMIZERS):
        for dtype in (np.float32, np.float64):
            start = [rng.uniform(-1, 1, (3, 2)).astype(dtype), rng.uniform(-1, 1, (4,)).astype(dtype)]
            grads = [[rng.uniform(-1, 1, a.shape).astype(dtype) for a in start] for _ in range(STEPS)]
            graph = tf.Graph()
            graphs.append(graph)
            with graph.as_default():
                vs = [tf.Variable(a, name=f"v{j}") for j, a in enumerate(start)]
                gs = [tf.placeholder(dtype, a.shape) for a in start]
                hyper = {name: (tf.constant(value, tf.float64) if dtype == np.float64 and not isinstance(value, bool)
                                and name != "initial_accumulator_value" else value) for name, value in args.items()}
                train = getattr(tf.train, cls)(**hyper).apply_gradients(list(zip(gs, vs)))
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    for step in range(STEPS):
                        sess.run(train, dict(zip(gs, grads[step])))
                        for j, value in enumerate(sess.run([v.read_value() for v in vs])):
                            out[f"{k}_{cls}_{np.dtype(dtype).name}_v{j}_step{step}"] = value
    return out, graphs


def number_hyperparameters(tf, raw):
    """A float64 variable and a learning rate given as a Python number: the documented
    deviation (TensorFlow rounds the number to float32 first)."""
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(np.array([0.3, -0.7]), name="v")
        train = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(tf.constant([0.11, 0.5], tf.float64), v)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            return {"gd_float64": sess.run(v.read_value())}, [graph]


def minimize(tf, raw):
    """Gradient descent on a least-squares loss through the variables' reads: the gradient
    of ReadVariableOp and the optimizer's compute_gradients."""
    graph = tf.Graph()
    with graph.as_default():
        return _minimize(tf), [graph]


def _minimize(tf):
    rng = np.random.RandomState(8)
    x, y = rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    w = tf.Variable(rng.normal(size=(3, 2)), name="w")
    b = tf.Variable(np.zeros(2), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x), w) + b - y))
    train = tf.train.GradientDescentOptimizer(tf.constant(0.2, tf.float64)).minimize(loss)
    out = {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(STEPS):
            out[f"loss{step}"] = np.array(sess.run(loss))
            sess.run(train)
        out["w"], out["b"] = sess.run([w.read_value(), b.read_value()])
    return out


def queues(tf, raw):
    """FIFO order across enqueue and enqueue_many, sizes, and what a closed queue does."""
    graph = tf.Graph()
    with graph.as_default():
        return _queues(tf), [graph]


def _queues(tf):
    q = tf.FIFOQueue(5, [tf.float32, tf.int32], shapes=[[2], []])
    enqueue = q.enqueue([tf.constant([1.0, 2.0]), tf.constant(7)])
    enqueue_many = q.enqueue_many([tf.constant([[3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]), tf.constant([8, 9, 10])])
    dequeue, dequeue_two, size = q.dequeue(), q.dequeue_many(2), q.size()
    close = q.close()
    out = {}
    with tf.Session() as sess:
        out["size0"] = np.array(sess.run(size))
        sess.run(enqueue)
        sess.run(enqueue_many)
        out["size4"] = np.array(sess.run(size))
        out["first_x"], out["first_n"] = sess.run(dequeue)
        out["two_x"], out["two_n"] = sess.run(dequeue_two)
        sess.run(close)
        out["enqueue_closed"] = _error_name(sess, enqueue)
        out["size_closed"] = np.array(sess.run(size))
        out["many_short"] = _error_name(sess, dequeue_two)  # 1 left of 2: out of range, the one kept
        out["last_x"], out["last_n"] = sess.run(dequeue)
        out["dequeue_empty"] = _error_name(sess, dequeue)
    return out


def accumulators(tf, raw):
    """A conditional accumulator (MEAN and SUM): gradients averaged over those applied since
    the last take, stale ones (local step < global step) dropped."""
    out, graphs = {}, []
    for reduction in ("MEAN", "SUM"):
        graph = tf.Graph()
        graphs.append(graph)
        with graph.as_default():
            acc = raw("ResourceConditionalAccumulator", [],
                      {"dtype": tf.float64, "shape": tf.TensorShape([2]), "reduction_type": reduction,
                       "shared_name": "acc"}).outputs[0]
            step = tf.placeholder(tf.int64, [])
            grad = tf.placeholder(tf.float64, [2])
            apply = raw("ResourceAccumulatorApplyGradient", [acc, step, grad], {})
            num = raw("ResourceAccumulatorNumAccumulated", [acc], {}).outputs[0]
            required = tf.placeholder(tf.int32, [])
            take = raw("ResourceAccumulatorTakeGradient", [acc, required], {"dtype": tf.float64}).outputs[0]
            set_step = raw("ResourceAccumulatorSetGlobalStep", [acc, step], {})
            wrong_shape = raw("ResourceAccumulatorApplyGradient",
                              [acc, tf.constant(100, tf.int64), tf.constant([1.0, 2.0, 3.0], tf.float64)], {})
            with tf.Session() as sess:
                for s, g in ((0, [1.0, 2.0]), (0, [3.0, 5.0]), (1, [-1.0, 0.5])):
                    sess.run(apply, {step: s, grad: g})
                out[f"{reduction}_num3"] = np.array(sess.run(num))
                out[f"{reduction}_take3"] = sess.run(take, {required: 3})
                out[f"{reduction}_num_after_take"] = np.array(sess.run(num))
                sess.run(set_step, {step: 5})
                sess.run(apply, {step: 3, grad: [9.0, 9.0]})  # stale: dropped
                out[f"{reduction}_num_stale"] = np.array(sess.run(num))
                sess.run(apply, {step: 5, grad: [2.0, -4.0]})
                out[f"{reduction}_take1"] = sess.run(take, {required: 1})
                out[f"{reduction}_take_zero"] = _error_name(sess, take, {required: 0})
                out[f"{reduction}_wrong_shape"] = _error_name(sess, wrong_shape)
    return out, graphs


# The ResourceSparseApply* updates: (op, hyperparameter inputs before grad, after indices, attrs, slots).
SPARSE_UPDATES = [
    ("ResourceSparseApplyProximalGradientDescent", [0.1, 0.0, 0.0], [], {}, 0),
    ("ResourceSparseApplyProximalGradientDescent", [0.1, 0.05, 0.2], [], {}, 0),
    ("ResourceSparseApplyMomentum", [0.1], [0.9], {}, 1),
    ("ResourceSparseApplyMomentum", [0.1], [0.9], {"use_nesterov": True}, 1),
    ("ResourceSparseApplyAdagrad", [0.1], [], {}, 1),
    ("ResourceSparseApplyRMSProp", [0.05, 0.8, 0.5, 1e-6], [], {}, 2),
]


def sparse_updates(tf, raw):
    """STEPS sparse updates of the rows [3, 0, 3, 4] (one repeated: applied twice, in turn) of
    a [5, 3] variable and its slot, float32 and float64, int32 and int64 indices; then an
    index outside the variable (an error, nothing written)."""
    rng = np.random.RandomState(9)
    out, graphs = {}, []
    for k, (op, before, after, attrs, slots) in enumerate(SPARSE_UPDATES):
        for dtype, index_dtype in ((np.float32, np.int32), (np.float64, np.int64)):
            start = [rng.uniform(-1, 1, (5, 3)).astype(dtype)] + [rng.uniform(0.1, 1, (5, 3)).astype(dtype)] * slots
            grads = [rng.uniform(-1, 1, (4, 3)).astype(dtype) for _ in range(STEPS)]
            graph = tf.Graph()
            graphs.append(graph)
            with graph.as_default():
                vs = [tf.Variable(a, name=f"s{j}") for j, a in enumerate(start)]
                g = tf.placeholder(dtype, [4, 3])
                ids = tf.placeholder(index_dtype, [4])
                scalars = [tf.constant(x, dtype) for x in before]
                update = raw(op, [v.handle for v in vs] + scalars + [g, ids] + [tf.constant(x, dtype) for x in after],
                             attrs)
                name = f"{k}_{op}_{np.dtype(dtype).name}"
                with tf.Session() as sess:
                    sess.run(tf.global_variables_initializer())
                    for step in range(STEPS):
                        sess.run(update, {g: grads[step], ids: np.array([3, 0, 3, 4], index_dtype)})
                        for j, value in enumerate(sess.run([v.read_value() for v in vs])):
                            out[f"{name}_v{j}_step{step}"] = value
                    before_error = sess.run(vs[0].read_value())
                    out[f"{name}_out_of_range"] = _error_name(sess, update, {g: grads[0],
                                                                            ids: np.array([1, 5, 0, 0], index_dtype)})
                    changed = np.any(sess.run(vs[0].read_value()) != before_error, axis=1)
                    out[f"{name}_rows_written_before_the_error"] = np.flatnonzero(changed)
    return out, graphs


def resource_gather(tf, raw):
    """ResourceGather: rows of a variable by index (repeated, and 2-D indices), then an index
    outside it (an error)."""
    graph = tf.Graph()
    with graph.as_default():
        v = tf.Variable(np.arange(15, dtype=np.float32).reshape(5, 3), name="rows")
        ids = tf.placeholder(tf.int64, None)
        rows = raw("ResourceGather", [v.handle, ids], {"dtype": tf.float32}).outputs[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = {"flat": sess.run(rows, {ids: [4, 0, 4]}), "matrix": sess.run(rows, {ids: [[1, 2], [3, 3]]}),
                   "empty": sess.run(rows, {ids: np.zeros((0,), np.int64)}),
                   "out_of_range": _error_name(sess, rows, {ids: [1, 5]}),
                   "negative": _error_name(sess, rows, {ids: [-1]})}
    return out, [graph]


def variable_shape(tf, raw):
    """VariableShape (TF's cond gradient uses it): int32 and int64, a scalar, a matrix, and a
    variable not yet initialized (an error)."""
    graph = tf.Graph()
    with graph.as_default():
        m = tf.Variable(np.zeros((2, 3), np.float32), name="m")
        s = tf.Variable(1.5, name="s")
        later = tf.Variable(np.zeros((4,), np.float64), name="later")
        shape_m = raw("VariableShape", [m.handle], {}).outputs[0]
        shape_m64 = raw("VariableShape", [m.handle], {"out_type": tf.int64}).outputs[0]
        shape_s = raw("VariableShape", [s.handle], {}).outputs[0]
        shape_later = raw("VariableShape", [later.handle], {}).outputs[0]
        with tf.Session() as sess:
            uninitialized = _error_name(sess, shape_later)
            sess.run([m.initializer, s.initializer])
            out = {"matrix": sess.run(shape_m), "matrix64": sess.run(shape_m64), "scalar": sess.run(shape_s),
                   "uninitialized": uninitialized}
    return out, [graph]


PROGRAMS = {"variables": variables, "optimizers": optimizers, "number_hyperparameters": number_hyperparameters,
            "minimize": minimize, "queues": queues, "accumulators": accumulators, "sparse_updates": sparse_updates,
            "resource_gather": resource_gather, "variable_shape": variable_shape}
