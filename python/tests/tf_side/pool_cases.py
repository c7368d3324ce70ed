"""TensorFlow's side of test_pooling.py: for each case of IN (an .npz of x<i>, dy<i>, ddx<i>
and a JSON of attrs), max and average pooling with tf.compat.v1 (graph mode, CPU), their
gradients and the gradients' gradients in dy: <kind>_y<i>, <kind>_dx<i>, <kind>_ddy<i>.
TensorFlow's CPU pooling kernels take NHWC only, so NCHW cases pool the transposed input.
    pool_cases.py IN.npz CASES.json OUT.npz"""
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
        x, dy, ddx = (tf1.constant(data[f"{k}{i}"]) for k in ("x", "dy", "ddx"))
        nchw = a["data_format"] == "NCHW"
        for kind in a["kinds"]:
            xin = tf1.transpose(x, [0, 2, 3, 1]) if nchw else x
            k, s = a["ksize"], a["strides"]
            if nchw:
                k, s = [k[0], k[2], k[3], k[1]], [s[0], s[2], s[3], s[1]]
            if kind == "max":
                y = tf.raw_ops.MaxPool(input=xin, ksize=k, strides=s, padding=a["padding"],
                                       explicit_paddings=a["explicit_paddings"])
            else:
                y = tf.raw_ops.AvgPool(value=xin, ksize=k, strides=s, padding=a["padding"])
            if nchw:
                y = tf1.transpose(y, [0, 3, 1, 2])
            dyt = tf1.placeholder_with_default(dy, dy.shape)
            (dx,) = tf1.gradients(y, [x], grad_ys=dyt)
            fetches[f"{kind}_y{i}"], fetches[f"{kind}_dx{i}"] = y, dx
            if a["padding"] != "EXPLICIT":
                (ddy,) = tf1.gradients(dx, [dyt], grad_ys=ddx)
                fetches[f"{kind}_ddy{i}"] = ddy
    with tf1.Session() as sess:
        out.update(sess.run(fetches))
np.savez(sys.argv[3], **out)
