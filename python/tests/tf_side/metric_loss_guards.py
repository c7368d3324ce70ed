"""One program over two TF1 guards, written once against the TF 1.x API and run by both
systems: tf.metrics.auc fails its update on predictions outside [0, 1] (an Assert op), and
tf.losses.softmax_cross_entropy passes no gradient to its (smoothed) labels.
test_metric_loss_guards.py imports `program`; run as a script it runs it with TensorFlow and
prints the results as JSON.
    metric_loss_guards.py"""
import json


def program(tf):
    """{name: value}: the auc update's error text on bad predictions (None when it runs), for
    float32 and float64 predictions, and whether d(loss)/d(labels) is None, with and without
    label smoothing. TensorFlow's asserts gate only the ops made under their control
    dependency (the casts): float32 predictions with bool labels need none, so there the
    asserts never run and the update succeeds; float64 predictions are cast, and fail."""
    out = {}
    for dtype in (tf.float32, tf.float64):
        with tf.Graph().as_default():
            predictions = tf.placeholder(dtype, [None])
            labels = tf.placeholder(tf.bool, [None])
            _, update = tf.metrics.auc(labels=labels, predictions=predictions)
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                key = dtype.name
                out["auc_ok_" + key] = float(sess.run(update, {predictions: [0.2, 0.9], labels: [False, True]}))
                for case, bad in (("above", [0.5, 1.5]), ("below", [-0.25, 0.5])):
                    try:
                        sess.run(update, {predictions: bad, labels: [False, True]})
                        out["auc_%s_%s" % (case, key)] = None
                    except tf.errors.InvalidArgumentError as e:
                        out["auc_%s_%s" % (case, key)] = e.message
    for smoothing in (0.0, 0.2):
        with tf.Graph().as_default():
            onehot = tf.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
            logits = tf.constant([[0.3, -1.0, 2.0], [0.5, 0.25, -0.5]])
            loss = tf.losses.softmax_cross_entropy(onehot, logits, label_smoothing=smoothing)
            d_labels, d_logits = tf.gradients(loss, [onehot, logits])
            out["labels_grad_none_%g" % smoothing] = d_labels is None
            with tf.Session() as sess:
                out["logits_grad_%g" % smoothing] = sess.run(d_logits).tolist()
    return out


if __name__ == "__main__":
    import tensorflow

    tf1 = tensorflow.compat.v1
    tf1.disable_eager_execution()
    print(json.dumps(program(tf1)))
