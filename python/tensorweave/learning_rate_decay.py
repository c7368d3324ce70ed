"""TF 1.x learning-rate schedules (tf.train.exponential_decay, piecewise_constant,
polynomial_decay): scalar tensors of the global step, built from plain ops."""
from tensorweave import array_ops, dtypes, math_ops
from tensorweave.framework import convert_to_tensor, name_scope


def _step_and_rate(learning_rate, global_step):
    if global_step is None:
        raise ValueError("global_step is required for a learning-rate schedule.")
    learning_rate = convert_to_tensor(learning_rate, dtype=dtypes.float32) \
        if isinstance(learning_rate, (int, float)) else convert_to_tensor(learning_rate)
    step = array_ops.cast(convert_to_tensor(global_step), learning_rate.dtype)
    return learning_rate, step


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * decay_rate ** (global_step / decay_steps), the exponent floored when staircase."""
    with name_scope(name or "ExponentialDecay"):
        learning_rate, step = _step_and_rate(learning_rate, global_step)
        dtype = learning_rate.dtype
        p = step / convert_to_tensor(decay_steps, dtype=dtype)
        if staircase:
            p = math_ops.floordiv(step, convert_to_tensor(decay_steps, dtype=dtype))
        return math_ops.multiply(learning_rate, math_ops.pow(convert_to_tensor(decay_rate, dtype=dtype), p))


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] while x <= boundaries[0], values[i] for boundaries[i-1] < x <= boundaries[i],
    values[-1] after the last boundary."""
    if len(values) != len(boundaries) + 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with name_scope(name or "PiecewiseConstant"):
        x = convert_to_tensor(x)
        values = [convert_to_tensor(v, dtype=dtypes.float32) if isinstance(v, float) else convert_to_tensor(v)
                  for v in values]
        result = values[-1]
        # From the last interval back, so the first boundary that x does not pass wins.
        for boundary, value in reversed(list(zip(boundaries, values[:-1]))):
            result = math_ops.where(math_ops.less_equal(x, convert_to_tensor(boundary, dtype=x.dtype)), value, result)
        return result


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                     name=None):
    """(learning_rate - end) * (1 - step / decay_steps) ** power + end, the step held at
    decay_steps (or decay_steps grown to the next multiple past the step when cycle)."""
    with name_scope(name or "PolynomialDecay"):
        learning_rate, step = _step_and_rate(learning_rate, global_step)
        dtype = learning_rate.dtype
        end = convert_to_tensor(end_learning_rate, dtype=dtype)
        steps = convert_to_tensor(decay_steps, dtype=dtype)
        if cycle:
            # ceil(step / steps), at least 1 (ceil(x) = -floor(-x)).
            multiplier = -math_ops.floordiv(-step, steps)
            multiplier = math_ops.where(math_ops.equal(step, 0.0), convert_to_tensor(1.0, dtype=dtype), multiplier)
            steps = steps * multiplier
        else:
            step = math_ops.minimum(step, steps)
        fraction = step / steps
        return math_ops.add((learning_rate - end) * math_ops.pow(1.0 - fraction, convert_to_tensor(power, dtype=dtype)),
                            end)
