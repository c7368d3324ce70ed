"""One program over the classifier ops' Python API (tf.nn activations, top_k, in_top_k,
tf.cumsum, tf.cumprod, the clip_by_* functions and global_norm),
written once against the TF 1.x API and run by both systems: test_activations.py imports
`program` and runs it with tensorweave; run as a script it runs it with TensorFlow and writes
every result to OUT.npz.
    classifier_api.py IN.npz OUT.npz"""
import sys

import numpy as np


def program(tf, arrays):
    """{name: tensor}: the wrappers under TF's names and keywords, and their gradients."""
    x = tf.constant(arrays["x"])
    logits = tf.constant(arrays["logits"])
    labels = tf.constant(arrays["labels"])
    out = {
        "relu6": tf.nn.relu6(x), "elu": tf.nn.elu(x), "selu": tf.nn.selu(x),
        "leaky_relu": tf.nn.leaky_relu(x), "leaky_relu_01": tf.nn.leaky_relu(x, alpha=0.1),
        "softplus": tf.nn.softplus(x), "softsign": tf.nn.softsign(x),
    }
    for name in list(out):
        out["d_" + name] = tf.gradients(out[name] * out[name], x)[0]
    values, indices = tf.nn.top_k(logits, k=3)
    out["top_k_values"], out["top_k_indices"] = values, indices
    top1 = tf.nn.top_k(logits)
    out["top_1_values"], out["top_1_indices"] = top1.values, top1.indices
    out["d_top_k"] = tf.gradients(tf.reduce_sum(values * values), logits)[0]
    out["in_top_1"] = tf.nn.in_top_k(logits, labels, 1)
    out["in_top_3"] = tf.nn.in_top_k(predictions=logits, targets=labels, k=3)
    out["cumsum"] = tf.cumsum(logits, axis=1, exclusive=True)
    out["cumsum_0"] = tf.cumsum(logits)
    out["cumprod"] = tf.cumprod(logits, -1, reverse=True)
    out["d_cumprod"] = tf.gradients(tf.reduce_sum(out["cumprod"] * out["cumsum"]), logits)[0]
    out["clip_by_norm"] = tf.clip_by_norm(logits, 1.5)
    out["clip_by_norm_rows"] = tf.clip_by_norm(logits, 1.0, axes=[1])
    out["clip_by_norm_zero"] = tf.clip_by_norm(tf.zeros_like(logits), 1.0)
    out["global_norm"] = tf.global_norm([logits, x])
    (c1, c2), norm = tf.clip_by_global_norm([logits, x], 2.0)
    out["clipped_1"], out["clipped_2"], out["clipped_norm"] = c1, c2, norm
    (n1, _), _ = tf.clip_by_global_norm([logits, x], 1e6)
    out["not_clipped"] = n1
    out["clip_by_value"] = tf.clip_by_value(logits, -0.5, 0.5)
    return out


if __name__ == "__main__":
    import tensorflow as tf_module
    tf1 = tf_module.compat.v1
    tf1.disable_eager_execution()
    arrays = dict(np.load(sys.argv[1]))
    with tf1.Graph().as_default():
        tensors = program(tf1, arrays)
        with tf1.Session() as sess:
            results = sess.run(tensors)
    np.savez(sys.argv[2], **results)
