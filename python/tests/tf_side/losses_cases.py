"""TensorFlow's side of test_losses_oracle.py: for each case of IN (an .npz of the arrays
named in the case) and CASES (JSON: loss, arrays for its arguments, other keyword
arguments), tf.compat.v1.losses.<loss> in graph mode and its gradient with respect to the
argument named in `wrt`: v<i> and g<i> into OUT, or e<i> with the error's type name.
    losses_cases.py IN.npz CASES.json OUT.npz"""
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
    with tf1.Graph().as_default():
        args = {name: tf1.constant(data[key]) for name, key in case["arrays"].items()}
        try:
            loss = getattr(tf1.losses, case["loss"])(**args, **case["kwargs"])
            grad = tf1.gradients(loss, args[case["wrt"]])[0]
            with tf1.Session() as sess:
                out[f"v{i}"], out[f"g{i}"] = sess.run([loss, grad])
            out[f"n{i}"] = np.array(len(tf1.get_collection(tf1.GraphKeys.LOSSES)))
        except (ValueError, tf.errors.OpError) as e:
            out[f"e{i}"] = np.array(type(e).__name__)
np.savez(sys.argv[3], **out)
