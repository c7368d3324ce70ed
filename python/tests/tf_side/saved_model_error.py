"""TensorFlow's side of the SavedModel error tests: what tf.compat.v1.saved_model.loader.load
raises for DIR and TAGS (comma-separated), printed as "<type>: <message>".
    saved_model_error.py DIR TAGS"""
import sys

import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

with tf1.Graph().as_default(), tf1.Session() as sess:
    try:
        tf1.saved_model.loader.load(sess, sys.argv[2].split(","), sys.argv[1])
        print("loaded")
    except Exception as e:  # noqa: BLE001 - the error is the answer.
        print("%s: %s" % (type(e).__name__, e))
