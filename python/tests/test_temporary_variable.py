"""TemporaryVariable / DestroyTemporaryVariable, TF1's per-step variables (TF 1.x's
accumulate_n: Assign(validate_shape=False) of zeros, AssignAdd of each input through the
Assign's output ref, DestroyTemporaryVariable returning the sum). TensorFlow (TW_TF_PYTHON)
builds and runs the graph; we run its GraphDef, lowered to resource ops, step after step."""
import base64
import json
import subprocess

import numpy as np
import pytest
from google.protobuf import text_format

import tensorweave as tf
from tf_peer import require_tensorflow, tf_env

TF_SIDE = r"""
import base64, json
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
g = tf.Graph()
with g.as_default():
    xs = [tf.placeholder(tf.float32, [2, 3], name="x%d" % i) for i in range(3)]
    var = tf.raw_ops.TemporaryVariable(shape=[0], dtype=tf.float32, var_name="", name="acc")
    ref = tf.raw_ops.Assign(ref=var, value=tf.zeros_like(xs[0]), validate_shape=False)
    updates = [tf.raw_ops.AssignAdd(ref=ref, value=x, use_locking=True) for x in xs]
    with tf.control_dependencies(updates):
        total = tf.raw_ops.DestroyTemporaryVariable(ref=ref, var_name=var.op.name, name="total")
feeds = [np.arange(6, dtype=np.float32).reshape(2, 3) * (i + 1) for i in range(3)]
with tf.Session(graph=g) as sess:
    got = [sess.run(total, dict(zip(xs, feeds))).tolist() for _ in range(2)]
print(json.dumps({"graph": base64.b64encode(g.as_graph_def().SerializeToString()).decode(),
                  "feeds": [f.tolist() for f in feeds], "total": got,
                  "ops": sorted({op.type for op in g.get_operations()})}))
"""


def test_accumulate_n_graph_of_tensorflow():
    python = require_tensorflow("test_accumulate_n_graph_of_tensorflow")
    done = subprocess.run([python, "-c", TF_SIDE], env=tf_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"TemporaryVariable", "DestroyTemporaryVariable", "Assign", "AssignAdd"} <= set(theirs["ops"])
    g = tf.Graph()
    g.import_graph_def(base64.b64decode(theirs["graph"]))
    feeds = {"x%d:0" % i: np.array(f, np.float32) for i, f in enumerate(theirs["feeds"])}
    with tf.Session(graph=g) as sess:
        # Twice: the first step's variable was destroyed, the second makes a new one.
        got = [sess.run("total:0", feeds).tolist() for _ in range(2)]
    assert got == theirs["total"]
    assert got[0] == (np.arange(6).reshape(2, 3) * 6).tolist()


def _graph(destroy_attrs):
    graph_def = tf.GraphDef()
    text_format.Merge("""
      node { name: "t" op: "TemporaryVariable" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "shape" value { shape { dim { size: 2 } } } } }
      node { name: "v" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                                  float_val: 1.5 float_val: -2 } } } }
      node { name: "a" op: "Assign" input: "t" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "d" op: "DestroyTemporaryVariable" input: "a" attr { key: "T" value { type: DT_FLOAT } }
             %s }
    """ % destroy_attrs, graph_def)
    return graph_def


def test_destroy_returns_the_value_and_needs_a_var_name():
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.import_graph_def(_graph('attr { key: "var_name" value { s: "t" } }'), name="")
        assert sess.run("d:0").tolist() == [1.5, -2.0]
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
            sess.run("t:0")  # destroyed at the end of the step that read it
    with tf.Graph().as_default():
        with pytest.raises(Exception, match="Missing var_name attribute"):
            tf.import_graph_def(_graph('attr { key: "var_name" value { s: "" } }'), name="")
