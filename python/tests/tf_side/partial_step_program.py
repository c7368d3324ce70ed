"""A between-graph training step whose second gradient never reaches the ps, run by
test_partial_step.py with tensorweave and by partial_step.py with TensorFlow (tf.compat.v1).
The ps updates v1 and v2 by the gradients computed on the worker, and increments the step
once both updates ran (as apply_gradients does). The second gradient waits on a dequeue that
nothing feeds, and the step ends at its deadline: the ps applied what had arrived (v1) and
not the rest, unless `gated`, where the updates wait on the ps for every gradient first
(tests/netns/fault_driver.cc's GatedOnPs)."""


def run(tf, target, gated):
    """-> {"v1", "v2", "step": values after the failed step, "error": its error class name}"""
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [])
            queue = tf.FIFOQueue(1, [tf.float32], shapes=[[]])
            grads = [x * 2.0, queue.dequeue()]  # The second never comes.
        with tf.device("/job:ps/task:0"):
            v1 = tf.Variable(0.0, name="v1")
            v2 = tf.Variable(0.0, name="v2")
            step = tf.Variable(0, dtype=tf.int64, name="step")
            if gated:
                arrived = [tf.identity(g) for g in grads]
                with tf.control_dependencies(arrived):
                    gate = tf.no_op()
                with tf.control_dependencies([gate]):
                    grads = [tf.identity(g) for g in arrived]
            updates = [v1.assign_add(grads[0]), v2.assign_add(grads[1])]
            with tf.control_dependencies(updates):
                train = step.assign_add(1)
        init = tf.global_variables_initializer()
    with tf.Session(target, graph=graph) as sess:
        sess.run(init)
        try:
            sess.run(train, {x: 1.5}, options=tf.RunOptions(timeout_in_ms=1500))
            error = "none"
        except tf.errors.OpError as e:
            error = type(e).__name__
        values = sess.run({"v1": v1, "v2": v2, "step": step})
    return dict(values, error=error)
