"""TensorFlow's side of test_candidate_sampling.py's sampler checks: for each case of
CASES.json (sampler, unique), RUNS runs of the sampler on IN.npz's true_classes with
range_max and num_sampled; writes per case the frequency of each class among the samples,
the mean true and sampled expected counts by class, and the error messages of two bad
calls, to OUT.npz.
    sampler_stats.py IN.npz CASES.json OUT.npz"""
import json
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

arrays = np.load(sys.argv[1])
cases = json.loads(open(sys.argv[2]).read())
true_classes = arrays["true_classes"]
out = {}
for case in cases:
    g = tf1.Graph()
    with g.as_default():
        fn = getattr(tf1.nn, case["sampler"] + "_candidate_sampler")
        outs = fn(tf1.constant(true_classes), true_classes.shape[1], case["num_sampled"], case["unique"],
                  case["range_max"], seed=case["seed"])
        with tf1.Session() as sess:
            freq = np.zeros(case["range_max"])
            expected = np.zeros(case["range_max"])
            true_expected = np.zeros(true_classes.shape)
            for _ in range(case["runs"]):
                sampled, te, se = sess.run(outs)
                np.add.at(freq, sampled, 1)
                np.add.at(expected, sampled, se)
                true_expected += te
    key = case["key"]
    out[key + "/freq"] = freq / case["runs"]
    out[key + "/sampled_expected_mean"] = expected / np.maximum(freq, 1)
    out[key + "/true_expected_mean"] = true_expected / case["runs"]
for name, num_true, num_sampled, unique, range_max in (("too_small", 2, 9, True, 8), ("columns", 3, 2, False, 8)):
    g = tf1.Graph()
    with g.as_default():
        try:
            outs = tf1.nn.log_uniform_candidate_sampler(tf1.constant(true_classes), num_true, num_sampled, unique,
                                                        range_max)
            with tf1.Session() as sess:
                sess.run(outs)
            message = ""
        except (tf.errors.OpError, ValueError) as e:
            message = str(e)
    out["error/" + name] = np.array(message)
np.savez(sys.argv[3], **out)
