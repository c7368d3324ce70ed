"""TensorFlow's side of test_embedding_ops.py: a table of IN.npz split over shards by
tf.compat.v1.get_variable(partitioner=fixed_size_partitioner(n)), looked up with
embedding_lookup ('mod' and 'div', with and without max_norm) and embedding_lookup_sparse
(sum, mean, sqrtn; with and without weights), and the gradients of a loss of each lookup with
respect to the shards (IndexedSlices densified). Writes every value by name to OUT.npz; the
partitioners' answers for some shapes too.
    embedding_cases.py IN.npz OUT.npz"""
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()

arrays = np.load(sys.argv[1])
table, ids, sp_idx, sp_vals, sp_w, sp_shape = (arrays[k] for k in ("table", "ids", "sp_idx", "sp_vals", "sp_w",
                                                                  "sp_shape"))
out = {}
g = tf1.Graph()
with g.as_default():
    def table_slice(shape, dtype=None, partition_info=None):  # noqa: ARG001 - each shard's rows of the table
        begin = partition_info.var_offset
        return tf1.constant(table[tuple(slice(b, b + n) for b, n in zip(begin, shape))])
    pv = tf1.get_variable("emb", shape=table.shape, initializer=table_slice,
                          partitioner=tf1.fixed_size_partitioner(3))
    shards = list(pv)
    fetches = {f"shard{i}": v.read_value() for i, v in enumerate(shards)}
    looked = {}
    for strategy in ("mod", "div"):
        for max_norm in (None, 1.5):
            looked[f"lookup_{strategy}_{max_norm}"] = tf1.nn.embedding_lookup(
                pv, ids, partition_strategy=strategy, max_norm=max_norm)
    sp_ids = tf1.SparseTensor(sp_idx, sp_vals, sp_shape)
    weights = tf1.SparseTensor(sp_idx, sp_w, sp_shape)
    for combiner in ("sum", "mean", "sqrtn"):
        for weighted in (False, True):
            looked[f"sparse_{combiner}_{weighted}"] = tf1.nn.embedding_lookup_sparse(
                pv, sp_ids, weights if weighted else None, partition_strategy="div", combiner=combiner)
    for key, y in looked.items():
        fetches[key] = y
        grads = tf1.gradients(tf1.reduce_sum(y * y), shards)
        for i, gr in enumerate(grads):
            fetches[f"{key}_grad{i}"] = tf1.convert_to_tensor(gr)
    with tf1.Session(graph=g) as sess:
        sess.run(tf1.global_variables_initializer())
        out.update(sess.run(fetches))
for shape, dtype, args in (((1000, 64), tf.float32, (4, 0, 64 << 10)), ((10, 3), tf.float32, (8, 0, 16)),
                           ((7, 5), tf.float64, (3, 1, 8)), ((100,), tf.int32, (2, 0, 256 << 10))):
    parts = tf1.min_max_variable_partitioner(*args)(tf.TensorShape(shape), dtype)
    out[f"minmax_{shape}_{dtype.name}_{args}"] = np.array(parts)
for shape, args in (((1000, 64), (64 << 10,)), ((10, 3), (20, 0, 16, 3)), ((50, 4), (100, 1))):
    parts = tf1.variable_axis_size_partitioner(*args)(tf.TensorShape(shape), tf.float32)
    out[f"axis_size_{shape}_{args}"] = np.array(parts)
np.savez(sys.argv[2], **out)
