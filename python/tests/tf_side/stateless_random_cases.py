"""TensorFlow's side of test_stateless_random.py. argv: cases.json and an output folder.
Writes values.npz (case i -> "w<i>" for the tf.random wrappers, "r<i>" for the raw V1 ops),
raw_ops.pb (the GraphDef of the raw-op cases, fetched as "r<i>:0"), and prints JSON with the
op types tf.random.stateless_* emit and the error texts of the bad-input cases."""
import json
import os
import re
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
cases = json.load(open(sys.argv[1]))
out_dir = sys.argv[2]
values, report = {}, {"op_types": {}, "errors": {}}

with tf1.Graph().as_default() as g, tf1.Session() as sess:
    fetches = {}
    for i, (fn, shape, seed, kwargs) in enumerate(cases["wrappers"]):
        kwargs = {k: (tf.as_dtype(v) if k == "dtype" else v) for k, v in kwargs.items()}
        before = {op.name for op in g.get_operations()}
        fetches["w%d" % i] = getattr(tf1.random, fn)(shape, seed=seed, **kwargs)
        report["op_types"][fn] = sorted({op.type for op in g.get_operations() if op.name not in before})
    values.update(sess.run(fetches))

with tf1.Graph().as_default() as g, tf1.Session() as sess:
    fetches = {}
    for i, (op, shape, seed, seed_dtype, attrs, extra) in enumerate(cases["raw"]):
        seed = tf.constant(seed, dtype=seed_dtype)
        extra = {k: tf.constant(v, dtype=attrs["dtype"]) for k, v in extra.items()}
        attrs = {k: tf.as_dtype(v) for k, v in attrs.items()}
        attrs = {} if extra else attrs  # the bounds give an int op its dtype
        fetches["r%d" % i] = tf.identity(getattr(tf.raw_ops, op)(shape=shape, seed=seed, **attrs, **extra),
                                         name="r%d" % i)
    values.update(sess.run(fetches))
    with open(os.path.join(out_dir, "raw_ops.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
np.savez(os.path.join(out_dir, "values.npz"), **values)

tf.compat.v1.enable_eager_execution()
for name, (op, args) in cases["errors"].items():
    args = {k: (tf.as_dtype(v[1]) if isinstance(v, list) and v and v[0] == "dtype" else
                tf.constant(v[1], dtype=v[0]) if isinstance(v, list) and len(v) == 2 and isinstance(v[0], str)
                else v) for k, v in args.items()}
    try:
        getattr(tf.raw_ops, op)(**args)
        report["errors"][name] = None
    except (tf.errors.InvalidArgumentError, ValueError) as e:
        msg = getattr(e, "message", str(e))
        report["errors"][name] = re.sub(r"^\{\{.*?\}\} ", "", msg).split(" [Op:")[0]
print(json.dumps(report))
