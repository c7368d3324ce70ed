"""tf.nn.nce_loss and tf.nn.sampled_softmax_loss, TF1's graph op for op: the true classes'
and the sampled classes' rows of `weights` are gathered together (one lookup, so over a
partitioned table only those rows move), their logits get log Q subtracted, and the loss
is the logistic (NCE) or softmax (sampled softmax) loss over [true, sampled] columns.
The candidates come from `sampled_values` = (sampled, true_expected_count,
sampled_expected_count), by default from tf.nn.log_uniform_candidate_sampler (unique).
The samplers are the LogUniformCandidateSampler / UniformCandidateSampler ops
(src/kernels/cpu/candidate_sampler_kernels.cc), seeded as TF's random ops."""
from tensorweave import array_ops, math_ops, nn
from tensorweave.dtypes import int64
from tensorweave.embedding_ops import embedding_lookup
from tensorweave.framework import _op, convert_to_tensor, get_default_graph, name_scope
from tensorweave.math_fn_ops import log1p
from tensorweave.math_ops import log
from tensorweave.math_reduce_ops import reduce_any, reduce_sum, stop_gradient

_FLT_MAX = 3.4028234663852886e38


def _candidate_sampler(op_type, true_classes, num_true, num_sampled, unique, range_max, seed, name):
    graph = get_default_graph()
    seed1, seed2 = graph._next_seeds(seed)
    true_classes = convert_to_tensor(true_classes)
    if true_classes.dtype != int64:
        true_classes = array_ops.cast(true_classes, int64)
    op = _op(op_type, [true_classes], {"num_true": int(num_true), "num_sampled": int(num_sampled),
                                       "unique": bool(unique), "range_max": int(range_max), "seed": seed1,
                                       "seed2": seed2}, name or op_type, graph=graph)
    return tuple(op.outputs)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """(sampled_candidates, true_expected_count, sampled_expected_count): num_sampled classes
    from the log-uniform (Zipfian) distribution over [0, range_max)."""
    return _candidate_sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max,
                              seed, name)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """As log_uniform_candidate_sampler, uniform over [0, range_max)."""
    return _candidate_sampler("UniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max,
                              seed, name)


def _sigmoid_xent(labels, logits):
    """max(x, 0) - x z + log1p(exp(-|x|)), TF's overflow-free logistic loss."""
    return nn.relu(logits) - logits * labels + log1p(math_ops.exp(-math_ops.abs(logits)))


def _weights_list(weights):
    if hasattr(weights, "_get_variable_list"):  # a PartitionedVariable
        return list(weights._get_variable_list())
    return weights if isinstance(weights, (list, tuple)) else [weights]


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                            subtract_log_q, remove_accidental_hits, partition_strategy, seed=None):
    weights = _weights_list(weights)
    labels = convert_to_tensor(labels)
    if labels.dtype != int64:
        labels = array_ops.cast(labels, int64)
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed=seed)
    inputs = convert_to_tensor(inputs)
    labels_flat = array_ops.reshape(labels, [-1])
    sampled, true_expected, sampled_expected = (stop_gradient(convert_to_tensor(s)) for s in sampled_values)
    sampled = array_ops.cast(sampled, int64)
    all_ids = array_ops.concat([labels_flat, sampled], 0)
    all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
    if all_w.dtype != inputs.dtype:
        all_w = array_ops.cast(all_w, inputs.dtype)
    n_true = array_ops.shape(labels_flat)[0:1]
    true_w = array_ops.slice(all_w, [0, 0], array_ops.concat([n_true, [-1]], 0))
    sampled_w = array_ops.slice(all_w, array_ops.concat([n_true, [0]], 0), [-1, -1])
    sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True)
    all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
    if all_b.dtype != inputs.dtype:
        all_b = array_ops.cast(all_b, inputs.dtype)
    true_b = array_ops.reshape(array_ops.slice(all_b, [0], n_true), [-1, num_true])
    sampled_b = array_ops.slice(all_b, n_true, [-1])
    dim = array_ops.shape(true_w)[1:2]
    rows = array_ops.expand_dims(inputs, 1) * array_ops.reshape(true_w, array_ops.concat([[-1, num_true], dim], 0))
    true_logits = reduce_sum(rows, 2) + true_b
    sampled_logits = sampled_logits + sampled_b
    if remove_accidental_hits:
        # A sampled class that is one of the row's true classes gets -FLT_MAX, once.
        hits = reduce_any(math_ops.equal(array_ops.expand_dims(labels, 2),
                                         array_ops.reshape(sampled, [1, 1, -1])), 1)
        sampled_logits = sampled_logits + math_ops.where(hits, array_ops.fill(array_ops.shape(hits), -_FLT_MAX),
                                                         array_ops.zeros_like(sampled_logits))
    if subtract_log_q:
        true_logits = true_logits - log(array_ops.cast(true_expected, true_logits.dtype))
        sampled_logits = sampled_logits - log(array_ops.cast(sampled_expected, sampled_logits.dtype))
    out_logits = array_ops.concat([true_logits, sampled_logits], 1)
    out_labels = array_ops.concat([array_ops.ones_like(true_logits) / num_true, array_ops.zeros_like(sampled_logits)],
                                  1)
    return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, partition_strategy="mod", name="nce_loss"):
    """Per-example NCE loss [batch]: the logistic loss of true (label 1/num_true) and sampled
    (label 0) classes' logits, each less log of its expected count."""
    with name_scope(name):
        logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                                 sampled_values, True, remove_accidental_hits, partition_strategy)
        return reduce_sum(_sigmoid_xent(labels, logits), 1)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
                         remove_accidental_hits=True, partition_strategy="mod", name="sampled_softmax_loss",
                         seed=None):
    """Per-example sampled softmax loss [batch] over the true and sampled classes."""
    with name_scope(name):
        logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                                 sampled_values, True, remove_accidental_hits, partition_strategy,
                                                 seed)
        return nn.softmax_cross_entropy_with_logits_v2(labels=stop_gradient(labels), logits=logits)
