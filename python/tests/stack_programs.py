"""A program on TF1's stacks shared by test_control_flow_while.py and tf_side/stack_loops.py:
one while_loop pushes every iteration's value, a second pops them in reverse order (as TF1's
loop gradient reads its forward values). `ops` builds the four stack ops on each side."""
FEED_X = [1.0, -2.0, 0.5]
RUNS = (0, 1, 5)


def stack_program(tf, tf1, ops):
    x = tf1.placeholder(tf.float32, [3], name="x")
    n = tf1.placeholder(tf.int32, [], name="n")
    h = ops["StackV2"](-1)

    def push_body(i, v):
        pushed = ops["StackPushV2"](h, v)
        return i + 1, pushed * 0.5 + x

    _, last = tf1.while_loop(lambda i, v: i < n, push_body, [tf.constant(0), tf.zeros([3])])

    def pop_body(j, acc):
        with tf1.control_dependencies([acc]):  # Pops in order, after the first loop's pushes.
            popped = ops["StackPopV2"](h)
        return j + 1, acc * 2.0 + tf.reshape(popped, [3])

    # Starts once the first loop is done: its initial value depends on that loop's result.
    _, folded = tf1.while_loop(lambda j, acc: j < n, pop_body, [tf.constant(0), last * 0.0])
    with tf1.control_dependencies([folded]):
        close = ops["StackCloseV2"](h)
    return x, n, [last, folded], close
