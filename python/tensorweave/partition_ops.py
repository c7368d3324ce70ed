"""Row-routing ops: tf.dynamic_partition, tf.dynamic_stitch, tf.parallel_dynamic_stitch and
tf.unique (what an embedding lookup over several shards is built from)."""
from tensorweave import dtypes
from tensorweave.framework import _op, _op_output, convert_to_tensor


def dynamic_partition(data, partitions, num_partitions, name=None):
    """data's rows split into num_partitions tensors: row i goes to output partitions[i]."""
    data = convert_to_tensor(data)
    partitions = convert_to_tensor(partitions, dtype=dtypes.int32)
    return _op("DynamicPartition", [data, partitions], {"num_partitions": int(num_partitions)},
               name or "DynamicPartition").outputs


def _stitch(op_type, indices, data, name):
    indices = [convert_to_tensor(i, dtype=dtypes.int32) for i in indices]
    data = [convert_to_tensor(d) for d in data]
    if len(indices) != len(data):
        raise ValueError("%s needs as many data tensors as indices tensors, got %d and %d"
                         % (op_type, len(data), len(indices)))
    return _op_output(op_type, indices + data, name=name or op_type)


def dynamic_stitch(indices, data, name=None):
    """merged[indices[m][i]] = data[m][i]."""
    return _stitch("DynamicStitch", indices, data, name)


def parallel_dynamic_stitch(indices, data, name=None):
    return _stitch("ParallelDynamicStitch", indices, data, name)


def unique(x, out_idx=dtypes.int32, name=None):
    """(y, idx): the distinct values of the vector x in order of first appearance, and each
    element's position in y."""
    op = _op("Unique", [convert_to_tensor(x)], {"out_idx": dtypes.as_dtype(out_idx)}, name or "Unique")
    return op.outputs[0], op.outputs[1]


def _segment(op_type, data, segment_ids, num_segments, name):
    inputs = [convert_to_tensor(data), convert_to_tensor(segment_ids)]
    if num_segments is not None:
        inputs.append(convert_to_tensor(num_segments))
    return _op_output(op_type, inputs, name=name or op_type)


def segment_sum(data, segment_ids, name=None):
    """Sums of data's rows per (sorted, non-negative) segment id."""
    return _segment("SegmentSum", data, segment_ids, None, name)


def segment_mean(data, segment_ids, name=None):
    """Means of data's rows per (sorted, non-negative) segment id; 0 for ids no row has."""
    return _segment("SegmentMean", data, segment_ids, None, name)


def segment_max(data, segment_ids, name=None):
    """Per (sorted, non-negative) segment id the largest row element; 0 for ids no row has."""
    return _segment("SegmentMax", data, segment_ids, None, name)


def segment_min(data, segment_ids, name=None):
    """Per (sorted, non-negative) segment id the smallest row element; 0 for ids no row has."""
    return _segment("SegmentMin", data, segment_ids, None, name)


def segment_prod(data, segment_ids, name=None):
    """Products of data's rows per (sorted, non-negative) segment id; 1 for ids no row has."""
    return _segment("SegmentProd", data, segment_ids, None, name)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """Products of data's rows per segment id (negative ids dropped); 1 for an empty segment."""
    return _segment("UnsortedSegmentProd", data, segment_ids, num_segments, name)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """Per segment the largest row element; the dtype's lowest value for an empty segment."""
    return _segment("UnsortedSegmentMax", data, segment_ids, num_segments, name)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """Per segment the smallest row element; the dtype's highest value for an empty segment."""
    return _segment("UnsortedSegmentMin", data, segment_ids, num_segments, name)


def gather_nd(params, indices, name=None, batch_dims=0):
    """The slices of params at the index tuples in indices' last dimension."""
    if batch_dims:
        raise NotImplementedError("gather_nd(batch_dims=%d) is not supported (only 0)" % batch_dims)
    return _op_output("GatherNd", [convert_to_tensor(params), convert_to_tensor(indices)], name=name or "GatherNd")


def scatter_nd(indices, updates, shape, name=None):
    """A tensor of `shape`, zeros but for updates summed in at the index tuples of indices."""
    indices = convert_to_tensor(indices)
    return _op_output("ScatterNd", [indices, convert_to_tensor(updates), convert_to_tensor(shape, dtype=indices.dtype)],
                      name=name or "ScatterNd")


def _segment_counts(data, segment_ids, num_segments):
    """How many ids fall in each segment, at least 1, shaped to divide data's segment sums."""
    from tensorweave import array_ops, math_ops
    data = convert_to_tensor(data)
    segment_ids = convert_to_tensor(segment_ids)
    counts = math_ops.unsorted_segment_sum(array_ops.ones_like(segment_ids, dtype=data.dtype), segment_ids,
                                           num_segments)
    extra = data.shape.ndims - segment_ids.shape.ndims
    ones = array_ops.constant([1] * extra, dtype=dtypes.int32)
    counts = array_ops.reshape(counts, array_ops.concat([array_ops.shape(counts), ones], 0))
    return data, segment_ids, math_ops.maximum(counts, array_ops.ones_like(counts))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Each segment's mean (its sum over the number of its ids; 0 for an empty segment)."""
    from tensorweave import framework, math_ops
    with framework.name_scope(name or "UnsortedSegmentMean"):
        data, segment_ids, counts = _segment_counts(data, segment_ids, num_segments)
        return math_ops.unsorted_segment_sum(data, segment_ids, num_segments) / counts


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Each segment's sum over the square root of the number of its ids (0 for an empty one)."""
    from tensorweave import framework, math_ops
    with framework.name_scope(name or "UnsortedSegmentSqrtN"):
        data, segment_ids, counts = _segment_counts(data, segment_ids, num_segments)
        return math_ops.unsorted_segment_sum(data, segment_ids, num_segments) / math_ops.sqrt(counts)
