"""fold_programs.build in TensorFlow (tf.compat.v1, control flow v1): prints JSON of the fetches."""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from fold_programs import EMPTY_FEEDS, build, build_empty  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf1.disable_control_flow_v2()
if sys.argv[1:] == ["empty"]:  # {rows: [[value, shape, static shape], ...]}
    rows, fetches = build_empty(tf1)
    out = {}
    with tf1.Session() as sess:
        for key, value in EMPTY_FEEDS.items():
            # TF's gradient of zero rows fails (its element arrays do not know their shape at run time).
            run = fetches[:-1] if key == "0" else fetches
            got = sess.run(run, {rows: value})
            out[key] = [[v.tolist(), list(v.shape), None if f.shape.rank is None else f.shape.as_list()]
                        for v, f in zip(got, run)]
    print(json.dumps(out))
    sys.exit(0)
fetches = build(tf1)
with tf1.Session() as sess:
    print(json.dumps([v.tolist() for v in sess.run(fetches)]))
