"""TensorFlow's side of test_candidate_sampling.py: tf.nn.nce_loss and
tf.nn.sampled_softmax_loss on IN.npz's weights (split into two shards), biases, labels,
inputs and fixed sampled_values, for each case of CASES.json, with the gradients of the
summed loss with respect to the inputs and both shards (densified). Writes OUT.npz.
    sampled_loss_cases.py IN.npz CASES.json OUT.npz"""
import json
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

arrays = np.load(sys.argv[1])
cases = json.loads(open(sys.argv[2]).read())
out = {}
g = tf1.Graph()
with g.as_default():
    fetches = {}
    for case in cases:
        key, num_true = case["key"], case["num_true"]
        w0, w1 = tf1.constant(arrays["w0"]), tf1.constant(arrays["w1"])
        inputs = tf1.constant(arrays["inputs"])
        sampled_values = (tf1.constant(arrays["sampled"]), tf1.constant(arrays["true_expected_%d" % num_true]),
                          tf1.constant(arrays["sampled_expected"]))
        loss_fn = tf1.nn.nce_loss if case["loss"] == "nce" else tf1.nn.sampled_softmax_loss
        loss = loss_fn([w0, w1], tf1.constant(arrays["biases"]), tf1.constant(arrays["labels_%d" % num_true]), inputs,
                       num_sampled=arrays["sampled"].shape[0], num_classes=arrays["biases"].shape[0],
                       num_true=num_true, sampled_values=sampled_values,
                       remove_accidental_hits=case["remove_accidental_hits"],
                       partition_strategy=case["partition_strategy"])
        grads = tf1.gradients(tf1.reduce_sum(loss), [inputs, w0, w1])
        fetches[key + "/loss"] = loss
        for name, grad in zip(("inputs", "w0", "w1"), grads):
            fetches[key + "/d_" + name] = tf1.convert_to_tensor(grad)
    with tf1.Session() as sess:
        out = sess.run(fetches)
np.savez(sys.argv[3], **out)
