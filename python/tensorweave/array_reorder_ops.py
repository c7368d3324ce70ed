"""tf.reverse, tf.roll, tf.invert_permutation, tf.matrix_band_part and the space/depth/batch
reorderings: ops that move (or, for the band, zero) elements, with TensorFlow 1's argument
names."""
from tensorweave import gen_ops
from tensorweave.array_ops import _int_tensor
from tensorweave.framework import _op_output, convert_to_tensor


def reverse(tensor, axis, name=None):
    """`tensor` with the order of its elements reversed along each dim in `axis` (ReverseV2)."""
    return _op_output("ReverseV2", [convert_to_tensor(tensor), _int_tensor(axis, "axis")], name=name or "ReverseV2")


reverse_v2 = reverse


def roll(input, shift, axis, name=None):  # noqa: A002 - TensorFlow's argument name
    """Elements shifted by `shift` along `axis`, those leaving one end coming back at the other."""
    return _op_output("Roll", [convert_to_tensor(input), _int_tensor(shift, "shift"), _int_tensor(axis, "axis")],
                      name=name or "Roll")


invert_permutation = gen_ops.invert_permutation  # generated from the registry (tools/op_gen)


def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Each innermost matrix with the entries outside the band (num_lower below the diagonal,
    num_upper above it; negative: all) set to 0."""
    return _op_output("MatrixBandPart", [convert_to_tensor(input), _int_tensor(num_lower, "num_lower"),
                                         _int_tensor(num_upper, "num_upper")], name=name or "MatrixBandPart")


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """[B, H, W, C] -> [B, H/bs, W/bs, C*bs*bs]: each bs x bs block of pixels into the channels."""
    return _op_output("SpaceToDepth", [convert_to_tensor(input)],
                      {"block_size": int(block_size), "data_format": data_format}, name=name or "SpaceToDepth")


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """[B, H, W, C] -> [B, H*bs, W*bs, C/(bs*bs)]: the inverse of space_to_depth."""
    return _op_output("DepthToSpace", [convert_to_tensor(input)],
                      {"block_size": int(block_size), "data_format": data_format}, name=name or "DepthToSpace")


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """[B, S1..SM, R..] -> [B*prod(block), (S+pads)/block.., R..]: the spatial dims zero-padded,
    cut into blocks, and each block offset moved into the batch."""
    return _op_output("SpaceToBatchND", [convert_to_tensor(input), _int_tensor(block_shape, "block_shape"),
                                         _int_tensor(paddings, "paddings")], name=name or "SpaceToBatchND")


def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """The inverse of space_to_batch_nd: block offsets moved from the batch back into the
    spatial dims, which are then cropped."""
    return _op_output("BatchToSpaceND", [convert_to_tensor(input), _int_tensor(block_shape, "block_shape"),
                                         _int_tensor(crops, "crops")], name=name or "BatchToSpaceND")


def _square_block(block_size, block_shape, op):
    size = block_shape if block_size is None else block_size
    if size is None:
        raise TypeError("%s() needs block_size" % op)
    return [int(size), int(size)]


def _with_rank_4(result, op):
    if result.shape.ndims is not None and result.shape.ndims != 4:
        raise ValueError("%s needs a 4-D input, got shape %s" % (op, result.shape))
    return result


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa: A002
    """TF1's 4-D space_to_batch: space_to_batch_nd with the same block size on both spatial
    dims (block_shape is TF 2's name for block_size)."""
    block = _square_block(block_size, block_shape, "space_to_batch")
    return _with_rank_4(space_to_batch_nd(input, block, paddings, name=name), "space_to_batch")


def batch_to_space(input, crops, block_size=None, name=None, block_shape=None):  # noqa: A002
    """TF1's 4-D batch_to_space: batch_to_space_nd with the same block size on both dims."""
    block = _square_block(block_size, block_shape, "batch_to_space")
    return _with_rank_4(batch_to_space_nd(input, block, crops, name=name), "batch_to_space")


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None,  # noqa: A002
                     batch_dim=None):
    """Along seq_axis, the first seq_lengths[b] elements of batch entry b (along batch_axis) reversed."""
    seq_axis = seq_dim if seq_axis is None else seq_axis
    batch_axis = (batch_dim if batch_axis is None else batch_axis) or 0
    if seq_axis is None:
        raise ValueError("reverse_sequence needs seq_axis (or seq_dim)")
    return _op_output("ReverseSequence", [convert_to_tensor(input), convert_to_tensor(seq_lengths)],
                      {"seq_dim": int(seq_axis), "batch_dim": int(batch_axis)}, name=name or "ReverseSequence")


def unravel_index(indices, dims, name=None):
    """Flat indices into shape `dims` as row-major coordinates ([len(dims)] or [len(dims), n])."""
    indices = convert_to_tensor(indices)
    return _op_output("UnravelIndex", [indices, convert_to_tensor(dims, dtype=indices.dtype)],
                      name=name or "UnravelIndex")


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None):
    """[B, H, W, C] -> [B, out_rows, out_cols, kr*kc*C]: each ksizes window (every `strides`
    pixels, its taps `rates` apart; SAME pads with zeros) flattened into one output pixel.
    `sizes` is TensorFlow's newer name for `ksizes`."""
    if sizes is not None and ksizes is not None:
        raise ValueError("Cannot specify both 'sizes' and 'ksizes'")
    ksizes = sizes if sizes is not None else ksizes
    return _op_output("ExtractImagePatches", [convert_to_tensor(images, name="images")],
                      {"ksizes": [int(k) for k in ksizes], "strides": [int(s) for s in strides],
                       "rates": [int(r) for r in rates], "padding": padding},
                      name=name or "ExtractImagePatches")


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) for space_to_batch_nd / batch_to_space_nd (TF's function): each block
    dim's end padded so that input_shape + base_paddings divides by block_shape, that extra
    padding being what the crops remove. Computed while building when all three are known."""
    import numpy as np
    from tensorweave import array_ops, dtypes
    from tensorweave.framework import name_scope
    from tensorweave.tensor_util import get_static_value
    with name_scope(name, "required_space_to_batch_paddings"):
        input_shape = convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        if not block_shape.shape.is_fully_defined() or block_shape.shape.ndims != 1:
            raise ValueError("block_shape must be a 1-D tensor of known size, got shape %s" % block_shape.shape)
        num_block_dims = block_shape.shape.as_list()[0]
        if num_block_dims == 0:
            return array_ops.zeros([0, 2], dtypes.int32), array_ops.zeros([0, 2], dtypes.int32)
        if input_shape.shape.ndims is not None and input_shape.shape.as_list() not in ([num_block_dims], [None]):
            raise ValueError("Shapes %s and (%d,) are incompatible" % (input_shape.shape, num_block_dims))
        if base_paddings is not None:
            base_paddings = convert_to_tensor(base_paddings, dtype=dtypes.int32, name="base_paddings")
            if base_paddings.shape.ndims is not None and any(
                    d is not None and d != want for d, want in zip(base_paddings.shape.dims, (num_block_dims, 2))):
                raise ValueError("Shapes %s and (%d, 2) are incompatible" % (base_paddings.shape, num_block_dims))
        else:
            base_paddings = array_ops.zeros([num_block_dims, 2], dtypes.int32)
        known = [get_static_value(t) for t in (block_shape, input_shape, base_paddings)]
        if all(v is not None for v in known):
            block_shape, input_shape, base_paddings = (np.asarray(v, np.int32) for v in known)
        # One expression for both cases, as TF: numpy when known, graph ops otherwise.
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full_input_shape = input_shape + pad_start + orig_pad_end
        pad_end_extra = (block_shape - full_input_shape % block_shape) % block_shape
        pad_end = orig_pad_end + pad_end_extra
        paddings = array_ops.stack([[pad_start[i], pad_end[i]] for i in range(num_block_dims)], name="paddings")
        crops = array_ops.stack([[0, pad_end_extra[i]] for i in range(num_block_dims)], name="crops")
        return paddings, crops
