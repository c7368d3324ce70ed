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
