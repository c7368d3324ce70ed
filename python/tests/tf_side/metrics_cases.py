"""TensorFlow's side of test_metrics_oracle.py: for each case of CASES (JSON: the metric,
the arrays it takes as labels and predictions, its keyword arguments, whether it takes
weights, the batch names), tf.compat.v1.metrics.<metric> on placeholders (mean: the
predictions as its values), run through the batches of IN (<labels><b>, <predictions><b>,
weights<b>): the
update op's result u<i>_<b> and the value after it v<i>_<b>; then the value after
tf.local_variables_initializer() (reset<i>) and after one more update (again<i>); and the
sizes of the LOCAL_VARIABLES and METRIC_VARIABLES collections (locals<i>, metric_vars<i>).
    metrics_cases.py IN.npz CASES.json OUT.npz"""
import json
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

data = np.load(sys.argv[1])
cases = json.load(open(sys.argv[2]))
out = {}
for i, case in enumerate(cases):
    batches = case["batches"]
    with tf1.Graph().as_default():
        first = batches[0]
        labels = tf1.placeholder(data[case["labels"] + first].dtype, name="labels")
        predictions = tf1.placeholder(data[case["predictions"] + first].dtype, name="predictions")
        weights = tf1.placeholder(tf.float32, name="weights") if case["weighted"] else None
        if case["metric"] == "mean":
            value, update = tf1.metrics.mean(predictions, weights=weights, **case["kwargs"])
        else:
            value, update = getattr(tf1.metrics, case["metric"])(labels=labels, predictions=predictions,
                                                                 weights=weights, **case["kwargs"])
        out[f"locals{i}"] = np.array(len(tf1.local_variables()))
        out[f"metric_vars{i}"] = np.array(len(tf1.get_collection(tf1.GraphKeys.METRIC_VARIABLES)))

        def feed(b):
            fd = {labels: data[case["labels"] + b], predictions: data[case["predictions"] + b]}
            if weights is not None:
                fd[weights] = data["weights" + b]
            return fd
        with tf1.Session() as sess:
            sess.run(tf1.local_variables_initializer())
            for b in batches:
                out[f"u{i}_{b}"] = sess.run(update, feed(b))
                out[f"v{i}_{b}"] = sess.run(value)
            sess.run(tf1.local_variables_initializer())
            out[f"reset{i}"] = sess.run(value)
            sess.run(update, feed(batches[-1]))
            out[f"again{i}"] = sess.run(value)
np.savez(sys.argv[3], **out)
