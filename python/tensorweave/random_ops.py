"""Random tensors (tf.random_uniform, tf.random_normal, tf.truncated_normal). Seeds follow
TensorFlow: an op seed and the graph seed (tf.set_random_seed) give the (seed, seed2) pair."""
from tensorweave import array_ops, dtypes, math_ops
from tensorweave.framework import _op_output, convert_to_tensor, get_default_graph, name_scope


def _random(op_type, shape, dtype, seed, extra_inputs=(), name=None):
    graph = get_default_graph()
    seed1, seed2 = graph._next_seeds(seed)
    return _op_output(op_type, [array_ops._int_tensor(shape, "shape")] + list(extra_inputs),
                      {"dtype": dtypes.as_dtype(dtype), "seed": seed1, "seed2": seed2}
                      if not extra_inputs else {"seed": seed1, "seed2": seed2}, name or op_type, graph=graph)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name="random_uniform"):
    """Uniform in [minval, maxval) (maxval 1 for floats when None; required for integers)."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name):
        if dtype.is_integer:
            if maxval is None:
                raise ValueError("Must specify maxval for integer dtype %s" % dtype.name)
            return _random("RandomUniformInt", shape, dtype, seed,
                           [array_ops.constant(minval, dtype=dtype, name="min"),
                            array_ops.constant(maxval, dtype=dtype, name="max")])
        maxval = 1 if maxval is None else maxval
        rnd = _random("RandomUniform", shape, dtype, seed)
        return math_ops.add(rnd * (maxval - minval), minval, name="random_uniform")


def _scaled_normal(op_type, shape, mean, stddev, dtype, seed, name):
    with name_scope(name):
        n = _random(op_type, shape, dtype, seed)
        if stddev != 1:
            n = n * stddev
        return n + mean if mean != 0 else n


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name="random_normal"):
    return _scaled_normal("RandomStandardNormal", shape, mean, stddev, dtype, seed, name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name="truncated_normal"):
    return _scaled_normal("TruncatedNormal", shape, mean, stddev, dtype, seed, name)


def random_shuffle(value, seed=None, name=None):
    """The rows (first dim) of value in a random order; seeds as the other random ops."""
    graph = get_default_graph()
    seed1, seed2 = graph._next_seeds(seed)
    return _op_output("RandomShuffle", [convert_to_tensor(value)], {"seed": seed1, "seed2": seed2},
                      name or "RandomShuffle", graph=graph)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """num_samples class indices per row of logits [batch, classes] (unnormalized log-probabilities)."""
    graph = get_default_graph()
    seed1, seed2 = graph._next_seeds(seed)
    attrs = {"seed": seed1, "seed2": seed2, "output_dtype": dtypes.as_dtype(output_dtype or dtypes.int64)}
    return _op_output("Multinomial", [convert_to_tensor(logits), convert_to_tensor(num_samples, dtype=dtypes.int32)],
                      attrs, name or "Multinomial", graph=graph)


def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """Gamma(alpha, beta) samples shaped shape ++ broadcast(alpha, beta).shape (beta is the rate;
    None for 1). As TensorFlow's, results are at least the dtype's smallest normal number."""
    import numpy as np

    from tensorweave.shape_n_ops import broadcast_dynamic_shape
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name or "random_gamma"):
        shape = array_ops._int_tensor(shape, "shape")
        alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta_t = convert_to_tensor(1 if beta is None else beta, dtype=dtype, name="beta")
        a_s, b_s = alpha.shape, beta_t.shape
        if beta is None:
            alpha_b = alpha
        elif a_s.is_fully_defined() and b_s.is_fully_defined():  # a static shape keeps the sample's shape static
            alpha_b = array_ops.broadcast_to(alpha, list(np.broadcast_shapes(tuple(a_s.as_list()), tuple(b_s.as_list()))))
        else:
            alpha_b = array_ops.broadcast_to(alpha, broadcast_dynamic_shape(array_ops.shape(alpha),
                                                                            array_ops.shape(beta_t)))
        graph = get_default_graph()
        seed1, seed2 = graph._next_seeds(seed)
        sample = _op_output("RandomGamma", [shape, alpha_b], {"seed": seed1, "seed2": seed2}, "RandomGamma",
                            graph=graph)
        if beta is not None:
            sample = sample / beta_t
        return math_ops.maximum(np.finfo(dtype.as_numpy_dtype).tiny, sample)


def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None):
    """Poisson(lam) samples shaped shape ++ lam.shape, in `dtype`."""
    graph = get_default_graph()
    seed1, seed2 = graph._next_seeds(seed)
    with name_scope(name or "random_poisson"):
        lam = convert_to_tensor(lam, name="lam")
        return _op_output("RandomPoissonV2", [array_ops._int_tensor(shape, "shape"), lam],
                          {"seed": seed1, "seed2": seed2, "dtype": dtypes.as_dtype(dtype)}, "RandomPoissonV2",
                          graph=graph)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """tf.random.categorical: class indices drawn from each row of unnormalized log-probabilities."""
    return multinomial(logits, num_samples, seed=seed, name=name, output_dtype=dtype)


def random_crop(value, size, seed=None, name=None):
    """A random window of `size` cut out of value, at a uniformly drawn offset (TensorFlow's
    construction; the stream is ours). A size larger than value fails the step."""
    from tensorweave import check_ops
    from tensorweave.framework import control_dependencies
    from tensorweave.math_reduce_ops import reduce_all
    with name_scope(name or "random_crop"):
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = check_ops.Assert(reduce_all(math_ops.greater_equal(shape, size)),
                                 ["Need value.shape >= size, got ", shape, size], summarize=1000)
        with control_dependencies([check]):
            shape = array_ops.identity(shape)
        limit = shape - size + 1
        offset = random_uniform(array_ops.shape(shape), dtype=dtypes.int32, maxval=2 ** 31 - 1, seed=seed) % limit
        return array_ops.slice(value, offset, size)


def get_seed(op_seed):
    """The (graph-level, op-level) seed pair a random op made now gets (tf.get_seed): the
    graph's own derivation (Graph::NextSeeds), so a call draws one op seed from the graph's
    counter as a random op does; (None, None) when neither seed is set. As our ops take them,
    an op seed of 0 counts as unset and seeds are not truncated to 31 bits (TF's differ there)."""
    graph = get_default_graph()
    if graph.seed is None and op_seed is None:
        return None, None
    return graph._next_seeds(op_seed)
