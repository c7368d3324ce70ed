"""TensorFlow's side of test_depthwise_conv.py: for each case of IN (an .npz of x<i>, w<i>,
pw<i>, dy<i> and a JSON of attrs), tf.compat.v1.nn.depthwise_conv2d with its `rate` (TF1's
dilation, computed through space_to_batch since the CPU kernel takes no dilations) and its
gradients y<i>, dx<i>, dw<i>; and, where pw<i> is given, separable_conv2d's value sep<i>.
    depthwise_cases.py IN.npz CASES.json OUT.npz"""
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
    fetches = {}
    for i, a in enumerate(cases):
        x, w, dy = (tf1.constant(data[f"{k}{i}"]) for k in ("x", "w", "dy"))
        y = tf1.nn.depthwise_conv2d(x, w, strides=a["strides"], padding=a["padding"], rate=a["rate"])
        fetches[f"y{i}"] = y
        fetches[f"dx{i}"], fetches[f"dw{i}"] = tf1.gradients(y, [x, w], grad_ys=dy)
        if f"pw{i}" in data:
            fetches[f"sep{i}"] = tf1.nn.separable_conv2d(x, w, tf1.constant(data[f"pw{i}"]), strides=a["strides"],
                                                         padding=a["padding"], rate=a["rate"])
    with tf1.Session() as sess:
        out.update(sess.run(fetches))
np.savez(sys.argv[3], **out)
