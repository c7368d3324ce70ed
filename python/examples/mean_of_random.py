"""Seed 000: the mean of 100 random values fed through a placeholder."""
import numpy as np

import tensorweave as tf

x = tf.placeholder(tf.float32, 100)

mean = tf.reduce_mean(x)

with tf.Session() as sess:
    values = np.random.random(100)
    result = sess.run(mean, feed_dict={x: values})
    print(result)
    print("numpy:", values.astype(np.float32).mean())
