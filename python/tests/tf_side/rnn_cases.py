"""rnn_programs in TensorFlow (tf.compat.v1, control flow v1): prints JSON {program:
{"variables": [[name, shape]], "values": [...], "shapes": [...]}}."""
import json
import os
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"  # tf.compat.v1.nn.rnn_cell lives in tf_keras (scripts/tf_env.sh)
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from rnn_programs import PROGRAMS, assign_ops, variables  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()
out = {}
for name, build in PROGRAMS.items():
    with tf.Graph().as_default():
        fetches = build(tf, tf1)
        assigns = assign_ops(tf1)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(assigns)
            values = sess.run(fetches)
        out[name] = {"variables": variables(tf1), "values": [v.tolist() for v in values],
                     "shapes": [list(v.shape) for v in values]}
print(json.dumps(out))
