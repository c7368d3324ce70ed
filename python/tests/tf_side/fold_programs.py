"""fold_programs.build in TensorFlow (tf.compat.v1, control flow v1): prints JSON of the fetches."""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from fold_programs import build  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()
fetches = build(tf1)
with tf1.Session() as sess:
    print(json.dumps([v.tolist() for v in sess.run(fetches)]))
