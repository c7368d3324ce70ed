"""tf.nn.embedding_lookup and tf.nn.embedding_lookup_sparse over one table or a table split
into shards (a list of variables/tensors, or a PartitionedVariable), TF1's semantics.

With several shards, id i lives in shard p at row r:
  'mod': p = i mod n, r = i div n;
  'div': contiguous ranges, the first (rows mod n) shards one row longer.
Each shard's gather is colocated with the shard, so on a parameter server only the rows
looked up leave it; the rows come back in ids' order through ParallelDynamicStitch."""
from tensorweave import array_ops, dtypes, math_ops
from tensorweave.framework import colocate_with, convert_to_tensor, name_scope
from tensorweave.partition_ops import dynamic_partition, parallel_dynamic_stitch, unique


def _shards(params):
    if hasattr(params, "_get_variable_list"):  # a PartitionedVariable
        return list(params._get_variable_list())
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Need at least one param")
        return list(params)
    return [params]


def _row_count(shard):
    dims = shard.get_shape().as_list() if hasattr(shard, "get_shape") else convert_to_tensor(shard).shape.as_list()
    return dims[0] if dims else None


def _clip_rows(rows, ids_rank, max_norm):
    """Each looked-up row scaled down to an L2 norm of at most max_norm (as TF's _clip)."""
    if max_norm is None:
        return rows
    from tensorweave import clip_ops  # here: clip_ops imports nn, which imports this module
    rank = rows.shape.ndims
    if rank is None:
        raise ValueError("embedding_lookup(max_norm=...) needs params of known rank")
    return clip_ops.clip_by_norm(rows, max_norm, axes=list(range(ids_rank, rank)))


def _gather(shard, ids):
    """shard's rows at ids, beside shard. A variable's rows are read alone (ResourceGather, as
    TensorFlow's resource variables): no snapshot of the whole table is held for the step, so
    a sparse update of it on its ps need not copy the table first."""
    from tensorweave.variables import Variable
    with colocate_with(shard):
        if isinstance(shard, Variable):
            return shard.graph.create_op("ResourceGather", [shard.handle, convert_to_tensor(ids)],
                                         {"dtype": shard.dtype}, "Gather").outputs[0]
        return array_ops.gather(shard, ids)


def _gather_from(shard, ids, max_norm, ids_rank):
    return _clip_rows(_gather(shard, ids), ids_rank, max_norm)


def _div_assignments(flat_ids, shards, n):
    """(shard of each id, row within it) for partition_strategy='div'."""
    counts = [_row_count(s) for s in shards]
    if all(c is not None for c in counts):
        total = convert_to_tensor(sum(counts), dtype=flat_ids.dtype)
    else:
        total = math_ops.add_n([array_ops.cast(array_ops.shape(s)[0], flat_ids.dtype) for s in shards])
    n_t = convert_to_tensor(n, dtype=flat_ids.dtype)
    per = math_ops.floor_div(total, n_t)
    extras = math_ops.floormod(total, n_t)
    one = convert_to_tensor(1, dtype=flat_ids.dtype)
    # Ids below extras * (per + 1) are in the long shards; the rest in the short ones.
    shard = math_ops.maximum(math_ops.floor_div(flat_ids, per + one),
                             math_ops.floor_div(flat_ids - extras, per))
    in_long = math_ops.less(shard, extras)
    row = math_ops.where(in_long, math_ops.floormod(flat_ids, per + one), math_ops.floormod(flat_ids - extras, per))
    return shard, row


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,  # noqa: ARG001
                     max_norm=None):
    """The rows of params at ids: shape ids.shape + params.shape[1:]. An id outside the
    table is InvalidArgument naming it (from the gather of the shard it maps to)."""
    if partition_strategy not in ("mod", "div"):
        raise ValueError("Unrecognized partition strategy: " + partition_strategy)
    shards = _shards(params)
    with name_scope(name or "embedding_lookup"):
        ids = convert_to_tensor(ids)
        if len(shards) == 1:
            return array_ops.identity(_clip_rows(_gather(shards[0], ids), ids.shape.ndims or 0, max_norm))
        n = len(shards)
        flat_ids = array_ops.reshape(ids, [-1])
        if partition_strategy == "mod":
            n_t = convert_to_tensor(n, dtype=flat_ids.dtype)
            shard_of, row_of = math_ops.floormod(flat_ids, n_t), math_ops.floor_div(flat_ids, n_t)
        else:
            shard_of, row_of = _div_assignments(flat_ids, shards, n)
        shard_of = array_ops.cast(shard_of, dtypes.int32)
        rows_by_shard = dynamic_partition(row_of, shard_of, n)
        positions = dynamic_partition(array_ops.range(array_ops.size(flat_ids)), shard_of, n)
        gathered = [_gather_from(s, r, max_norm, 1) for s, r in zip(shards, rows_by_shard)]
        merged = parallel_dynamic_stitch(positions, gathered)
        row_shape = array_ops.slice(array_ops.shape(merged), [1], [-1])
        return array_ops.reshape(merged, array_ops.concat([array_ops.shape(ids), row_shape], 0))


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None, combiner=None,
                            max_norm=None):
    """One combined embedding per row of the SparseTensor sp_ids ([batch, k] ids, rows in
    order): the rows' embeddings (weighted by sp_weights' values when given) combined by
    'sum', 'mean' (weighted mean) or 'sqrtn' (sum / sqrt of the sum of squared weights)."""
    combiner = combiner or "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    with name_scope(name or "embedding_lookup_sparse"):
        segment_ids = array_ops.cast(array_ops.slice(sp_ids.indices, [0, 0], [-1, 1]), dtypes.int32)
        segment_ids = array_ops.reshape(segment_ids, [-1])
        ids, idx = unique(sp_ids.values)
        embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy, max_norm=max_norm)
        embeddings = array_ops.gather(embeddings, idx)
        if sp_weights is not None:
            weights = array_ops.cast(sp_weights.values, embeddings.dtype)
        else:
            weights = array_ops.ones_like(array_ops.cast(idx, embeddings.dtype))
        # Weights broadcast over each embedding's trailing dims.
        ones = array_ops.ones_like(array_ops.slice(array_ops.shape(embeddings), [1], [-1]))
        wide = array_ops.reshape(weights, array_ops.concat([array_ops.shape(weights), ones], 0))
        if sp_weights is not None:
            embeddings = embeddings * wide
        segments = math_ops.reduce_max(segment_ids) + 1
        summed = math_ops.unsorted_segment_sum(embeddings, segment_ids, segments)
        if combiner == "sum":
            return summed
        scale = wide if combiner == "mean" else wide * wide
        total = math_ops.unsorted_segment_sum(scale, segment_ids, segments)
        if combiner == "sqrtn":
            total = math_ops.sqrt(total)
        return math_ops.div(summed, total)
