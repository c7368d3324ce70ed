"""Accumulator cases shared by both sides (test_accumulators.py here, queue_results.py
accumulator_cases in TensorFlow): each builds a graph with the `tf` module it is given and
returns the steps to run in order (queue_cases.run_all). Sparse gradients have sorted,
distinct indices: TensorFlow's merge assumes them."""
import numpy as np


def cases():
    c = {}

    def sparse_mean_per_index(tf):
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[5, 2])
        return [acc.apply_grad([0, 2], [[1.0, 2.0], [3.0, 4.0]], local_step=0),
                acc.apply_grad([2, 4], [[10.0, 20.0], [30.0, 40.0]], local_step=0),
                acc.num_accumulated(), list(acc.take_grad(2)), acc.num_accumulated()], {}
    c["sparse_mean_per_index"] = sparse_mean_per_index

    def sparse_sum_float64_rank3(tf):
        acc = tf.SparseConditionalAccumulator(tf.float64, shape=[4, 2, 2], reduction_type="SUM")
        rows = np.arange(8, dtype=np.float64).reshape(2, 2, 2)
        return [acc.apply_grad([1, 3], rows), acc.apply_grad([0, 1], -rows / 4), acc.apply_grad([3], rows[:1] * 2),
                list(acc.take_grad(3))], {}
    c["sparse_sum_float64_rank3"] = sparse_sum_float64_rank3

    def sparse_stale_and_global_step(tf):
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[3, 1])
        return [acc.apply_grad([1], [[2.0]], local_step=0), list(acc.take_grad(1)),
                acc.apply_grad([0], [[5.0]], local_step=0), acc.num_accumulated(),
                acc.apply_grad([0], [[7.0]], local_step=1), acc.set_global_step(5),
                acc.apply_grad([2], [[9.0]], local_step=4), acc.apply_grad([2], [[11.0]], local_step=5),
                acc.num_accumulated(), list(acc.take_grad(2))], {}
    c["sparse_stale_and_global_step"] = sparse_stale_and_global_step

    def sparse_unknown_shape_and_indexed_slices(tf):
        acc = tf.SparseConditionalAccumulator(tf.float32)
        grad = tf.IndexedSlices(tf.constant([[1.0, 2.0, 3.0]]), tf.constant([6], tf.int64),
                                tf.constant([9, 3], tf.int64))
        taken = acc.take_indexed_slices_grad(1)
        return [acc.apply_indexed_slices_grad(grad), [taken.indices, taken.values, taken.dense_shape]], {}
    c["sparse_unknown_shape_and_indexed_slices"] = sparse_unknown_shape_and_indexed_slices

    def sparse_errors(tf):
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[5, 2])
        return [acc.apply_grad([7], [[1.0, 2.0]]),
                acc.apply_grad([0, 1], [[1.0, 2.0]]),
                acc.apply_grad([0], [[1.0, 2.0, 3.0]]),
                acc.apply_grad([0], [[1.0, 2.0]], grad_shape=[6, 2]),
                acc.apply_grad([0], [[1.0, 2.0]], grad_shape=[5]),
                acc.apply_grad([0], [1.0]),
                acc.apply_grad([0], [[1.0, 2.0]]),
                acc.apply_grad([1], [[[1.0], [2.0]]]),
                acc.num_accumulated()], {}
    c["sparse_errors"] = sparse_errors

    def dense_mean_stale_and_sum(tf):
        mean = tf.ConditionalAccumulator(tf.float32, shape=[2])
        total = tf.ConditionalAccumulator(tf.float64, shape=[], reduction_type="SUM")
        return [mean.apply_grad([1.0, 2.0]), mean.apply_grad([3.0, 6.0]), mean.take_grad(2),
                mean.apply_grad([5.0, 5.0], local_step=0), mean.num_accumulated(),
                total.apply_grad(1.5), total.apply_grad(2.25), total.take_grad(2)], {}
    c["dense_mean_stale_and_sum"] = dense_mean_stale_and_sum
    return c
