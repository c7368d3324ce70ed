"""The stateless random ops (StatelessRandomUniform, StatelessRandomNormal,
StatelessTruncatedNormal, StatelessRandomUniformInt, StatelessRandomUniformFullInt) against
TensorFlow bit for bit: the tf.random.stateless_* wrappers, a GraphDef of the raw ops written
by TensorFlow and run here, the error texts of bad seeds and ranges, and no gradient."""
import json

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script

STATELESS_OPS = ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
                 "StatelessRandomUniformInt", "StatelessRandomUniformFullInt")
SEEDS = [[1, 2], [0, 0], [-7, 123456789], [2**31 - 1, -2**31]]
WRAPPERS = (
    [("stateless_uniform", [5, 3], s, {}) for s in SEEDS]
    + [("stateless_uniform", [17], [3, 4], {"dtype": "float64", "minval": -2.0, "maxval": 3.5}),
       ("stateless_uniform", [2, 9], [5, 6], {"dtype": "int32", "minval": -10, "maxval": 1000}),
       ("stateless_uniform", [11], [5, 6], {"dtype": "int64", "minval": -2**40, "maxval": 2**50}),
       ("stateless_uniform", [9], [8, 1], {"dtype": "int32", "minval": None, "maxval": None}),
       ("stateless_uniform", [5], [8, 1], {"dtype": "int64", "minval": None, "maxval": None})]
    + [("stateless_normal", [4, 7], s, {}) for s in SEEDS]
    + [("stateless_normal", [13], [9, 9], {"dtype": "float64", "mean": 1.5, "stddev": 3.0}),
       ("stateless_truncated_normal", [3, 333], [1, 2], {}),
       ("stateless_truncated_normal", [101], [-1, 5], {"dtype": "float64", "mean": -1.0, "stddev": 0.5})]
)
RAW = (
    [("StatelessRandomUniform", [1001], s, sd, {"dtype": d}, {}) for s in SEEDS[:2]
     for sd in ("int32", "int64") for d in ("float32", "float64")]
    + [("StatelessRandomNormal", [3, 67], s, "int64", {"dtype": d}, {}) for s in SEEDS for d in ("float32", "float64")]
    + [("StatelessTruncatedNormal", [2, 500], s, "int32", {"dtype": d}, {}) for s in SEEDS[1:3]
       for d in ("float32", "float64")]
    + [("StatelessRandomUniformInt", [77], s, "int64", {"dtype": d}, {"minval": -3, "maxval": 17})
       for s in SEEDS[2:] for d in ("int32", "int64")]
    + [("StatelessRandomUniformFullInt", [33], [4, 4], "int64", {"dtype": d}, {}) for d in ("int32", "int64")]
    + [("StatelessRandomUniform", [0, 4], [1, 1], "int64", {"dtype": "float32"}, {})]
)
ERRORS = {
    "seed_of_3": ("StatelessRandomUniform", {"shape": ["int32", [2]], "seed": ["int64", [1, 2, 3]]}),
    "seed_matrix": ("StatelessRandomNormal", {"shape": ["int32", [2]], "seed": ["int64", [[1, 2]]]}),
    "empty_range": ("StatelessRandomUniformInt", {"shape": ["int32", [2]], "seed": ["int64", [1, 2]],
                                                  "minval": ["int32", 5], "maxval": ["int32", 5]}),
    "reversed_range": ("StatelessRandomUniformInt", {"shape": ["int32", [3]], "seed": ["int64", [1, 2]],
                                                     "minval": ["int64", 9], "maxval": ["int64", -4]}),
}


@pytest.fixture(scope="module")
def tensorflow(tmp_path_factory):
    python = require_tensorflow("test_stateless_random")
    tmp = tmp_path_factory.mktemp("stateless")
    (tmp / "cases.json").write_text(json.dumps({"wrappers": WRAPPERS, "raw": RAW, "errors": ERRORS}))
    report = json.loads(run_tf_script(python, "stateless_random_cases.py", str(tmp / "cases.json"), str(tmp)))
    with np.load(tmp / "values.npz") as values:
        report["values"] = dict(values)
    report["graph_def"] = (tmp / "raw_ops.pb").read_bytes()
    return report


def assert_bits_equal(ours, theirs, what):
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (what, ours.dtype, ours.shape, theirs.shape)
    np.testing.assert_array_equal(ours.view(np.uint8), theirs.view(np.uint8), err_msg=str(what))


def test_wrappers_match_tensorflow_bit_for_bit(tensorflow):
    with tf.Graph().as_default(), tf.Session() as sess:
        fetches = {}
        for i, (fn, shape, seed, kwargs) in enumerate(WRAPPERS):
            fetches["w%d" % i] = getattr(tf.random, fn)(shape, seed=seed, **kwargs)
            assert fetches["w%d" % i].shape.as_list() == shape
        ours = sess.run(fetches)
    for i, case in enumerate(WRAPPERS):
        assert_bits_equal(ours["w%d" % i], tensorflow["values"]["w%d" % i], case)


def test_tensorflows_graphdef_of_the_raw_ops_runs_with_its_values(tensorflow):
    g = tf.Graph()
    g.import_graph_def(tensorflow["graph_def"])
    assert {case[0] for case in RAW} <= {op.type for op in g.get_operations()}
    with g.as_default(), tf.Session() as sess:
        ours = sess.run({"r%d" % i: g.get_tensor_by_name("r%d:0" % i) for i in range(len(RAW))})
    for i, case in enumerate(RAW):
        assert_bits_equal(ours["r%d" % i], tensorflow["values"]["r%d" % i], case)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_input_errors_are_tensorflows(tensorflow, name):
    # Placeholders of unknown shape, so that the kernel (as TensorFlow's eager op) checks them.
    op, args = ERRORS[name]
    theirs = tensorflow["errors"][name]
    assert theirs is not None
    with tf.Graph().as_default(), tf.Session() as sess:
        holders = {k: tf.placeholder(getattr(tf, v[0])) for k, v in args.items()}
        t = getattr(tf.raw_ops, op)(**holders)
        feed = {holders[k]: np.array(v[1], dtype=v[0]) for k, v in args.items()}
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(t, feed)
    assert str(e.value).endswith(theirs), (str(e.value), theirs)


def test_static_seed_shape_is_checked_while_building():
    with tf.Graph().as_default():
        with pytest.raises((tf.errors.InvalidArgumentError, ValueError), match="rank 1"):
            tf.random.stateless_uniform([2], seed=[[1, 2]])
        with pytest.raises((tf.errors.InvalidArgumentError, ValueError), match="Dimension must be 2 but is 3"):
            tf.random.stateless_normal([2], seed=[1, 2, 3])


def test_same_seed_same_values_and_no_state():
    with tf.Graph().as_default(), tf.Session() as sess:
        a = tf.random.stateless_normal([50], seed=[4, 2])
        b = tf.random.stateless_normal([50], seed=[4, 2])
        c = tf.random.stateless_normal([50], seed=[4, 3])
        va, vb, vc, va2 = sess.run([a, b, c, a])
    np.testing.assert_array_equal(va, vb)
    np.testing.assert_array_equal(va, va2)
    assert not np.array_equal(va, vc)


def test_no_gradient_as_in_tensorflow():
    # TensorFlow's random_grad.py declares each NotDifferentiable: registered as "none" here.
    from test_tf_oracle_grads import gradient_registry
    registry = gradient_registry()
    assert all(registry[op] == "none" for op in STATELESS_OPS), {op: registry.get(op) for op in STATELESS_OPS}
    with tf.Graph().as_default():
        mean = tf.constant(1.0)
        y = tf.random.stateless_normal([3], seed=[1, 2], mean=mean)
        assert tf.gradients(y, [mean])[0] is not None  # the mean is added after the op
        s = tf.constant([1, 2], dtype=tf.int64)
        assert tf.gradients(tf.raw_ops.StatelessRandomNormal(shape=tf.constant([3]), seed=s), [s]) == [None]
