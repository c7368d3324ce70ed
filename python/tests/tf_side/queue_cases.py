"""Queue cases shared by both sides (test_input_queues.py here, queue_results.py in
TensorFlow): each builds a graph with the `tf` module it is given and returns a list of
steps (fetches); run_all runs them in order and records each result or error. A shuffling
queue's order is its own (TensorFlow's generator is not ours), so those cases sort."""
import re

import numpy as np


def _sorted(x):
    return sorted(np.asarray(x).tolist())


def cases():
    c = {}

    def fifo_up_to(tf):
        q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
        up = q.dequeue_up_to(3)
        return [q.enqueue_many([[1, 2, 3, 4, 5]]), q.close(), up, up, up, q.size()], {}
    c["fifo_up_to"] = fifo_up_to

    def fifo_closed_many(tf):
        q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
        return [q.enqueue_many([[1, 2, 3]]), q.close(), q.dequeue_many(4), q.dequeue_many(3), q.enqueue(1)], {}
    c["fifo_closed_many"] = fifo_closed_many

    def fifo_up_to_pairs(tf):
        q = tf.FIFOQueue(10, [tf.string, tf.float32], shapes=[[2], []])
        up = q.dequeue_up_to(2)
        return [q.enqueue_many([[[b"a", b"b"], [b"c", b"d"], [b"e", b"f"]], [1.5, 2.5, 3.5]]), q.close(), up, up,
                up], {}
    c["fifo_up_to_pairs"] = fifo_up_to_pairs

    def shuffle_keeps_every_element(tf):
        q = tf.RandomShuffleQueue(10, 2, tf.int32, shapes=[[]], seed=3)
        return [q.enqueue_many([list(range(8))]), q.size(), ("collect", q.dequeue_many(6)), q.size(), q.close(),
                ("collect", q.dequeue_up_to(5)), "pool", q.dequeue(), q.enqueue(1)], {}
    c["shuffle_keeps_every_element"] = shuffle_keeps_every_element

    def shuffle_keeps_tuples_together(tf):
        q = tf.RandomShuffleQueue(20, 0, [tf.int64, tf.string], shapes=[[], []], seed=7)
        ids = list(range(12))
        many = q.dequeue_many(12)
        pairs = tf.strings.join([tf.as_string(many[0]), many[1]], separator="=")
        return [q.enqueue_many([ids, ["v%d" % i for i in ids]]), ("sorted", pairs)], {}
    c["shuffle_keeps_tuples_together"] = shuffle_keeps_tuples_together

    def shuffle_closed_many(tf):
        q = tf.RandomShuffleQueue(10, 5, tf.float32, shapes=[[2]], seed=1)
        return [q.enqueue_many([[[1, 2], [3, 4], [5, 6]]]), q.close(), q.dequeue_many(4),
                ("sorted", q.dequeue_many(3))], {}
    c["shuffle_closed_many"] = shuffle_closed_many
    def count_up_to(tf):
        v = tf.Variable(np.int64(0), trainable=False)
        step = tf.count_up_to(v, 2)
        return [v.initializer, step, step, step, v.read_value()], {}
    c["count_up_to"] = count_up_to
    return c


def message(error):
    """The kernel's words without the node wrapping, queue names without TF's '_N_' prefix."""
    text = getattr(error, "message", None) or str(error)
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.startswith("\t")]
    text = re.sub(r"^node '[^']*' \([^)]*\): ", "", lines[-1])
    return re.sub(r"'_\d+_", "'", text)


def describe(value):
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    a = np.asarray(value)
    return [str(a.dtype), list(a.shape), a.tolist()]


def run_all(tf, session_factory, all_cases=None):
    """{case: [the result of each step]}: `all_cases` (name -> case) or this file's cases."""
    results = {}
    for name, case in (all_cases or cases()).items():
        g = tf.Graph()
        with g.as_default():
            steps, feed = case(tf)
            out, pool = [], []
            with session_factory(g) as sess:
                for step in steps:
                    if step == "pool":  # everything the "collect" steps took, in order
                        out.append(sorted(pool))
                        continue
                    tag = step[0] if isinstance(step, tuple) else None
                    fetch = step[1] if tag else step
                    try:
                        got = sess.run(fetch, feed)
                        if tag == "collect":  # how many; which ones is the shuffle's choice
                            pool.extend(np.asarray(got).tolist())
                            out.append(len(got))
                        else:
                            out.append(_sorted(got) if tag == "sorted" else describe(got))
                    except Exception as e:  # noqa: BLE001 - the error is the result compared
                        out.append(["error", type(e).__name__, message(e)])
            results[name] = out
    return results
