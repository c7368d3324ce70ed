"""tf.random.stateless_uniform, stateless_normal and stateless_truncated_normal: values that
are a function of the shape and a [2] seed alone, TensorFlow's bit for bit (int32/int64 only
for full-range integers: tensorweave has no uint32/uint64). TensorFlow 2.x
builds them from the V2 ops (key and counter from StatelessRandomGetKeyCounter); we emit the
V1 ops, which draw the same values from the same seed."""
from tensorweave import array_ops, dtypes, math_ops
from tensorweave.framework import _op_output, convert_to_tensor, name_scope


def _seed_tensor(seed):
    return seed if hasattr(seed, "dtype") else convert_to_tensor(seed, name="seed")


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None):
    """Uniform in [minval, maxval): floats (maxval 1 when None), ints in a range, or ints over
    their whole range when minval and maxval are both None."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise ValueError("Invalid dtype %r" % dtype)
    if dtype.is_integer and (minval is None) != (maxval is None):
        raise ValueError("For integer dtype {}, minval and maxval must be both `None` or both non-`None`; "
                         "got minval={} and maxval={}".format(dtype, minval, maxval))
    if not dtype.is_integer and maxval is None:
        maxval = 1
    with name_scope(name or "stateless_random_uniform"):
        shape = array_ops._int_tensor(shape, "shape")
        seed = _seed_tensor(seed)
        if dtype.is_integer and minval is None:
            return _op_output("StatelessRandomUniformFullInt", [shape, seed], {"dtype": dtype},
                              "StatelessRandomUniformFullInt")
        minval = convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            return _op_output("StatelessRandomUniformInt", [shape, seed, minval, maxval], {"dtype": dtype},
                              "StatelessRandomUniformInt")
        rnd = _op_output("StatelessRandomUniform", [shape, seed], {"dtype": dtype}, "StatelessRandomUniform")
        return math_ops.add(rnd * (maxval - minval), minval, name="stateless_random_uniform")


def _stateless_normal(op_type, default_name, shape, seed, mean, stddev, dtype, name):
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name or default_name):
        shape = array_ops._int_tensor(shape, "shape")
        seed = _seed_tensor(seed)
        mean = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = _op_output(op_type, [shape, seed], {"dtype": dtype}, op_type)
        return math_ops.add(rnd * stddev, mean, name=default_name)


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
    return _stateless_normal("StatelessRandomNormal", "stateless_random_normal", shape, seed, mean, stddev, dtype,
                             name)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
    """Normals redrawn until within two standard deviations of the mean."""
    return _stateless_normal("StatelessTruncatedNormal", "stateless_truncated_normal", shape, seed, mean, stddev,
                             dtype, name)
