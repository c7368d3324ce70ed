"""Queue-based input pipelines shared by both sides (test_input_pipeline.py here,
pipeline_results.py in TensorFlow): each case builds producers and batchers with the `tf`
module it is given and returns the fetch to run until OutOfRange; run_all starts the queue
runners under a Coordinator and records every value, then the error that ended the input.
Unshuffled pipelines must match TensorFlow exactly; shuffled ones as a multiset."""
import re

import numpy as np


def cases():
    c = {}

    def file_names_two_epochs(tf):
        return tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False).dequeue(), "ordered"
    c["file_names_two_epochs"] = file_names_two_epochs

    def file_names_shuffled(tf):
        q = tf.train.string_input_producer(["a", "b", "c", "d"], num_epochs=3, shuffle=True, seed=4)
        return q.dequeue(), "multiset"
    c["file_names_shuffled"] = file_names_shuffled

    def range_batches(tf):
        i = tf.train.range_input_producer(7, num_epochs=1, shuffle=False).dequeue()
        return tf.train.batch([i], batch_size=3, allow_smaller_final_batch=True), "ordered"
    c["range_batches"] = range_batches

    def slices_batched(tf):
        x = tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2))
        y = tf.constant(["r%d" % i for i in range(6)])
        xs, ys = tf.train.slice_input_producer([x, y], num_epochs=1, shuffle=False)
        return tf.train.batch({"x": xs, "y": ys}, batch_size=4, allow_smaller_final_batch=True), "ordered"
    c["slices_batched"] = slices_batched

    def enqueue_many_batches(tf):
        i = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue_many(5)
        return tf.train.batch([i, tf.as_string(i)], batch_size=4, enqueue_many=True,
                              allow_smaller_final_batch=True), "ordered"
    c["enqueue_many_batches"] = enqueue_many_batches

    def shuffle_batches(tf):
        i = tf.train.range_input_producer(20, num_epochs=1, shuffle=False).dequeue()
        b = tf.train.shuffle_batch([i, i * 10], batch_size=4, capacity=20, min_after_dequeue=5, seed=2,
                                   allow_smaller_final_batch=True)
        return tf.stack(b, axis=1), "rows"
    c["shuffle_batches"] = shuffle_batches

    def full_batches_only(tf):
        i = tf.train.range_input_producer(7, num_epochs=1, shuffle=False).dequeue()
        return tf.train.batch([i], batch_size=3), "ordered"
    c["full_batches_only"] = full_batches_only
    return c


def message(error):
    text = getattr(error, "message", None) or str(error)
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.startswith("\t")]
    text = re.sub(r"^node '[^']*' \([^)]*\): ", "", lines[-1])
    return re.sub(r"'_\d+_", "'", text)


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    a = np.asarray(value)
    return [str(a.dtype), list(a.shape), a.tolist()]


def run_all(tf, session_factory):
    results = {}
    for name, case in cases().items():
        g = tf.Graph()
        with g.as_default():
            fetch, how = case(tf)
            init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
            with session_factory(g) as sess:
                sess.run(init)
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess, coord)
                values, end = [], None
                for _ in range(100):
                    try:
                        values.append(sess.run(fetch))
                    except tf.errors.OutOfRangeError as e:
                        # The counts in the message depend on whether the last dequeue started
                        # before the queue closed (a race on both sides): compared without them.
                        end = ["OutOfRangeError", re.sub(r" \(requested .*\)$", "", message(e))]
                        break
                coord.request_stop()
                coord.join(threads)
        if how == "multiset":
            values = sorted(np.asarray(values).ravel().tolist())
        elif how == "rows":  # rows of a shuffled batch stay whole; which batch they land in is random
            values = sorted(tuple(r) for v in values for r in np.asarray(v).tolist())
        else:
            values = _plain(values)
        results[name] = [values, end]
    return results
