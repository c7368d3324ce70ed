"""tf.random.gamma / tf.random_gamma (op RandomGamma) and tf.random.poisson / tf.random_poisson
(op RandomPoissonV2): shapes and dtypes, TensorFlow's seed rules (op and graph seeds), moments
on large samples against the distributions' (TensorFlow's stream is not ours), RandomGamma's
gradient against TensorFlow's RandomGammaGrad on our samples, and the tf.random aliases."""
import numpy as np
import pytest

import tensorweave as tf
from tf_peer import require_tensorflow, run_tf_script


def run(fn, graph_seed=None):
    with tf.Graph().as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        t = fn()
        with tf.Session() as sess:
            return sess.run(t)


def test_shapes_and_dtypes():
    with tf.Graph().as_default():
        g = tf.random.gamma([5, 3], [[1.0], [2.0]], beta=[1.0, 2.0, 4.0])
        p = tf.random.poisson([1.0, 2.0], [4], dtype=tf.int32)
        p64 = tf.random_poisson(3.0, [2, 2], dtype=tf.float64)
        g64 = tf.random_gamma([7], 2.0, dtype=tf.float64)
        assert g.shape.as_list() == [5, 3, 2, 3] and g.dtype == tf.float32
        assert p.shape.as_list() == [4, 2] and p.dtype == tf.int32
        assert p64.shape.as_list() == [2, 2] and p64.dtype == tf.float64
        assert g64.shape.as_list() == [7] and g64.dtype == tf.float64
        with tf.Session() as sess:
            gv, pv, pv64, gv64 = sess.run([g, p, p64, g64])
    assert gv.shape == (5, 3, 2, 3) and gv.dtype == np.float32 and (gv > 0).all()
    assert pv.shape == (4, 2) and pv.dtype == np.int32 and (pv >= 0).all()
    assert pv64.dtype == np.float64 and np.array_equal(pv64, np.round(pv64))
    assert gv64.dtype == np.float64


def test_seeds_follow_tensorflows_rules():
    gamma = lambda: tf.random.gamma([50], [0.5, 3.0], seed=7)  # noqa: E731
    a, b = run(gamma, graph_seed=1), run(gamma, graph_seed=1)
    np.testing.assert_array_equal(a, b)  # same graph and op seeds: the same samples in a fresh session
    assert not np.array_equal(a, run(gamma, graph_seed=2))
    pois = lambda: tf.random.poisson(4.0, [50])  # noqa: E731 - op seed from the graph seed
    np.testing.assert_array_equal(run(pois, graph_seed=3), run(pois, graph_seed=3))
    assert not np.array_equal(run(lambda: tf.random.poisson(4.0, [200])), run(lambda: tf.random.poisson(4.0, [200])))
    with tf.Graph().as_default(), tf.Session() as sess:  # each run takes the next part of the stream
        t = tf.random_gamma([20], 2.0, seed=5)
        assert not np.array_equal(sess.run(t), sess.run(t))


@pytest.mark.parametrize("alpha", [0.3, 1.0, 2.5, 9.0])
def test_gamma_moments(alpha):
    beta = 2.0
    x = run(lambda: tf.random.gamma([200000], alpha, beta=beta, dtype=tf.float64, seed=11), graph_seed=4)
    mean, var = alpha / beta, alpha / beta ** 2
    assert abs(x.mean() - mean) < 6 * np.sqrt(var / x.size), (x.mean(), mean)
    assert abs(x.var() / var - 1) < 0.06, (x.var(), var)


@pytest.mark.parametrize("rate", [0.5, 3.0, 9.9, 10.0, 40.0, 1000.0])
def test_poisson_moments(rate):
    x = run(lambda: tf.random.poisson(rate, [200000], dtype=tf.float64, seed=13), graph_seed=4)
    assert abs(x.mean() - rate) < 6 * np.sqrt(rate / x.size), (x.mean(), rate)
    assert abs(x.var() / rate - 1) < 0.05, (x.var(), rate)
    if rate < 5:  # the zero class: P(0) = exp(-rate)
        p0 = np.exp(-rate)
        assert abs((x == 0).mean() - p0) < 6 * np.sqrt(p0 * (1 - p0) / x.size)


def test_invalid_parameters_give_nan():
    g, p = run(lambda: (tf.random_gamma([3], [-1.0, 0.0]), tf.random_poisson([-1.0, 0.0], [3])))
    assert np.isnan(g).all()
    assert np.isnan(p[:, 0]).all() and (p[:, 1] == 0).all()


def test_negative_shape_is_refused():
    with tf.Graph().as_default(), tf.Session() as sess:
        t = tf.random_gamma(tf.placeholder_with_default(np.array([2, -1], np.int32), [2]), 1.0)
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(t)


def test_gamma_gradient_matches_tensorflows_random_gamma_grad(tmp_path):
    python = require_tensorflow("test_gamma_gradient")
    alpha_v = np.array([[0.4, 1.0], [2.5, 7.0]], np.float64)
    w = np.random.default_rng(3).uniform(-1, 1, (6, 2, 2))
    with tf.Graph().as_default():
        alpha = tf.constant(alpha_v)
        sample = tf.random_gamma([6], alpha, dtype=tf.float64, seed=9)
        grad = tf.gradients(tf.reduce_sum(tf.constant(w) * sample), alpha)[0]
        with tf.Session() as sess:
            s, gv = sess.run([sample, grad])
    np.savez(tmp_path / "in.npz", alpha=alpha_v, sample=s, w=w)
    run_tf_script(python, "random_gamma_grad.py", str(tmp_path / "in.npz"), str(tmp_path / "out.npz"))
    expected = np.load(tmp_path / "out.npz")["grad"]
    assert gv.shape == alpha_v.shape
    np.testing.assert_allclose(gv, expected, rtol=1e-6, atol=1e-9)


def test_poisson_has_no_gradient_as_in_tensorflow():
    # TensorFlow registers no gradient function for RandomPoissonV2: tf.gradients raises LookupError.
    with tf.Graph().as_default():
        lam = tf.constant([1.0, 2.0])
        with pytest.raises(Exception, match="RandomPoissonV2"):
            tf.gradients(tf.reduce_sum(tf.random.poisson(lam, [3])), [lam])


def test_tf_random_aliases():
    with tf.Graph().as_default():
        tf.random.set_random_seed(5)
        ops = {"normal": tf.random.normal([3]), "uniform": tf.random.uniform([3], maxval=2.0),
               "truncated_normal": tf.random.truncated_normal([3]), "shuffle": tf.random.shuffle([1, 2, 3]),
               "categorical": tf.random.categorical([[0.0, 1.0]], 4, dtype=tf.int32),
               "multinomial": tf.random.multinomial([[0.0, 1.0]], 4)}
        types = {k: v.op.type for k, v in ops.items()}
        assert ops["categorical"].dtype == tf.int32 and ops["multinomial"].dtype == tf.int64
        with tf.Session() as sess:
            values = sess.run(ops)
    assert types["shuffle"] == "RandomShuffle" and types["categorical"] == "Multinomial"
    assert sorted(values["shuffle"].tolist()) == [1, 2, 3]
    assert values["categorical"].shape == (1, 4) and ((values["uniform"] >= 0) & (values["uniform"] < 2)).all()
    assert callable(tf.random.log_uniform_candidate_sampler) and tf.random.gamma is tf.random_gamma
