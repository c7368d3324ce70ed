"""tf.clip_by_norm, tf.global_norm and tf.clip_by_global_norm, from plain ops (as TF 1.x builds them)."""
from tensorweave import array_ops, math_ops, nn
from tensorweave.framework import convert_to_tensor, name_scope


def global_norm(t_list, name=None):
    """sqrt(sum of every tensor's squared elements); None entries are skipped."""
    if isinstance(t_list, (str, bytes)) or not hasattr(t_list, "__iter__"):
        raise TypeError("t_list should be a sequence")
    tensors = [convert_to_tensor(t) for t in t_list if t is not None]
    with name_scope(name or "global_norm"):
        if not tensors:
            return array_ops.constant(0.0)
        half_squared = [nn.l2_loss(t) for t in tensors]
        return math_ops.sqrt(math_ops.add_n(half_squared) * 2.0, name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Every tensor times clip_norm / max(global_norm, clip_norm); returns (the clipped
    list, None where the input was None; the global norm)."""
    if isinstance(t_list, (str, bytes)) or not hasattr(t_list, "__iter__"):
        raise TypeError("t_list should be a sequence")
    t_list = list(t_list)
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    with name_scope(name or "clip_by_global_norm"):
        clip_norm = convert_to_tensor(clip_norm, dtype=norm.dtype)
        # TF's form: finite for a zero norm (1 / 0 = inf, the minimum picks 1 / clip_norm).
        scale = clip_norm * math_ops.minimum(1.0 / norm, 1.0 / clip_norm)
        clipped = [None if t is None else math_ops.multiply(convert_to_tensor(t), scale) for t in t_list]
        return clipped, norm


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t * clip_norm / max(||t||_2 over axes, clip_norm); an all-zero t stays 0 (no 0/0)."""
    t = convert_to_tensor(t)
    l2sum = math_ops.reduce_sum(t * t, axes, keepdims=True)
    positive = math_ops.greater(l2sum, 0)
    safe = math_ops.where(positive, l2sum, array_ops.ones_like(l2sum))
    l2norm = math_ops.where(positive, math_ops.sqrt(safe), l2sum)
    clip_norm = convert_to_tensor(clip_norm, dtype=t.dtype)
    return array_ops.identity((t * clip_norm) / math_ops.maximum(l2norm, clip_norm), name=name or "clip_by_norm")


def clip_by_average_norm(t, clip_norm, name=None):
    """t scaled so that its L2 norm divided by its number of elements is at most clip_norm
    (TensorFlow 1's formula, in float32 as TensorFlow's)."""
    from tensorweave import dtypes
    with name_scope(name or "clip_by_average_norm"):
        t = convert_to_tensor(t, name="t")
        n_element = array_ops.cast(array_ops.size(t), dtypes.float32)
        l2norm_inv = math_ops.rsqrt(math_ops.reduce_sum(t * t, array_ops.range(array_ops.rank(t))))
        one = array_ops.constant(1.0, dtype=dtypes.float32)
        return array_ops.identity(t * clip_norm * math_ops.minimum(l2norm_inv * n_element, one / clip_norm))
