"""TF1 graphs of reference variables updated by ScatterMul / ScatterDiv / ScatterMin /
ScatterMax and by the sparse optimizer ops (SparseApplyMomentum, SparseApplyAdagrad,
SparseApplyRMSProp, SparseApplyProximalGradientDescent, and GradientDescent's ScatterSub):
TensorFlow (TW_TF_PYTHON, resource variables off) builds each graph, runs it, and sends the
GraphDef with its values; we import the same GraphDef (lowered to resource ops), run the same
fetches and must get the same values."""
import base64
import json
import subprocess

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, tf_env

TF_SIDE = r"""
import base64, json
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
tf.disable_resource_variables()
cases = []

def record(name, g, fetch_steps, var_names):
    with tf.Session(graph=g) as sess:
        sess.run("init")
        values = []
        for fetch in fetch_steps:
            sess.run(fetch)
            values.append([sess.run(v + ":0").tolist() for v in var_names])
    cases.append({"name": name, "graph": base64.b64encode(g.as_graph_def().SerializeToString()).decode(),
                  "fetches": fetch_steps, "vars": var_names, "values": values})

for dtype in ("float32", "int32"):
    for op in ("scatter_mul", "scatter_div", "scatter_min", "scatter_max"):
        g = tf.Graph()
        with g.as_default():
            v = tf.Variable(np.array([[6, -4], [9, 3], [-8, 5], [7, 2]], dtype), name="v")
            assert v.op.type == "VariableV2"
            upd = getattr(tf, op)(v, tf.constant([2, 0, 2]), tf.constant(np.array([[2, -3], [3, 2], [-1, 4]], dtype)))
            out = tf.identity(upd, name="out")
            tf.variables_initializer([v], name="init")
        record("%s_%s" % (op, dtype), g, [out.name, out.name], ["v"])

optimizers = {
    "gradient_descent": lambda: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    "momentum_nesterov": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.2),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.05, momentum=0.5),
    "proximal_gd": lambda: tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.01,
                                                                      l2_regularization_strength=0.02),
}
for name, make in optimizers.items():
    g = tf.Graph()
    with g.as_default():
        table = tf.Variable(np.arange(10, dtype=np.float32).reshape(5, 2) / 10.0, name="table")
        w = tf.constant([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]])
        rows = tf.nn.embedding_lookup(table, tf.constant([1, 3, 1]))
        loss = tf.reduce_sum(tf.square(rows * w - 1.0))
        train = make().minimize(loss, name="train")
        ops = sorted({op.type for op in g.get_operations() if op.type.startswith(("Sparse", "Scatter"))})
        slots = [v.op.name for v in tf.global_variables() if v.op.name != "table"]
        tf.variables_initializer(tf.global_variables(), name="init")
    record(name, g, ["train"] * 3, ["table"] + slots)
    cases[-1]["ops"] = ops
print(json.dumps(cases))
"""


@pytest.fixture(scope="module")
def tf_cases():
    python = require_tensorflow("test_ref_scatter_ops")
    done = subprocess.run([python, "-c", TF_SIDE], env=tf_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return {c["name"]: c for c in json.loads(done.stdout.strip().splitlines()[-1])}


def _run(case):
    g = tf.Graph()
    g.import_graph_def(base64.b64decode(case["graph"]))
    values = []
    with tf.Session(graph=g) as sess:
        sess.run("init")
        for fetch in case["fetches"]:
            sess.run(fetch)
            values.append([sess.run(v + ":0").tolist() for v in case["vars"]])
    return values


@pytest.mark.parametrize("op", ["scatter_mul", "scatter_div", "scatter_min", "scatter_max"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_scatter_on_reference_variables(tf_cases, op, dtype):
    case = tf_cases["%s_%s" % (op, dtype)]
    got = _run(case)
    np.testing.assert_allclose(np.array(got, dtype=np.float64), np.array(case["values"], dtype=np.float64),
                               rtol=1e-6)
    # Duplicate indices combine in turn: row 2 of the first step is 2x then -1x (mul), ...
    assert got[0][0][1] == case["values"][0][0][1]


@pytest.mark.parametrize("name, op", [("gradient_descent", "ScatterSub"), ("momentum", "SparseApplyMomentum"),
                                      ("momentum_nesterov", "SparseApplyMomentum"),
                                      ("adagrad", "SparseApplyAdagrad"), ("rmsprop", "SparseApplyRMSProp"),
                                      ("proximal_gd", "SparseApplyProximalGradientDescent")])
def test_sparse_optimizer_updates_of_reference_variables(tf_cases, name, op):
    case = tf_cases[name]
    assert op in case["ops"], case["ops"]
    got = _run(case)
    for step, (ours, theirs) in enumerate(zip(got, case["values"])):
        for var, a, b in zip(case["vars"], ours, theirs):
            # atol: Nesterov's slot cancels to ~0 (TF 0, ours 6e-7 on one element).
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-5, err_msg="%s step %d %s" % (name, step, var))
    assert got[-1][0] != got[0][0]  # the rows moved


def test_integer_scatter_div_by_zero_is_an_error():
    graph_def = tf.GraphDef()
    from google.protobuf import text_format
    text_format.Merge("""
      node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_INT32 } }
             attr { key: "shape" value { shape { dim { size: 2 } } } } }
      node { name: "init_value" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
             attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                                                  int_val: 5 int_val: -2147483648 } } } }
      node { name: "init" op: "Assign" input: "v" input: "init_value" attr { key: "T" value { type: DT_INT32 } } }
      node { name: "i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
             attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }
      node { name: "minus_one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
             attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: -1 } } } }
      node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
             attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
      node { name: "wrap" op: "ScatterDiv" input: "v" input: "i" input: "minus_one"
             attr { key: "T" value { type: DT_INT32 } } attr { key: "Tindices" value { type: DT_INT32 } } }
      node { name: "by_zero" op: "ScatterDiv" input: "v" input: "i" input: "zero"
             attr { key: "T" value { type: DT_INT32 } } attr { key: "Tindices" value { type: DT_INT32 } } }
    """, graph_def)
    with tf.Graph().as_default() as g, tf.Session() as sess:
        tf.import_graph_def(graph_def, name="")
        sess.run("init")
        assert sess.run("wrap:0").tolist() == [5, -2147483648]  # INT_MIN / -1 wraps
        with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
            sess.run("by_zero:0")
        assert sess.run("v:0").tolist() == [5, -2147483648]  # unchanged by the failed update
        # Lowered: "by_zero" reads the variable after a ResourceScatterDiv.
        assert sorted(op.type for op in g.get_operations() if op.type.startswith("ResourceScatter")) == [
            "ResourceScatterDiv", "ResourceScatterDiv"]
