"""TensorFlow's side of test_conv2d.py: for each case of IN (an .npz of x<i>, w<i>, dy<i> and
a JSON of attrs), the convolution and its gradients with tf.compat.v1 (graph mode, CPU):
y<i>, dx<i>, dw<i> into OUT (y only for dilated cases: TensorFlow's CPU backprop kernels
refuse dilations).
    conv2d_cases.py IN.npz CASES.json OUT.npz"""
import json
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

data = np.load(sys.argv[1])
cases = json.load(open(sys.argv[2]))
out = {}
g = tf1.Graph()
with g.as_default():
    fetches = []
    for i, attrs in enumerate(cases):
        x, w, dy = (tf1.constant(data[f"{k}{i}"]) for k in ("x", "w", "dy"))
        y = tf1.nn.conv2d(x, w, strides=attrs["strides"], padding=attrs["padding"],
                          data_format=attrs["data_format"], dilations=attrs["dilations"])
        dilated = any(d != 1 for d in attrs["dilations"])
        fetches.append((y,) if dilated else (y,) + tuple(tf1.gradients(y, [x, w], grad_ys=dy)))
    with tf1.Session() as sess:
        for i, values in enumerate(sess.run(fetches)):
            out.update({f"{name}{i}": v for name, v in zip(("y", "dx", "dw"), values)})
np.savez(sys.argv[3], **out)
