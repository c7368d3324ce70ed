"""TF 1's aliases and thin wrappers of behaviour tensorweave has: tf.initializers.*,
tf.manip.*, tf.spectral.*, tf.assign*, tf.scatter_*, tf.accumulate_n,
tf.required_space_to_batch_paddings, tf.convert_to_tensor_or_indexed_slices, tf.get_seed,
tf.DeviceSpec, tf.Dimension, tf.OpError and the version values. Values against TensorFlow's where the
same graph can be built on both sides (tf_side/api_alias_cases.py); the random
initializers (whose draws are ours) against TF's formulas for their distributions."""
import json
import sys

import numpy as np
import pytest

import tensorweave as tf
from tf_peer import TF_SIDE_DIR, assert_close_to_tensorflow, shared_cases_outputs

sys.path.insert(0, TF_SIDE_DIR)
import api_alias_cases as cases  # noqa: E402

ARRAYS = cases.make_arrays()


def _ours():
    with tf.Graph().as_default():
        out = cases.build(tf, ARRAYS)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(out)


with tf.Graph().as_default():
    NAMES = sorted(cases.build(tf, ARRAYS))


@pytest.fixture(scope="module")
def tensorflow_side(tmp_path_factory):
    return shared_cases_outputs("test_api_aliases", cases, tmp_path_factory.mktemp("cases"))


@pytest.fixture(scope="module")
def theirs(tensorflow_side):
    return tensorflow_side[0]


@pytest.fixture(scope="module")
def ours():
    return _ours()


@pytest.mark.parametrize("name", NAMES)
def test_matches_tensorflow(theirs, ours, name):
    assert_close_to_tensorflow(np.asarray(ours[name]), theirs[name], 1e-12, 1e-5)


@pytest.mark.parametrize("alias,name", [
    ("initializers.constant", "constant_initializer"), ("initializers.zeros", "zeros_initializer"),
    ("initializers.ones", "ones_initializer"), ("initializers.random_normal", "random_normal_initializer"),
    ("initializers.random_uniform", "random_uniform_initializer"),
    ("initializers.truncated_normal", "truncated_normal_initializer"),
    ("initializers.glorot_uniform", "glorot_uniform_initializer"),
    ("initializers.glorot_normal", "glorot_normal_initializer"),
    ("initializers.orthogonal", "orthogonal_initializer"),
    ("initializers.uniform_unit_scaling", "uniform_unit_scaling_initializer"),
    ("initializers.variance_scaling", "variance_scaling_initializer"),
    ("initializers.global_variables", "global_variables_initializer"),
    ("initializers.local_variables", "local_variables_initializer"),
    ("initializers.variables", "variables_initializer"),
    ("manip.reshape", "reshape"), ("manip.tile", "tile"), ("manip.reverse", "reverse"), ("manip.roll", "roll"),
    ("manip.gather_nd", "gather_nd"), ("manip.scatter_nd", "scatter_nd"),
    ("manip.space_to_batch_nd", "space_to_batch_nd"), ("manip.batch_to_space_nd", "batch_to_space_nd"),
    ("spectral.fft", "signal.fft"), ("spectral.irfft3d", "signal.irfft3d"),
    ("math.accumulate_n", "accumulate_n"), ("random.get_seed", "get_seed"), ("OpError", "errors.OpError"),
    ("version.VERSION", "VERSION"), ("version.GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION"),
])
def test_alias_is_the_same_object(alias, name):
    def lookup(path):
        obj = tf
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj
    assert lookup(alias) is lookup(name)


# TF 1.15's settings: (scale, distribution); all are fan_in.
FAN_IN_INITIALIZERS = {"he_normal": (2.0, "truncated"), "he_uniform": (2.0, "uniform"),
                       "lecun_normal": (1.0, "truncated"), "lecun_uniform": (1.0, "uniform")}


@pytest.mark.parametrize("name", sorted(FAN_IN_INITIALIZERS))
def test_fan_in_initializers_follow_tensorflow_formulas(name):
    scale, distribution = FAN_IN_INITIALIZERS[name]
    shape, fan_in = [3, 3, 40, 50], 3 * 3 * 40
    with tf.Graph().as_default():
        init = getattr(tf.initializers, name)(seed=11)
        assert (init.scale, init.mode) == (scale, "fan_in")
        a, b = init(shape), getattr(tf.initializers, name)(seed=11)(shape)
        with tf.Session() as sess:
            first, again = sess.run([a, b])
    np.testing.assert_array_equal(first, again)  # a fixed seed, the same draws
    assert first.shape == tuple(shape) and first.dtype == np.float32
    variance = scale / fan_in
    if distribution == "uniform":  # U(-limit, limit), limit = sqrt(3 * scale / fan_in)
        limit = np.sqrt(3.0 * variance)
        assert np.abs(first).max() <= limit and np.abs(first).max() > 0.99 * limit
    else:  # normal truncated at 2 stddev, stddev set so the truncated variance is scale / fan_in
        stddev = np.sqrt(variance) / .87962566103423978
        assert np.abs(first).max() <= 2 * stddev + 1e-7
    assert abs(first.std() / np.sqrt(variance) - 1) < 0.02
    assert abs(first.mean()) < 0.02 * np.sqrt(variance)


def test_identity_initializer():
    with tf.Graph().as_default():
        v = tf.get_variable("w", [2, 3], initializer=tf.initializers.identity(gain=3.0))
        with tf.Session() as sess:
            sess.run(tf.initializers.global_variables())
            np.testing.assert_array_equal(sess.run(v), 3.0 * np.eye(2, 3))
        with pytest.raises(ValueError, match="only be used for 2D matrices"):
            tf.initializers.identity()([2, 2, 2])


def test_initializers_variables_and_local_variables():
    with tf.Graph().as_default():
        a = tf.Variable(1.0)
        local = tf.Variable(2.0, collections=[tf.GraphKeys.LOCAL_VARIABLES])
        with tf.Session() as sess:
            sess.run(tf.initializers.variables([a]))
            assert sess.run(tf.report_uninitialized_variables()).tolist() == [local.op.name.encode()]
            sess.run(tf.initializers.local_variables())
            assert sess.run([a, local]) == [1.0, 2.0]


def test_assign_and_scatter_run_again_and_build_resource_ops():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0, 3.0])
        add = tf.scatter_add(v, [0, 2], [10.0, 20.0], name="bump")
        grow = tf.assign_add(v, [1.0, 1.0, 1.0])
        assert tf.get_default_graph().get_operation_by_name("bump").type == "ResourceScatterAdd"
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(add), [11.0, 2.0, 23.0])
            np.testing.assert_array_equal(sess.run(add), [21.0, 2.0, 43.0])
            np.testing.assert_array_equal(sess.run(grow), [22.0, 3.0, 44.0])
            np.testing.assert_array_equal(sess.run(tf.assign(v, [0.0, 0.0, 0.0])), [0.0, 0.0, 0.0])


def test_accumulate_n_checks_as_tensorflow():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        for bad in ([], None, [x, tf.constant([1, 2])]):
            with pytest.raises(ValueError, match="inputs must be a list"):
                tf.accumulate_n(bad)
        with pytest.raises(ValueError, match="not compatible"):
            tf.accumulate_n([x, x], shape=[3])
        with pytest.raises(TypeError, match="tensor_dtype is"):
            tf.accumulate_n([x, x], tensor_dtype=tf.int32)
        assert tf.accumulate_n([x]) is x
        assert tf.accumulate_n([x], name="named").op.name == "named"
        p = tf.placeholder(tf.float32, [None])
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(tf.accumulate_n([p, x, x]), {p: [5.0, 6.0]}), [7.0, 10.0])


def test_required_space_to_batch_paddings_round_trip():
    """The paddings make space_to_batch_nd's padded dims divisible; the crops undo them."""
    image = np.arange(1 * 5 * 7 * 1, dtype=np.float32).reshape(1, 5, 7, 1)
    with tf.Graph().as_default():
        paddings, crops = tf.required_space_to_batch_paddings([5, 7], [2, 3], base_paddings=[[1, 0], [0, 0]])
        batched = tf.space_to_batch_nd(image, [2, 3], paddings)
        back = tf.batch_to_space_nd(batched, [2, 3], crops)
        empty = tf.required_space_to_batch_paddings([], np.zeros([0], np.int32))
        with tf.Session() as sess:
            p, c, b, restored, (ep, ec) = sess.run([paddings, crops, batched, back, empty])
    np.testing.assert_array_equal(p, [[1, 0], [0, 2]])  # 5 + 1 divides by 2; 7 + 2 by 3
    np.testing.assert_array_equal(c, [[0, 0], [0, 2]])
    assert b.shape == (6, 3, 3, 1)
    np.testing.assert_array_equal(restored[:, 1:], image)  # the base padding stays, as in TF
    assert ep.shape == (0, 2) and ec.shape == (0, 2)
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tf.required_space_to_batch_paddings([5, 7, 2], [2, 3])


def test_convert_to_tensor_or_indexed_slices():
    with tf.Graph().as_default():
        slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), (3, 2))
        assert tf.convert_to_tensor_or_indexed_slices(slices) is slices
        assert tf.convert_to_tensor_or_indexed_slices(slices, dtype=tf.float32) is slices
        with pytest.raises(ValueError, match="requested dtype int32 for Tensor with dtype float32"):
            tf.convert_to_tensor_or_indexed_slices(slices, dtype=tf.int32)
        t = tf.constant(1.0)
        assert tf.convert_to_tensor_or_indexed_slices(t) is t
        assert tf.convert_to_tensor_or_indexed_slices(3, name="three").op.name == "three"


def test_get_seed_is_the_random_ops_derivation():
    with tf.Graph().as_default():
        assert tf.get_seed(None) == (None, None)
        assert tf.get_seed(9) == (87654321, 9)  # TF's DEFAULT_GRAPH_SEED with an op seed alone
        tf.set_random_seed(4)
        assert tf.get_seed(9) == (4, 9)
        seed, first = tf.get_seed(None)
        tf.random_uniform([2])
        node = [o for o in tf.get_default_graph().get_operations() if o.type == "RandomUniform"][-1]
        # Each call draws the next op seed from the graph's counter, as a random op does.
        assert seed == 4 and node.get_attr("seed") == 4 and node.get_attr("seed2") == first + 1


def test_device_spec():
    spec = tf.DeviceSpec.from_string("/job:ps/replica:0/task:1/device:gpu:2")
    assert (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index) == ("ps", 0, 1, "GPU", 2)
    assert spec.to_string() == "/job:ps/replica:0/task:1/device:GPU:2"
    legacy = tf.DeviceSpec.from_string("/cpu:*")
    assert (legacy.device_type, legacy.device_index, legacy.to_string()) == ("CPU", None, "/device:CPU:*")
    spec = tf.DeviceSpec(job="worker", device_type="cpu", device_index=0)
    assert spec.to_string() == "/job:worker/device:CPU:0"
    spec.merge_from(tf.DeviceSpec(task=3, device_type="GPU"))
    assert spec.to_string() == "/job:worker/task:3/device:GPU:0"
    assert spec.parse_from_string("/job:a/task:2") is spec and spec.to_string() == "/job:a/task:2"
    merged = tf.DeviceSpec(job="x").make_merged_spec(tf.DeviceSpec(replica=1))
    assert merged == tf.DeviceSpec.from_string("/job:x/replica:1") and merged.replace(job="y").job == "y"
    assert hash(merged) == hash(tf.DeviceSpec(job="x", replica=1))
    with pytest.raises(ValueError, match="Unknown attribute"):
        tf.DeviceSpec.from_string("/jbo:ps")
    with tf.Graph().as_default():
        with tf.device(tf.DeviceSpec(job="ps", task=0).to_string()):
            assert tf.constant(1.0).device == "/job:ps/task:0"


def test_op_error_and_versions():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        with tf.Session() as sess, pytest.raises(tf.OpError):
            sess.run(x)
        assert tf.get_default_graph().as_graph_def().versions.producer == tf.GRAPH_DEF_VERSION
    assert tf.VERSION == tf.__version__ == tf.version.VERSION
    assert (tf.GRAPH_DEF_VERSION_MIN_CONSUMER, tf.GRAPH_DEF_VERSION_MIN_PRODUCER) == (0, 0)
    assert isinstance(tf.GIT_VERSION, str) and tf.COMPILER_VERSION and tf.CXX11_ABI_FLAG in (0, 1)


def test_dimension_matches_tensorflow(tensorflow_side):
    ours = json.loads(json.dumps(cases.dimension_checks(tf)))
    assert ours == tensorflow_side[1]["dimension"]
    assert tf.dimension_value(tf.Dimension(5)) == 5 and tf.dimension_value(tf.Dimension(None)) is None
