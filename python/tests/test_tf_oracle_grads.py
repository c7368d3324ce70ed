"""The differential gradient test: for every op of our gradient registry (`tw ops --gradients`),
the same small graph -- the op on constant inputs, dys on its outputs -- differentiated by
tf.gradients here and by tf.compat.v1.gradients in TensorFlow (tf_side/raw_ops.py in a
subprocess), on inputs away from points of non-differentiability. Gradients must agree
within the bound stated per op, in units of the dtype's epsilon relative to the largest
element of TensorFlow's gradient (a gradient is a sum of products, evaluated by formulas
that differ between the two). An op with a gradient in neither GRAD_SPECS nor
GRAD_EXCLUDED fails the test, so an op that gains a gradient is covered the day it lands.
Ops registered as not differentiable must get no gradient from TensorFlow either (None, or
zeros as TensorFlow gives for Sign)."""
import os
import subprocess

import numpy as np

import tensorweave as tf
from test_tf_oracle_ops import (BOOL, F32, F64, FLOATS, I32, I64, SPECS, list_sizes, our_attrs, own_rng,
                                positive_definite, run_ours, values, well_conditioned)
from tf_peer import BUILD_DIR, require_tensorflow, run_tf_cases

GRAD_EXCLUDED = {
    **{op: "test_tensor_array.py::test_program_matches_tensorflow (stateful arrays: whole programs' gradients, "
           "in and out of loops, against TensorFlow's)"
       for op in ("TensorArrayReadV3", "TensorArrayWriteV3", "TensorArrayGatherV3", "TensorArrayScatterV3",
                  "TensorArrayConcatV3", "TensorArraySplitV3")},
    "Switch": "test_control_flow_cond.py::test_cond_gradients_match_tensorflow (needs dead tensors: whole conds)",
    "Merge": "test_control_flow_cond.py::test_cond_gradients_match_tensorflow (needs dead tensors: whole conds)",
    **{op: "test_control_flow_while.py::test_gradients_through_a_loop_match_tensorflow_and_finite_differences "
           "(whole loops: Python's while_grad.py builds the loop's gradient)" for op in ("Exit", "Enter", "NextIteration")},
    **{op: "compared with TensorFlow, gradients included, in test_conv2d.py"
       for op in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")},
    **{op: "compared with TensorFlow in test_pooling.py (values, gradients and the gradients' gradients)"
       for op in ("MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad", "MaxPoolGradGrad")},
    **{op: "compared with TensorFlow in test_batch_norm.py (tf.gradients of x, scale and offset, training and "
           "inference, NHWC and NCHW)"
       for op in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")},
    **{op: "compared with TensorFlow in test_batch_norm.py (second order: tf.gradients of fused_batch_norm's "
           "gradients, training and inference, NHWC and NCHW)"
       for op in ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3")},
    "Lu": "TensorFlow registers no gradient for Lu; ours is checked against central differences (and through "
          "lu_solve / lu_matrix_inverse against TensorFlow's tf.gradients) in test_linalg_lu.py",
    "Print": "compared with TensorFlow (tf.gradients through tf.Print) in test_check_ops.py",
    "BlockLSTM": "test_block_lstm.py::test_matches_tensorflow (tf.gradients of every input, peepholes, clip, "
                 "short sequences)",
    **{op: "test_linalg_factor.py::test_matches_tensorflow (gradients of sign-invariant losses of the factors; "
           "dys on raw factors would compare the libraries' sign choices)" for op in ("Qr", "Svd", "SelfAdjointEigV2")},
    "RandomGamma": "test_random_gamma_poisson.py::test_gamma_gradient_matches_tensorflows_random_gamma_grad "
                   "(random samples: TensorFlow's RandomGammaGrad evaluated on our samples)",
    **{op: "test_complex.py::test_matches_tensorflow (tf.gradients of real losses through complex values, by "
           "the real parts and by a complex tensor)" for op in ("Complex", "Real", "Imag", "Angle", "ComplexAbs", "Conj")},
    **{op: "test_fft.py::test_matches_tensorflow (tf.gradients of real losses through each transform; cropped and "
           "padded fft_length against central differences)"
       for op in ("FFT", "IFFT", "FFT2D", "IFFT2D", "FFT3D", "IFFT3D", "RFFT", "IRFFT", "RFFT2D", "IRFFT2D",
                  "RFFT3D", "IRFFT3D")},
    "Einsum": "test_einsum.py::test_matches_tensorflow (gradients of 22 equations, broadcasting and diagonals included)",
    "SoftsignGrad": "TensorFlow registers no gradient for SoftsignGrad; ours is checked against finite "
                    "differences in test_activations.py",
    "ReadVariableOp": "stateful: its gradient (to the variable's handle) is compared through the optimizer "
                      "programs of test_tf_oracle_stateful.py (minimize)",
    "ResourceGather": "stateful: its gradient (IndexedSlices, to the variable's handle) is compared with "
                      "TensorFlow's in test_sparse_gradients.py (tf_side/sparse_sgd_program.py)",
}


# Ops TensorFlow gives no gradient function (tf.gradients through them raises LookupError): ours
# have none either (tw::gradients fails naming the op), checked in the named test.
NO_GRADIENT_IN_EITHER = {
    "Unique": "test_embedding_ops.py::test_unique_has_no_gradient_as_in_tensorflow",
    "DecodeCSV": "test_decode_csv.py::test_decode_csv_has_no_gradient_as_in_tensorflow",
    "RandomPoissonV2": "test_random_gamma_poisson.py::test_poisson_has_no_gradient_as_in_tensorflow",
    **{op: "test_stateless_random.py::test_no_gradient_as_in_tensorflow"
       for op in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
                  "StatelessRandomUniformInt", "StatelessRandomUniformFullInt")},
    **{op: "test_op_gen.py::test_parse_ops_have_no_gradient_as_in_tensorflow"
       for op in ("ParseExample", "ParseExampleV2", "ParseSingleExample")},
}


# Documented deviations (RELIABILITY.md, "Deviations from TensorFlow's kernels"):
# (op, input position) -> (why, what ours must equal given TensorFlow's gradient and the dys).
GRAD_DEVIATIONS = {
    # backprop = softmax(logits) - labels, so a gradient flowing into backprop reaches the
    # labels negated; TensorFlow's gradient leaves that term out (it returns only
    # grad_loss * -log_softmax(logits) for the labels). Ours keeps it.
    ("SoftmaxCrossEntropyWithLogits", 1): (
        "the labels' gradient includes minus the backprop output's gradient",
        lambda theirs, dys: theirs if dys[1] is None else theirs - dys[1]),
}


def smooth(rng, d, shape, kind="small"):
    """Floats away from kinks and poles: uniform in (-1.5, 1.5), or positive in [0.5, 2)."""
    if kind == "positive":
        return rng.uniform(0.5, 2.0, shape).astype(d)
    return values(rng, d, shape, "small")


BINARY_SHAPES = (((3, 4), (3, 4)), ((3, 1), (4,)), ((), (5,)), ((2, 3, 4), (3, 1)))


def g_unary(kind="small", shapes=((3, 4), ())):
    return lambda rng: [([smooth(rng, d, s, kind)], {}, [0]) for d in FLOATS for s in shapes]


def g_binary(x_kind="small", y_kind="small"):
    return lambda rng: [([smooth(rng, d, xs, x_kind), smooth(rng, d, ys, y_kind)], {}, [0, 1]) for d in FLOATS
                        for xs, ys in BINARY_SHAPES]


def g_scaled(scale, shift=0.0):
    """Unary cases in (-1.5, 1.5) * scale + shift (inside the domains of Asin, Acos, Atanh, Acosh)."""
    return lambda rng: [([(smooth(rng, d, s) * scale + shift).astype(d)], {}, [0]) for d in FLOATS
                        for s in ((3, 4), ())]


def own_rng(make, seed=2525):
    """Cases (and their dys) from generators of their own: the shared one's draws for later ops stay as
    they were."""
    def cases(_):
        return make(np.random.default_rng(seed))
    cases.dy_rng = np.random.default_rng(seed + 1)
    return cases


def own_rng_and_dys(make, seed):
    """As own_rng, and the test draws these cases' dys from a generator of their own too (own_seed), so that
    the shared one's dys for later ops stay as they were."""
    cases = own_rng(make, seed)
    cases.own_seed = seed
    return cases


# Not differentiable here (RegisterNoGradient) and in TensorFlow registered with no gradient at all:
# tf.gradients raises LookupError, which the test expects in place of None.
NO_GRADIENT_IN_TF = {"Mod", "TruncateMod", "IgammaGradA"}


def g_reduction(rng):
    cases = []
    for d in FLOATS:
        x = smooth(rng, d, (3, 4, 2))
        for axis in ([1], [0, 2], [-1], []):
            for keep in (False, True):
                cases.append(([x, np.array(axis, I32)], {"keep_dims": keep}, [0]))
    return cases


def g_prod(rng):
    # One zero on a reduced row (TensorFlow's gradient is then the product of the others).
    x = smooth(rng, F64, (3, 4))
    x[1, 2] = 0
    return g_reduction(rng) + [([x, np.array([1], I32)], {"keep_dims": False}, [0])]


def g_matmul(rng):
    cases = []
    for d in FLOATS:
        a, b = smooth(rng, d, (3, 4)), smooth(rng, d, (4, 5))
        cases += [([a, b], {}, [0, 1]), ([a.T.copy(), b], {"transpose_a": True}, [0, 1]),
                  ([a, b.T.copy()], {"transpose_b": True}, [0, 1]),
                  ([a.T.copy(), b.T.copy()], {"transpose_a": True, "transpose_b": True}, [0, 1])]
    return cases


def g_batch_matmul(broadcast):
    def make(rng):
        cases = []
        for d in FLOATS:
            xs, ys = ((2, 1, 3, 4), (3, 4, 2)) if broadcast else ((2, 3, 4), (2, 4, 2))
            cases.append(([smooth(rng, d, xs), smooth(rng, d, ys)], {}, [0, 1]))
            cases.append(([smooth(rng, d, (2, 4, 3)), smooth(rng, d, (2, 2, 4))], {"adj_x": True, "adj_y": True},
                          [0, 1]))
        return cases
    return make


def g_xent(rng):
    cases = []
    for d in FLOATS:
        labels = rng.random((5, 4)).astype(d)
        labels /= labels.sum(axis=1, keepdims=True)
        cases.append(([smooth(rng, d, (5, 4)), labels], {}, [0, 1]))
        cases.append(([smooth(rng, d, (5, 4)), labels], {}, [0, 1], [True, False]))  # the loss alone
    return cases


def g_strided_slice(rng):
    slices = (([1, 0, 0], [3, 0, 0], [1, 2, 1], {"end_mask": 6}),
              ([0, -1], [0, 0], [-1, -2], {"begin_mask": 1, "end_mask": 1}),
              ([0, 1], [0, 2], [1, 1], {"ellipsis_mask": 1, "shrink_axis_mask": 2}),
              ([1, 0, 0, 0], [2, 0, 0, 0], [1, 1, 1, -1], {"shrink_axis_mask": 1, "new_axis_mask": 2, "end_mask": 12,
                                                           "begin_mask": 12}))
    return [([smooth(rng, d, (4, 5, 3)), np.array(b, I32), np.array(e, I32), np.array(s, I32)], masks, [0])
            for d in FLOATS for b, e, s, masks in slices]


def g_strided_slice_grad(rng):
    return [([np.array([4, 5, 3], I32), np.array([1, 0, 0], I32), np.array([3, 0, 0], I32),
              np.array([1, 2, 1], I32), smooth(rng, d, (2, 3, 3))], {"end_mask": 6}, [4]) for d in FLOATS]


def g_bias_add(rng):
    return [([smooth(rng, d, s), smooth(rng, d, (4,))], {}, [0, 1]) for d in FLOATS for s in ((2, 3, 4), (5, 4))]


def g_bias_add_grad(rng):
    return [([smooth(rng, d, s)], {"data_format": f}, [0]) for d in FLOATS
            for s, f in (((2, 3, 4), "NHWC"), ((2, 4, 3, 2), "NCHW"))]


def g_select(v2):
    def make(rng):
        shapes = (((3, 1), (3, 4), (4,)),) if v2 else (((3, 4), (3, 4), (3, 4)), ((3,), (3, 2), (3, 2)))
        return [([values(rng, BOOL, c), smooth(rng, d, t), smooth(rng, d, e)], {}, [1, 2]) for d in FLOATS
                for c, t, e in shapes]
    return make


def g_floats_then_ints(shape, ints, attrs=None):
    """One float input of `shape` (differentiated) followed by integer inputs."""
    return lambda rng: [([smooth(rng, d, shape)] + [np.array(i, I32) for i in ints], dict(attrs or {}), [0])
                        for d in FLOATS]


def at_kinks(op):
    """Cases at points of non-differentiability, where both systems follow a convention:
    ties of Max/Min and Maximum/Minimum, 0 for Abs and Relu, a zero in Prod."""
    def make(rng):
        tie = np.array([[1.0, 3.0, 3.0, -2.0], [0.5, 0.5, 0.5, 0.5]])
        if op in ("Max", "Min"):
            return [([tie.astype(d) * (1 if op == "Max" else -1), np.array([1], I32)], {"keep_dims": False}, [0])
                    for d in FLOATS]
        if op in ("Maximum", "Minimum"):
            return [([tie.astype(d), np.array([3.0, 0.5, 3.0, 0.5], d)], {}, [0, 1]) for d in FLOATS]
        if op == "Prod":
            return [([np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]], d), np.array([1], I32)], {"keep_dims": False}, [0])
                    for d in FLOATS]
        return [([np.array([0.0, -0.0, 1.0, -1.0], d)], {}, [0]) for d in FLOATS]  # Abs, Relu
    return make


def plus(*makers):
    return lambda rng: [case for make in makers for case in make(rng)]


def g_depthwise(op):
    """The depthwise convolution and its backprops: the same cases as the op test, each
    differentiated in its two tensor inputs (the sizes input is an int)."""
    from test_tf_oracle_ops import depthwise_cases
    positions = {"DepthwiseConv2dNative": [0, 1], "DepthwiseConv2dNativeBackpropInput": [1, 2],
                 "DepthwiseConv2dNativeBackpropFilter": [0, 2]}[op]
    return [(inputs, attrs, positions) for inputs, attrs in depthwise_cases(None, op)
            if "_refused" not in attrs and "_only_ours" not in attrs]


# op: (case maker -> [(inputs, attrs, positions differentiated[, outputs given a dy])], bound in epsilons)
GRAD_SPECS = {
    **{op: (g_unary(), 4) for op in ("Neg", "Square", "Exp", "Tanh", "Sigmoid", "Identity")},
    **{op: (g_unary("positive"), 8) for op in ("Log", "Sqrt", "Rsqrt", "Reciprocal")},
    # Abs and Relu away from 0, their kink (uniform values are 0 with probability 0).
    **{op: (plus(g_unary(), at_kinks(op)), 0) for op in ("Abs", "Relu")},
    **{op: (g_binary(), 8) for op in ("Add", "AddV2", "Sub", "Mul", "SquaredDifference")},
    **{op: (plus(g_binary(), at_kinks(op)), 8) for op in ("Maximum", "Minimum")},
    **{op: (g_binary(y_kind="positive"), 8) for op in ("Div", "RealDiv")},
    "FloorMod": (g_binary("positive", "positive"), 8),
    "Pow": (g_binary("positive"), 16),
    "AddN": (lambda rng: [([smooth(rng, d, (2, 3)) for _ in range(3)], {}, [0, 1, 2]) for d in FLOATS], 0),
    "Cast": (lambda rng: [([smooth(rng, s, (2, 3))], {"DstT": np.dtype(t).name}, [0]) for s in FLOATS
                          for t in FLOATS], 1),
    "Select": (g_select(False), 0),
    "SelectV2": (g_select(True), 0),
    **{op: (lambda rng: [([smooth(rng, d, (3, 4)), smooth(rng, d, (3, 4))], {}, [0, 1]) for d in FLOATS], 8)
       for op in ("SigmoidGrad", "TanhGrad", "ReluGrad")},
    **{op: (g_reduction, 8) for op in ("Sum", "Mean")},
    **{op: (plus(g_reduction, at_kinks(op)), 8) for op in ("Max", "Min")},
    "Prod": (plus(g_prod, at_kinks("Prod")), 16),
    "MatMul": (g_matmul, 8),
    "BatchMatMul": (g_batch_matmul(False), 8),
    "BatchMatMulV2": (g_batch_matmul(True), 8),
    **{op: (lambda rng: [([smooth(rng, d, (4, 6))], {}, [0]) for d in FLOATS], 16) for op in ("Softmax", "LogSoftmax")},
    "SoftmaxCrossEntropyWithLogits": (g_xent, 16),
    "L2Loss": (own_rng_and_dys(g_unary(shapes=((3, 4), (), (20,))), 1616), 4),
    "BiasAdd": (g_bias_add, 8),
    "BiasAddV1": (g_bias_add, 8),
    "BiasAddGrad": (g_bias_add_grad, 0),
    "PlaceholderWithDefault": (lambda rng: [([smooth(rng, d, (3, 4))], {"shape": [3, 4]}, [0]) for d in FLOATS], 0),
    "Reshape": (g_floats_then_ints((2, 6), ([3, -1],)), 0),
    "ExpandDims": (g_floats_then_ints((2, 3), (1,)), 0),
    "Squeeze": (g_floats_then_ints((1, 3, 1), (), {"squeeze_dims": [0]}), 0),
    "Slice": (g_floats_then_ints((4, 5), ([1, 2], [2, -1])), 0),
    "StridedSlice": (g_strided_slice, 0),
    "StridedSliceGrad": (g_strided_slice_grad, 0),
    "Pad": (g_floats_then_ints((2, 3), ([[1, 0], [2, 1]],)), 0),
    "Transpose": (g_floats_then_ints((2, 3, 4), ([2, 0, 1],)), 0),
    "Tile": (g_floats_then_ints((2, 3), ([2, 3],)), 0),
    "BroadcastTo": (g_floats_then_ints((3, 1), ([2, 3, 4],)), 0),
    "Fill": (lambda rng: [([np.array([2, 3], I32), smooth(rng, d, ())], {}, [1]) for d in FLOATS], 0),
    "ConcatV2": (lambda rng: [([smooth(rng, d, (2, 3)), smooth(rng, d, (2, 1)), np.array(-1, I32)], {}, [0, 1])
                              for d in FLOATS], 0),
    "Concat": (lambda rng: [([np.array(0, I32), smooth(rng, d, (2, 3)), smooth(rng, d, (1, 3))], {}, [1, 2])
                            for d in FLOATS], 0),
    "Pack": (lambda rng: [([smooth(rng, d, (2, 3)), smooth(rng, d, (2, 3))], {"axis": 1}, [0, 1]) for d in FLOATS], 0),
    "Unpack": (lambda rng: [([smooth(rng, d, (3, 2))], {"num": 3, "axis": 0}, [0], [True, False, True])
                            for d in FLOATS], 0),
    "Split": (lambda rng: [([np.array(1, I32), smooth(rng, d, (2, 6))], {"num_split": 3}, [1], [True, False, True])
                           for d in FLOATS], 0),
    "SplitV": (lambda rng: [([smooth(rng, d, (2, 6)), np.array([1, -1, 2], I64), np.array(1, I32)], {"num_split": 3},
                             [0]) for d in FLOATS], 0),
    "GatherV2": (lambda rng: [([smooth(rng, d, (4, 3)), np.array([[3, 0], [3, 1]], I64), np.array(0, I32)], {}, [0])
                              for d in FLOATS] +
                             [([smooth(rng, F32, (2, 5)), np.array([4, 0, 4], I32), np.array(1, I32)], {}, [0])] +
                             [([smooth(rng, F64, (2, 3, 4)), np.array([[2, 0, 2], [1, 1, 0]], I32), np.array(a, I32)],
                               {"batch_dims": 1}, [0]) for a in (1, 2)] +
                             [([smooth(rng, F64, (2, 3, 4, 2)), np.array([[[3, 3], [1, 0], [2, 2]], [[0, 0], [3, 1],
                                                                                                    [2, 1]]], I64),
                                np.array(2, I32)], {"batch_dims": 2}, [0])], 0),
    "UnsortedSegmentSum": (lambda rng: [([smooth(rng, d, (5, 2)), np.array([1, -1, 0, 1, 3], I32), np.array(4, I32)],
                                         {}, [0]) for d in FLOATS], 0),
    "Gather": (own_rng(lambda rng: [([smooth(rng, d, (4, 3)), np.array([[3, 0], [3, 1]], t)], {}, [0])
                                    for d in FLOATS for t in (I32, I64)], 1), 0),
    "DynamicPartition": (own_rng(lambda rng: [([smooth(rng, d, (6, 2)), np.array([1, 0, 1, 2, 0, 1], I32)],
                                       {"num_partitions": 3}, [0], dys) for d in FLOATS
                                      for dys in ([True, True, True], [True, False, True])] +
                                     [([smooth(rng, F64, (2, 3, 2)), np.array([[1, 1, 0], [2, 0, 1]], I32)],
                                       {"num_partitions": 3}, [0])], 2), 0),
    **{op: (own_rng(lambda rng: [([smooth(rng, d, (5, 2)), np.array([0, 0, 2, 3, 3], I32)], {}, [0])
                                 for d in FLOATS], 5), 0)
       for op in ("SegmentSum", "SegmentMean")},
    # Ties split the gradient; zeros: one in a segment (the others' product), two (all 0).
    **{op: (own_rng_and_dys(lambda rng: [([smooth(rng, d, (6, 2)), np.array([0, 0, 2, 3, 3, 3], I32)], {}, [0])
                                         for d in FLOATS] +
                                        [([np.array([[1.0, 0.0], [1.0, 2.0], [0.5, 0.0], [0.0, 3.0], [2.0, 0.0]]),
                                           np.array([0, 0, 1, 1, 1], I64)], {}, [0])], 2625), 0)
       for op in ("SegmentMax", "SegmentMin", "SegmentProd")},
    "UnsortedSegmentProd": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (5, 2)), np.array([1, -1, 0, 1, 3], I32),
                                                           np.array(5, I32)], {}, [0]) for d in FLOATS] +
                                                        [([np.array([[1.0, 0.0], [0.0, 2.0], [0.5, 0.0], [4.0, 3.0]]),
                                                           np.array([0, 0, -1, 0], I32), np.array(2, I32)], {}, [0])],
                                            2626), 0),
    **{op: (own_rng(lambda rng: [([smooth(rng, d, (5, 2)), np.array([1, -1, 0, 1, 3], I32), np.array(5, I32)],
                                  {}, [0]) for d in FLOATS] +
                                [([np.array([[1.0, 2.0], [1.0, -3.0], [0.5, 2.0]]), np.array([0, 0, 0], I32),
                                   np.array(2, I32)], {}, [0])], 6), 0)  # ties: the gradient split evenly
       for op in ("UnsortedSegmentMax", "UnsortedSegmentMin")},
    "GatherNd": (own_rng(lambda rng: [([smooth(rng, d, (3, 4, 2)), np.array(i, I32)], {}, [0]) for d in FLOATS
                                      for i in ([[2, 1], [0, 3], [2, 1]], [[1], [1]])], 7), 0),
    # default_value's gradient is sum(dz) - sum(dz at the indices): both sums are ~1 and their
    # difference ~0.01, so one ulp of the sums (summed in another order than TensorFlow's) is
    # ~100 ulps of the result. The values' gradient is a gather: exact.
    "SparseToDense": (own_rng_and_dys(lambda rng: [([np.array([[0, 1], [1, 0], [2, 3]], t), np.array([3, 4], t),
                                                     smooth(rng, d, (3,)), smooth(rng, d, ())], {}, [2, 3])
                                                   for d in FLOATS for t in (I32, I64)], 2727), 256),
    # TensorScatter*: the tensor's and the updates' gradients; Min/Max with a tie between tensor and update
    # (the gradient split between them) beside distinct values.
    **{op: (own_rng_and_dys(lambda rng, op=op: [([smooth(rng, d, (4, 3)), np.array(i, t), smooth(rng, d, u)], {}, [0, 2])
                                                for d in FLOATS for t in (I32, I64)
                                                for i, u in (([[1], [3]], (2, 3)), ([[0, 2], [3, 1]], (2,)))] +
                                               [([np.array([[1.0, 2.0], [3.0, 4.0]], d), np.array([[0, 1], [1, 0]], I32),
                                                  np.array([2.0, 3.0], d)], {}, [0, 2]) for d in FLOATS], seed), 0)
       for op, seed in (("TensorScatterUpdate", 2901), ("TensorScatterAdd", 2902), ("TensorScatterSub", 2903),
                        ("TensorScatterMin", 2904), ("TensorScatterMax", 2905))},
    "ScatterNd": (own_rng(lambda rng: [([np.array([[1, 0], [2, 2], [1, 0]], t), smooth(rng, d, (3,)),
                                         np.array([3, 4], t)], {}, [1]) for d in FLOATS for t in (I32, I64)], 8), 0),
    **{op: (own_rng(lambda rng: [([np.array([0, 4], I32), np.array([[1], [3]], I32), smooth(rng, d, (2, 2)),
                                   smooth(rng, d, (2, 1, 2))], {}, [2, 3]) for d in FLOATS], 3), 0)
       for op in ("DynamicStitch", "ParallelDynamicStitch")},
    # Activations: values spread over both sides of the kinks (0, and 6 for Relu6).
    **{op: (lambda rng: [([smooth(rng, d, s) * 5], {}, [0]) for d in FLOATS for s in ((3, 4), ())], 8)
       for op in ("Relu6", "Elu", "Selu", "Softplus", "Softsign")},
    "LeakyRelu": (lambda rng: [([smooth(rng, d, (3, 4)) * 5], a, [0]) for d in FLOATS
                               for a in ({}, {"alpha": 0.05})], 0),
    **{op: (lambda rng: [([smooth(rng, d, (3, 4)), smooth(rng, d, (3, 4)) * 5], {}, [0, 1]) for d in FLOATS], 8)
       for op in ("Relu6Grad", "EluGrad", "SeluGrad", "SoftplusGrad")},
    "LeakyReluGrad": (lambda rng: [([smooth(rng, d, (3, 4)), smooth(rng, d, (3, 4))], {"alpha": 0.3}, [0, 1])
                                   for d in FLOATS], 0),
    **{op: (lambda rng: [([smooth(rng, d, (3, 4), "positive" if op == "Cumprod" else "small"), np.array(a, I32)],
                          {"exclusive": e, "reverse": rv}, [0]) for d in FLOATS for a in (1, -2)
                         for e in (False, True) for rv in (False, True)], 8)
       for op in ("Cumsum", "Cumprod")},
    "ClipByValue": (lambda rng: [([smooth(rng, d, (3, 4)) * 3, (smooth(rng, d, lo_s) - 1.5).astype(d),
                                   (smooth(rng, d, hi_s) + 1.5).astype(d)],
                                  {}, [0, 1, 2]) for d in FLOATS for lo_s, hi_s in (((), ()), ((3, 4), ()), ((), (3, 4)))],
                    0),
    "TopKV2": (lambda rng: [([smooth(rng, d, s), np.array(k, I32)], {}, [0], [True, False]) for d in FLOATS
                            for s, k in (((3, 5), 2), ((2, 2, 4), 4), ((6,), 1))], 0),
    **{op: (lambda rng, op=op: g_depthwise(op), 8)
       for op in ("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                  "DepthwiseConv2dNativeBackpropFilter")},
    # The functions of math_fn_grad.cc, each inside its domain; own generators (see own_rng).
    **{op: (own_rng(g_unary()), 8) for op in ("Sin", "Cos", "Tan", "Atan", "Sinh", "Cosh", "Asinh", "Erf", "Erfc",
                                              "Expm1")},
    **{op: (own_rng(g_scaled(0.6)), 8) for op in ("Asin", "Acos", "Atanh")},
    **{op: (own_rng(g_unary("positive")), 16) for op in ("Inv", "Log1p", "Lgamma", "Digamma")},
    "Acosh": (own_rng(g_scaled(0.3, 2.0)), 8),
    "Atan2": (own_rng(g_binary()), 8),
    "MulNoNan": (own_rng(g_binary()), 8),
    "Betainc": (own_rng(lambda rng: [([smooth(rng, d, s, "positive"), smooth(rng, d, s, "positive"),
                                       rng.uniform(0.1, 0.9, s).astype(d)], {}, [2]) for d in FLOATS
                                     for s in ((3, 4), ())]), 64),
    "CheckNumerics": (own_rng(lambda rng: [([smooth(rng, d, (3, 4))], {"message": "m"}, [0]) for d in FLOATS]), 0),
    **{op: (own_rng(g_binary(y_kind="positive")), 8) for op in ("DivNoNan", "Xdivy", "Xlogy", "Xlog1py")},
    **{op: (own_rng(g_binary("positive", "positive")), 64) for op in ("Igamma", "Igammac")},
    # TensorFlow has no derivative with respect to Zeta's x or Polygamma's n.
    "Zeta": (own_rng(lambda rng: [([smooth(rng, d, (3, 1), "positive") + 1, smooth(rng, d, (4,), "positive")], {},
                                   [1]) for d in FLOATS]), 16),
    "Polygamma": (own_rng(lambda rng: [([np.array([[0], [1], [2]], d), smooth(rng, d, (4,), "positive")], {}, [1])
                                       for d in FLOATS]), 16),
    # Element movers (reorder_grad.cc): the gradient moved back.
    "ReverseV2": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (2, 3, 4)), np.array(a, I32)], {}, [0]) for d in FLOATS
                                       for a in ([0], [1, -1])], 240), 0),
    "Roll": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (3, 4)), np.array(s, I32), np.array(a, I32)], {}, [0])
                                  for d in FLOATS for s, a in ((1, 0), ([2, -5], [1, 0]))], 241), 0),
    "MatrixBandPart": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (2, 3, 4)), np.array(lo, I64), np.array(up, I64)], {},
                                             [0]) for d in FLOATS for lo, up in ((1, 0), (-1, 2))], 243), 0),
    # Matrix functions (linalg_decomp_grad.cc) on well-conditioned batches.
    "MatrixInverse": (own_rng_and_dys(lambda rng: [([well_conditioned(rng, d, s)], {"adjoint": adj}, [0]) for d in FLOATS
                                           for s in ((3, 3), (2, 4, 4)) for adj in (False, True)], 244), 64),
    "MatrixDeterminant": (own_rng_and_dys(lambda rng: [([well_conditioned(rng, d, s)], {}, [0]) for d in FLOATS
                                               for s in ((3, 3), (2, 4, 4))], 245), 64),
    "LogMatrixDeterminant": (own_rng_and_dys(lambda rng: [([well_conditioned(rng, d, s)], {}, [0], [False, True])
                                                  for d in FLOATS for s in ((3, 3), (2, 4, 4))], 245), 64),
    "Cholesky": (own_rng_and_dys(lambda rng: [([positive_definite(rng, d, s)], {}, [0]) for d in FLOATS
                                      for s in ((3, 3), (2, 4, 4))], 246), 64),
    "MatrixSquareRoot": (own_rng_and_dys(lambda rng: [([m], {}, [0]) for d in FLOATS
                                                      for m in (positive_definite(rng, d, (3, 3)),
                                                                positive_definite(rng, d, (2, 4, 4)),
                                                                well_conditioned(rng, d, (2, 3, 3)))], 271), 64),
    "MatrixSolve": (own_rng_and_dys(lambda rng: [([well_conditioned(rng, d, a), smooth(rng, d, b)], {"adjoint": adj}, [0, 1])
                                         for d in FLOATS for a, b in (((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)))
                                         for adj in (False, True)], 247), 64),
    "MatrixTriangularSolve": (own_rng_and_dys(lambda rng: [([well_conditioned(rng, d, a), smooth(rng, d, b)],
                                                    {"lower": lo, "adjoint": adj}, [0, 1])
                                                   for d in FLOATS for a, b in (((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)))
                                                   for lo in (False, True) for adj in (False, True)], 248), 64),
    # Diagonals (diag_grad.cc).
    **{op: (own_rng_and_dys(lambda rng, s=s: [([smooth(rng, d, s)], {}, [0]) for d in FLOATS], seed), 0)
       for op, s, seed in (("Diag", (2, 3), 249), ("DiagPart", (2, 3, 2, 3), 250), ("MatrixDiag", (2, 4), 251),
                           ("MatrixDiagPart", (2, 3, 5), 252))},
    "MatrixSetDiag": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (2, 3, 5)), smooth(rng, d, (2, 3))], {}, [0, 1])
                                                   for d in FLOATS], 253), 0),
    # Pass-throughs (shape_n_grad.cc).
    "IdentityN": (own_rng_and_dys(lambda rng: [([smooth(rng, F32, (2, 3)), smooth(rng, F64, (4,))], {}, [0, 1],
                                                dys) for dys in ([True, True], [False, True])], 256), 0),
    "EnsureShape": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (2, 3))], {"shape": [None, 3]}, [0])
                                                 for d in FLOATS], 257), 0),
    # Mirror padding (mirror_pad_grad.cc): each op's gradient is the other.
    "MirrorPad": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (3, 4)), np.array(p, I32)], {"mode": m}, [0])
                                               for d in FLOATS for m, p in (("REFLECT", [[2, 1], [0, 3]]),
                                                                            ("SYMMETRIC", [[3, 0], [4, 4]]))], 259), 8),
    "MirrorPadGrad": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (6, 8)), np.array([[2, 1], [0, 3]], I32)],
                                                    {"mode": m}, [0]) for d in FLOATS
                                                   for m in ("REFLECT", "SYMMETRIC")], 260), 0),
    "SpaceToBatchND": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (2, 4, 6, 3)), np.array([2, 3], I32),
                                                      np.array([[0, 0], [1, 2]], I32)], {}, [0]) for d in FLOATS], 2621), 0),
    "BatchToSpaceND": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (12, 2, 3, 3)), np.array([2, 3], I64),
                                                      np.array([[0, 1], [1, 2]], I64)], {}, [0]) for d in FLOATS], 2622), 0),
    "SpaceToBatch": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (2, 4, 5, 3)), np.array([[0, 2], [1, 0]], I32)],
                                                   {"block_size": 2}, [0]) for d in FLOATS], 2623), 0),
    "BatchToSpace": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (8, 2, 3, 3)), np.array([[1, 1], [0, 2]], I32)],
                                                   {"block_size": 2}, [0]) for d in FLOATS], 2624), 0),
    "SpaceToDepth": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (2, 4, 6, 3))], {"block_size": 2}, [0])
                                                  for d in FLOATS], 261), 0),
    "DepthToSpace": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (2, 2, 3, 12))], {"block_size": 2}, [0])
                                                  for d in FLOATS], 262), 0),
    "ExtractImagePatches": (own_rng_and_dys(lambda rng: [([smooth(rng, d, s)], {"ksizes": [1, *k, 1], "strides": [1, *st, 1],
                                                                          "rates": [1, *r, 1], "padding": p}, [0])
                                                    for d in FLOATS
                                                    for s, k, st, r, p in (((2, 5, 6, 3), (2, 3), (1, 1), (1, 1), "VALID"),
                                                                           ((1, 7, 5, 2), (3, 2), (2, 3), (1, 1), "SAME"),
                                                                           ((2, 6, 7, 1), (2, 2), (1, 2), (2, 3), "VALID"),
                                                                           ((1, 5, 5, 2), (3, 3), (2, 2), (2, 1), "SAME"))],
                                            270), 0),
    "ReverseSequence": (own_rng_and_dys(lambda rng: [([smooth(rng, d, (3, 4, 2)), np.array([4, 0, 2], I64)],
                                                      {"seq_dim": 1, "batch_dim": 0}, [0]) for d in FLOATS], 263), 0),
}


def gradient_registry():
    """{op: "gradient" | "none" | "missing"} from `tw ops --gradients`."""
    tw = os.path.join(BUILD_DIR, "tools", "tw")
    lines = subprocess.run([tw, "ops", "--gradients"], capture_output=True, text=True, check=True).stdout.splitlines()
    return dict(line.split() for line in lines)


def test_every_op_with_a_gradient_is_compared_or_says_why_not():
    registry = gradient_registry()
    with_gradient = {op for op, kind in registry.items() if kind == "gradient"}
    listed = set(GRAD_SPECS) | set(GRAD_EXCLUDED)
    assert not set(GRAD_SPECS) & set(GRAD_EXCLUDED), set(GRAD_SPECS) & set(GRAD_EXCLUDED)
    unlisted = sorted(with_gradient - listed)
    assert not unlisted, f"ops with a gradient and no differential test: {unlisted}"
    assert listed - with_gradient == set(), f"listed ops without a gradient: {sorted(listed - with_gradient)}"
    # An op compared with TensorFlow's kernel must say whether it is differentiable.
    undecided = {op for op, kind in registry.items() if kind == "missing"} & set(SPECS) - set(NO_GRADIENT_IN_EITHER)
    assert not undecided, f"ops with neither a gradient nor RegisterNoGradient: {sorted(undecided)}"
    none = sorted(op for op, kind in registry.items() if kind == "none")
    print(f"\n{len(GRAD_SPECS)} of {len(with_gradient)} ops with a gradient compared with TensorFlow's; "
          f"{len(GRAD_EXCLUDED)} excluded with a reason; {len(none)} not differentiable")


def no_gradient_cases(rng, registry):
    """Ops registered as not differentiable with a float input: their forward cases (first two)."""
    cases = []
    for op in sorted(op for op, kind in registry.items() if kind == "none" and op in SPECS):
        make, _ = SPECS[op]
        with_floats = [(inputs, attrs) for inputs, attrs in make(rng)
                       if any(np.issubdtype(x.dtype, np.floating) for x in inputs)]
        for inputs, attrs in with_floats[:2]:
            xs = [i for i, x in enumerate(inputs) if np.issubdtype(x.dtype, np.floating)]
            cases.append((op, inputs, attrs, xs, None, None))
    return cases


def _our_gradients(op, inputs, attrs, xs, dys):
    g = tf.Graph()
    with g.as_default():
        consts = [tf.constant(x) for x in inputs]
        node = g.create_op(op, consts, our_attrs(attrs))
        ys = [(y, tf.constant(dy)) for y, dy in zip(node.outputs, dys) if dy is not None]
        if not ys:  # no float output (comparisons): nothing to differentiate
            return [None] * len(xs)
        grads = tf.gradients([y for y, _ in ys], [consts[p] for p in xs], grad_ys=[dy for _, dy in ys])
        # A gather's gradient is IndexedSlices (as TensorFlow's): compared as the dense tensor it stands for.
        grads = [None if x is None else tf.convert_to_tensor(x) for x in grads]
        with tf.Session(graph=g) as sess:
            got = sess.run([x for x in grads if x is not None])
    got = iter(got)
    return [None if x is None else np.asarray(next(got)) for x in grads]


def test_gradients_match_tensorflow(tmp_path):
    python = require_tensorflow("test_gradients_match_tensorflow")
    rng = np.random.default_rng(25)
    registry = gradient_registry()
    plan = []  # (op, inputs, attrs, xs, outputs given a dy, bound); bound None: not differentiable
    dy_rngs = {}  # ops whose cases come from their own generator (own_rng) draw their dys from it too
    for op in sorted(GRAD_SPECS):
        make, bound = GRAD_SPECS[op]
        if hasattr(make, "own_seed"):
            dy_rngs[op] = np.random.default_rng(make.own_seed + 1000)
        for case in make(rng):
            inputs, attrs, xs = case[:3]
            plan.append((op, inputs, attrs, xs, case[3] if len(case) > 3 else None, bound))
    plan += no_gradient_cases(rng, registry)
    arrays, cases, meta = {}, [], []
    for op, inputs, attrs, xs, with_dy, bound in plan:
        outputs = run_ours(op, inputs, attrs)
        dy_rng = getattr(GRAD_SPECS[op][0], "dy_rng", rng) if bound is not None else rng
        dys = []
        dy_rng = dy_rngs.get(op, rng)
        for j, y in enumerate(outputs):
            wanted = with_dy[j] if with_dy else np.issubdtype(y.dtype, np.floating)
            dys.append(smooth(dy_rng, y.dtype.type, y.shape) if wanted and np.issubdtype(y.dtype, np.floating)
                       else None)
        keys = []
        for x in inputs:
            keys.append(f"a{len(arrays)}")
            arrays[keys[-1]] = x
        dy_keys = []
        for dy in dys:
            dy_keys.append(None if dy is None else f"a{len(arrays)}")
            if dy is not None:
                arrays[dy_keys[-1]] = dy
        cases.append({"op": op, "inputs": keys, "attrs": attrs, "list_sizes": list_sizes(op, inputs),
                      "grads": {"xs": xs, "dys": dy_keys}})
        meta.append((op, inputs, attrs, xs, dys, bound))
    theirs = run_tf_cases(python, "raw_ops.py", tmp_path, arrays, cases)
    failures, compared = [], 0
    for i, (op, inputs, attrs, xs, dys, bound) in enumerate(meta):
        what = f"{op} {[x.dtype.name + str(list(x.shape)) for x in inputs]} {attrs} d/d inputs {xs}"
        if bound is None and op in NO_GRADIENT_IN_TF:
            error = str(theirs[f"c{i}_error"]) if f"c{i}_error" in theirs.files else ""
            if "No gradient defined" not in error:
                failures.append(f"{what}: TensorFlow now has a gradient (or another error: {error!r})")
            if any(x is not None for x in _our_gradients(op, inputs, attrs, xs, dys)):
                failures.append(f"{what}: ours has a gradient")
            continue
        if f"c{i}_error" in theirs.files:
            failures.append(f"{what}: TensorFlow failed: {theirs[f'c{i}_error']}")
            continue
        try:
            ours = _our_gradients(op, inputs, attrs, xs, dys)
        except tf.errors.OpError as e:
            failures.append(f"{what}: tensorweave failed: {e.message}")
            continue
        for k, value in enumerate(ours):
            expected = theirs[f"c{i}_g{k}"] if f"c{i}_g{k}" in theirs.files else None
            if bound is None:  # not differentiable: TensorFlow's is None or zeros
                if value is not None or (expected is not None and np.any(expected != 0)):
                    failures.append(f"{what} input {xs[k]}: ours {value}, TensorFlow's {expected}")
                continue
            if value is None or expected is None:
                failures.append(f"{what} input {xs[k]}: ours {'None' if value is None else 'a gradient'}, "
                                f"TensorFlow's {'None' if expected is None else 'a gradient'}")
                continue
            compared += 1
            if value.shape != expected.shape or value.dtype != expected.dtype:
                failures.append(f"{what} input {xs[k]}: {value.dtype}{value.shape} vs TensorFlow's "
                                f"{expected.dtype}{expected.shape}")
                continue
            if (op, xs[k]) in GRAD_DEVIATIONS:
                expected = GRAD_DEVIATIONS[(op, xs[k])][1](expected, dys)
            eps = np.finfo(expected.dtype).eps
            scale = float(np.abs(expected).max()) if expected.size else 0.0
            try:
                np.testing.assert_allclose(value, expected, rtol=max(bound, 1) * eps,
                                           atol=max(bound, 1) * eps * scale)
            except AssertionError as e:
                failures.append(f"{what} input {xs[k]}: {str(e).strip()}")
    print(f"\n{compared} gradients of {len(GRAD_SPECS)} ops compared with TensorFlow's, "
          f"{sum(m[5] is None for m in meta)} cases of non-differentiable ops checked")
    assert not failures, f"{len(failures)} mismatches:\n" + "\n".join(failures)
