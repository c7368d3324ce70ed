"""TensorFlow's RandomGammaGrad on tensorweave's samples, for test_random_gamma_poisson.py:
args in.npz out.npz; in.npz holds alpha, sample (shape ++ alpha.shape) and w; out.npz holds
sum over the sample dims of w * d sample / d alpha."""
import sys

import numpy as np
import tensorflow as tf

data = np.load(sys.argv[1])
alpha, sample, w = data["alpha"], data["sample"], data["w"]
k = sample.ndim - alpha.ndim
partial = tf.raw_ops.RandomGammaGrad(alpha=np.broadcast_to(alpha, sample.shape), sample=sample).numpy()
np.savez(sys.argv[2], grad=(w * partial).sum(axis=tuple(range(k))))
