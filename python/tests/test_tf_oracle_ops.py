"""The differential op test: every op of our registry is run against TensorFlow's kernel of
the same name (tf.raw_ops in a subprocess with the pinned TensorFlow) on random inputs with
edge values (+-0, +-inf, NaN, denormals, int min/max, empty and broadcast shapes), or is
listed below with the reason it is not. Integer and bool results must be equal; floats within
the bound stated per op. A registered op in neither list fails the test, so a new op is
covered the day it lands (or says why not)."""
import os
import subprocess

import numpy as np

import tensorweave as tf
from tf_peer import BUILD_DIR, require_tensorflow, run_tf_cases

F32, F64, I32, I64, BOOL = np.float32, np.float64, np.int32, np.int64, np.bool_
FLOATS, INTS = (F32, F64), (I32, I64)
NUMERIC = FLOATS + INTS

# Ops not compared with TensorFlow's kernel, and why.
EXCLUDED = {
    **{op: "collective across tasks: test_collective_ops.py checks it on 2-4 server processes against NumPy"
       for op in ("CollectiveReduce", "CollectiveBcastSend", "CollectiveBcastRecv")},
    **{op: "compared with TensorFlow's kernels, gradients included, in test_block_lstm.py (TF leaves the steps "
           "from seq_len_max on uninitialized, so random-input comparison would read stale memory)"
       for op in ("BlockLSTM", "BlockLSTMGrad")},
    **{op: "dataflow control flow (dead tensors need a graph): test_control_flow_cond.py runs TensorFlow's cond GraphDefs"
       for op in ("Switch", "Merge")},
    **{op: "dataflow loop (frames need a graph): test_control_flow_while.py runs TensorFlow's while_loop GraphDefs"
       for op in ("Enter", "Exit", "NextIteration", "LoopCond")},
    **{op: "stateful stack resource: test_control_flow_while.py::test_stacks_in_loops_match_tensorflow runs the "
           "same push/pop loops in TensorFlow" for op in ("StackV2", "StackPushV2", "StackPopV2", "StackCloseV2")},
    **{op: "stateful TensorArray resource: test_tensor_array.py runs the same TensorArray programs (values, "
           "gradients, errors) in TensorFlow" for op in (
               "TensorArrayV3", "TensorArrayGradV3", "TensorArrayWriteV3", "TensorArrayReadV3", "TensorArrayGatherV3",
               "TensorArrayScatterV3", "TensorArrayConcatV3", "TensorArraySplitV3", "TensorArraySizeV3",
               "TensorArrayCloseV3")},
    **{op: "tf.data: compared with TensorFlow through whole pipelines (every element, the end, errors) in "
           "test_data_pipelines.py" for op in (
               "TensorDataset", "TensorSliceDataset", "RangeDataset", "TFRecordDataset", "TextLineDataset",
               "FixedLengthRecordDatasetV2", "ZipDataset", "ConcatenateDataset", "RepeatDataset", "TakeDataset",
               "SkipDataset", "ShardDataset", "BatchDatasetV2", "PaddedBatchDatasetV2", "ShuffleDataset",
               "CacheDataset", "PrefetchDataset", "MapDataset", "ParallelMapDatasetV2", "FilterDataset",
               "FlatMapDataset", "InterleaveDataset", "ParallelInterleaveDatasetV2", "IteratorV2", "OneShotIterator",
               "MakeIterator", "IteratorGetNext", "IteratorGetNextSync")},
    **{op: "tf.data iterator state: compared with TensorFlow through Saver checkpoints of whole pipelines "
           "(elements around the checkpoint, the key, errors) in test_iterator_checkpoint.py"
       for op in ("SerializeIterator", "DeserializeIterator")},
    "VariableShape": "stateful resource op: test_control_flow_cond.py runs TensorFlow's cond training graph, which uses it",
    **{op: "internal: only the partitioner and the session create it" for op in ("_Arg", "_Retval", "_Send", "_Recv")},
    **{op: "random: TensorFlow's generator is not ours (shapes and statistics are tested in random_kernels_test)"
       for op in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt")},
    **{op: "random: compared with TensorFlow bit for bit (several seeds, shapes, dtypes, TensorFlow's GraphDef, "
           "error texts) in test_stateless_random.py"
       for op in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
                  "StatelessRandomUniformInt", "StatelessRandomUniformFullInt")},
    **{op: "random: compared with TensorFlow's statistically (frequencies, expected counts, errors) in "
           "test_candidate_sampling.py" for op in ("LogUniformCandidateSampler", "UniformCandidateSampler")},
    **{op: "stateful resource op: compared through whole programs in test_tf_oracle_stateful.py instead"
       for op in ("VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                  "VarIsInitializedOp", "DestroyResourceOp", "ResourceApplyGradientDescent", "ResourceApplyMomentum",
                  "ResourceApplyAdagrad", "ResourceApplyAdam", "ResourceApplyRMSProp", "FIFOQueueV2", "QueueEnqueueV2",
                  "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2", "QueueCloseV2", "QueueSizeV2",
                  "ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient",
                  "ResourceAccumulatorNumAccumulated", "ResourceAccumulatorSetGlobalStep",
                  "ResourceAccumulatorTakeGradient", "ResourceSparseApplyProximalGradientDescent",
                  "ResourceSparseApplyMomentum", "ResourceSparseApplyAdagrad", "ResourceSparseApplyRMSProp", "ResourceGather")},
    **{op: "stateful: compared with TensorFlow's accumulators (values, shapes, staleness, errors) in "
           "test_accumulators.py"
       for op in ("SparseConditionalAccumulator", "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient")},
    **{op: "not a TensorFlow op (tensorweave's checkpoint ops; TF's V2 files are tested both ways instead)"
       for op in ("SaveTensors", "RestoreTensors")},
    **{op: "no data to compare (graph plumbing)" for op in ("NoOp", "Const", "Placeholder")},
    **{op: "complex values: compared with TensorFlow (both complex dtypes, broadcasting, gradients, a GraphDef "
           "TensorFlow wrote) in test_complex.py (tf_side/complex_cases.py)"
       for op in ("Complex", "Real", "Imag", "Angle", "ComplexAbs", "Conj")},
    **{op: "complex values: compared with TensorFlow (ranks 1-3, both dtypes, cropped and padded fft_length, "
           "gradients) in test_fft.py (tf_side/fft_cases.py)"
       for op in ("FFT", "IFFT", "FFT2D", "IFFT2D", "FFT3D", "IFFT3D", "RFFT", "IRFFT", "RFFT2D", "IRFFT2D",
                  "RFFT3D", "IRFFT3D")},
    **{op: "compared with TensorFlow, gradients included, in test_conv2d.py"
       for op in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")},
    **{op: "compared with TensorFlow in test_pooling.py (values, gradients and the gradients' gradients)"
       for op in ("MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad", "MaxPoolGradGrad")},
    **{op: "compared with TensorFlow on strings and masks in test_strings.py (tf_side/string_cases.py)"
       for op in ("StringJoin", "Where")},
    **{op: "stateful queue op: step by step against TensorFlow (values, errors, messages) in test_input_queues.py "
           "(tf_side/queue_cases.py)"
       for op in ("RandomShuffleQueueV2", "QueueDequeueUpToV2", "ResourceCountUpTo")},
    **{op: "reader op: keys, values, counters and errors compared with TensorFlow on the same files in "
           "test_readers.py (tf_side/reader_cases.py)"
       for op in ("TFRecordReaderV2", "TextLineReaderV2", "FixedLengthRecordReaderV2", "WholeFileReaderV2",
                  "ReaderReadV2", "ReaderReadUpToV2", "ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompletedV2",
                  "ReaderResetV2")},
    **{op: "string op: values, dtypes and error messages compared with TensorFlow in test_string_ops.py "
           "(tf_side/string_op_cases.py)"
       for op in ("AsString", "StringToNumber", "DecodeRaw", "StringLength", "StringStrip", "StringLower",
                  "StringUpper", "Substr", "RegexReplace", "StaticRegexReplace", "StringSplit", "StringSplitV2")},
    **{op: "compared with TensorFlow field by field (histogram buckets, decoded PNG pixels) in test_summary_ops.py"
       for op in ("ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummaryV2", "MergeSummary",
                  "TensorSummaryV2")},
    **{op: "TF1 reference-variable op, lowered to resource ops on import: TensorFlow's own graphs of it are run "
           "against TensorFlow's values in test_tf_ref_graphs.py"
       for op in ("VariableV2", "Variable", "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized",
                  "ApplyGradientDescent", "ApplyMomentum", "ApplyAdagrad", "ApplyRMSProp", "ApplyAdam",
                  "ApplyCenteredRMSProp", "ResourceApplyCenteredRMSProp",
                  "ScatterUpdate", "ScatterAdd", "ScatterSub", "ResourceScatterUpdate", "ResourceScatterAdd",
                  "ResourceScatterSub")},
    **{op: "TF1 reference-variable op (or what it lowers to): TensorFlow's graphs of it run against TensorFlow's "
           "values in test_ref_scatter_ops.py"
       for op in ("ScatterMul", "ScatterDiv", "ScatterMin", "ScatterMax", "ResourceScatterMul", "ResourceScatterDiv",
                  "ResourceScatterMin", "ResourceScatterMax", "SparseApplyProximalGradientDescent",
                  "SparseApplyMomentum", "SparseApplyAdagrad", "SparseApplyRMSProp")},
    **{op: "TensorFlow's saver op: its saver graphs and checkpoints, and these ops on TensorFlow's cases, are "
           "compared in test_tf_ref_graphs.py"
       for op in ("SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename", "ShardedFilespec",
                  "StaticRegexFullMatch")},
    **{op: "compared with TensorFlow on random tf.train.Examples and bad inputs in test_parse_example_oracle.py"
       for op in ("ParseExample", "ParseExampleV2", "ParseSingleExample")},
    "Print": "writes to stderr: its lines and values are compared with TensorFlow's in test_check_ops.py",
    **{op: "tf.print / tf.strings.format's ops (string out, or written to a stream): their text for every dtype, "
           "rank, summarize and stream is compared with TensorFlow's in test_print_v2.py"
       for op in ("StringFormat", "PrintV2")},
    "Assert": "no output: its failures (message text, summarized data) are compared with TensorFlow's in "
              "test_check_ops.py",
    "RandomShuffle": "random: TensorFlow's generator is not ours (permutation, seeds, uniformity and shapes are "
                     "tested in test_random_shuffle.py)",
    **{op: "random: TensorFlow's generator is not ours (shapes, dtypes, seeds and moments on large samples are "
           "tested in test_random_gamma_poisson.py)" for op in ("RandomGamma", "RandomPoissonV2")},
    **{op: "calls a Python function: values, dtypes and TensorFlow's error texts compared on shared cases in "
           "test_py_func.py" for op in ("PyFunc", "PyFuncStateless", "EagerPyFunc")},
    "Multinomial": "random: TensorFlow's generator is not ours (frequencies by chi-square, seeds, shapes and "
                   "TensorFlow's error texts are tested in test_multinomial.py)",
    "SparseToDense": "compared with TensorFlow (values, dtypes and errors) in test_parse_example_sparse.py",
    **{op: "TF1 reference-variable op, lowered on import: TensorFlow's accumulate_n-style graph of it runs against "
           "TensorFlow's values in test_temporary_variable.py"
       for op in ("TemporaryVariable", "DestroyTemporaryVariable")},
    "PaddingFIFOQueueV2": "stateful queue op: padded batches, dequeue_up_to, errors and tf.train.batch(dynamic_pad) "
                          "compared with TensorFlow in test_padding_fifo_queue.py",
    "DecodeCSV": "compared with TensorFlow on CSV records (quoting, select_cols, na_value, bad records' error texts) "
                 "in test_decode_csv.py",
    **{op: "factors' signs are each library's choice: compared with TensorFlow in sign-invariant form (values, "
           "reconstructions, gradients, static shapes, errors) in test_linalg_factor.py"
       for op in ("Qr", "Svd", "SelfAdjointEigV2")},
    "Einsum": "an equation attr, not random data: 22 float equations (values, gradients, shapes, errors) and 5 "
              "integer ones compared with TensorFlow in test_einsum.py",
    **{op: "compared with TensorFlow in test_batch_norm.py (every output, training and inference, NHWC and NCHW; "
           "random edge values would only compare NaN statistics)"
       for op in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3", "FusedBatchNormGrad",
                  "FusedBatchNormGradV2", "FusedBatchNormGradV3")},
}



# Documented deviation: denormal inputs. Both systems run kernels with denormals flushed
# (FTZ/DAZ), but TensorFlow's SIMD kernels flush a denormal input on the way through (Log of
# one is -inf, Maximum of two is 0), while ours that select rather than compute return it as
# it is (Maximum, Relu, Sign) or see it whole (Log: about -104 in float32). Elements with a
# denormal input are left out of the comparison; everything else must match.
def _denormal_positions(inputs, shape):
    mask = np.zeros(shape, bool)
    for x in inputs:
        if np.issubdtype(x.dtype, np.floating) and x.size and x.shape == shape:
            mask |= (x != 0) & (np.abs(x) < np.finfo(x.dtype).tiny)
    return mask


# Ops whose float results are sums of many products: compared within `ulps` of the largest
# result's magnitude (a result near 0 from cancelling terms has no relative precision).
CONTRACTIONS = {"DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                "DepthwiseConv2dNativeBackpropFilter",
                "MatMul", "BatchMatMul", "BatchMatMulV2", "BiasAddGrad", "MatrixInverse", "MatrixSolve",
                "MatrixTriangularSolve", "Cholesky", "MatrixDeterminant", "LogMatrixDeterminant", "MatrixSquareRoot",
                # Sums of up to four reflected elements, folded in another order than TensorFlow's.
                "MirrorPadGrad", "Sum", "Mean", "Prod", "AddN",
                "UnsortedSegmentSum", "Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits"}


# Documented deviation: which zero Maximum/Minimum return for a tie of +0 and -0 follows
# TensorFlow's SIMD instruction (it differs between its float32, float64 and broadcast
# paths); values are compared exactly, the sign of those zeros is not.
ZERO_SIGN_FREE = {"Maximum", "Minimum", "Max", "Min"}
# The max/min reductions meet the same two deviations inside the reduced axis, where no input
# position lines up with the output: a denormal result is compared as the zero TensorFlow
# flushed it to.
FLUSHED_RESULTS = {"Max", "Min"}


# An attr that marks a case as inputs both systems must refuse (InvalidArgument here, any
# error in TensorFlow); taken out before the op is built.
REFUSED = "_refused"
# Marks a documented deviation (RELIABILITY.md): inputs TensorFlow refuses and we accept;
# ours must run and TensorFlow's must fail.
ONLY_OURS = "_only_ours"

def edge_floats(dtype):
    info = np.finfo(dtype)
    return [0.0, -0.0, np.inf, -np.inf, np.nan, info.tiny / 4, -info.tiny / 2, 1.5, -2.25, info.max / 4]


def values(rng, dtype, shape, kind="any"):
    """Random values with the dtype's edge values at the front (kind: any, positive, nonzero, small)."""
    n = int(np.prod(shape))
    if dtype == BOOL:
        return rng.random(n).reshape(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        if kind == "small":
            flat = rng.integers(0, 4, n)
        else:
            flat = rng.integers(-50, 50, n)
            edges = [info.min, info.max, 0, -1, 1] if kind == "any" else [7, -7, 3]
            if kind == "positive":
                edges, flat = [1, 3, 9], np.abs(flat) + 1
            if kind == "nonzero":
                flat[flat == 0] = 5
            flat[:min(n, len(edges))] = edges[:n]
        return flat.astype(dtype).reshape(shape)
    flat = rng.normal(size=n) * 3
    if kind == "positive":
        flat = np.abs(flat) + 0.1
    elif kind == "small":
        flat = rng.uniform(-1.5, 1.5, n)
    elif kind == "any":
        edges = edge_floats(dtype)
        flat[:min(n, len(edges))] = edges[:n]
    return flat.astype(dtype).reshape(shape)


def own_rng(make, seed):
    """`make`'s cases drawn from a generator of their own: ops added later leave the shared
    stream, and so every other op's cases, as they were."""
    def cases(rng):  # noqa: ARG001 - the shared generator is left alone
        return make(np.random.default_rng(seed))
    cases.own_seed = seed  # the gradient test draws these cases' dys from it too
    return cases


def unary(dtypes, kind="any", shapes=((3, 4), (0,), ())):
    def make(rng):
        return [([values(rng, d, s, kind)], {}) for d in dtypes for s in shapes]
    return make


def binary(dtypes, x_kind="any", y_kind="any"):
    def make(rng):
        cases = []
        for d in dtypes:
            for xs, ys in (((3, 4), (3, 4)), ((3, 1), (4,)), ((2, 0), (1,)), ((), (5,))):
                cases.append(([values(rng, d, xs, x_kind), values(rng, d, ys, y_kind)], {}))
        return cases
    return make


def with_attrs(make, attrs_list):
    def wrapped(rng):
        return [(inputs, attrs) for inputs, _ in make(rng) for attrs in attrs_list]
    return wrapped


def own_rng(make, seed=2424):
    """The cases of `make` drawn from a generator of their own, so that the shared one's draws
    for the ops sorted after them stay as they were."""
    return lambda _: make(np.random.default_rng(seed))


def plus_cases(*makers):
    return lambda rng: [case for make in makers for case in make(rng)]


def halves(rng):
    """x.5 both signs (Round and Rint go to the even neighbour), integers and their neighbours."""
    return [([np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.0, -3.0, 2.4999, -7.5000001, 1e20, 8388609.0], d)], {})
            for d in FLOATS]


def special_points(rng):
    return [([np.array([0.0, -0.0, -1.0, -2.0, -2.5, -0.5, 0.5, 1.0, 2.0, 3.5, 1e-30, 100.0, 1e10, -1e10], d)], {})
            for d in FLOATS]


def integer_zero_divisor(rng):
    return [([values(rng, d, (3,)), np.array([1, 0, 2], d)], {REFUSED: True}) for d in INTS]


def zero_divisor(rng):
    return [([np.array([1.5, 0.0, -2.0, np.nan, np.inf, 0.0], d), np.array([0.0, 0.0, -0.0, 0.0, 0.0, np.nan], d)], {})
            for d in FLOATS]


def shift_counts(rng):
    """Counts below 0 and at or above the width: TensorFlow clamps them to [0, bits - 1]."""
    return [([values(rng, d, (6,)), np.array([-1, -100, 31, 32, 63, 64], d)], {}) for d in INTS]


def cases_of(fn):
    return fn


def reduction(dtypes):
    def make(rng):
        cases = []
        for d in dtypes:
            x = values(rng, d, (3, 4, 2), "small" if d in INTS else "any")
            for axis in ([1], [0, 2], [-1], []):
                for keep in (False, True):
                    cases.append(([x, np.array(axis, I32)], {"keep_dims": keep}))
        return cases
    return make


def arg_reduction(rng):
    cases = []
    for d in NUMERIC:
        x = values(rng, d, (3, 5), "nonzero")
        for axis in (0, 1, -1):
            cases.append(([x, np.array(axis, I32)], {"output_type": "int64"}))
    return cases


def matmul(rng):
    cases = []
    for d in NUMERIC:
        a, b = values(rng, d, (3, 4), "small"), values(rng, d, (4, 5), "small")
        cases.append(([a, b], {}))
        cases.append(([a.T.copy(), b], {"transpose_a": True}))
        cases.append(([a, b.T.copy()], {"transpose_b": True}))
        cases.append(([values(rng, d, (0, 4)), b], {}))
    return cases


def batch_matmul(rng):
    return [([values(rng, d, (2, 1, 3, 4), "small"), values(rng, d, (3, 4, 2), "small")], {})
            for d in NUMERIC] + [([values(rng, F32, (2, 4, 3)), values(rng, F32, (2, 4, 5))], {"adj_x": True})]


def softmax_like(rng):
    return [([values(rng, d, s, "small")], {}) for d in FLOATS for s in ((4, 6), (1, 1), (0, 3))]


def xent(rng):
    cases = []
    for d in FLOATS:
        labels = rng.random((5, 4)).astype(d)
        labels /= labels.sum(axis=1, keepdims=True)
        cases.append(([values(rng, d, (5, 4), "small"), labels], {}))
    return cases


def strided_slice(rng):
    # x[1:3, ::2], x[::-1, -1:0:-2], x[..., 1], x[1, newaxis, :, ::-1], out-of-range ends clamped.
    slices = (([1, 0, 0], [3, 0, 0], [1, 2, 1], {"end_mask": 6}),
              ([0, -1], [0, 0], [-1, -2], {"begin_mask": 1, "end_mask": 1}),
              ([0, 1], [0, 2], [1, 1], {"ellipsis_mask": 1, "shrink_axis_mask": 2}),
              ([1, 0, 0, 0], [2, 0, 0, 0], [1, 1, 1, -1], {"shrink_axis_mask": 1, "new_axis_mask": 2, "end_mask": 12,
                                                           "begin_mask": 12}),
              ([-9, 2], [9, 100], [1, 1], {}),
              ([3, 0], [1, 5], [1, 1], {}))
    cases = []
    for d in NUMERIC + (BOOL,):
        x = values(rng, d, (4, 5, 3))
        for begin, end, strides, masks in slices:
            t = I64 if len(cases) % 2 else I32
            cases.append(([x, np.array(begin, t), np.array(end, t), np.array(strides, t)], masks))
    return cases


def strided_slice_grad(rng):
    # The gradient of x[1:3, ::2] and of x[::-1, -1:0:-2] for x of shape (4, 5, 3).
    slices = (([1, 0, 0], [3, 0, 0], [1, 2, 1], {"end_mask": 6}, (2, 3, 3)),
              ([0, -1], [0, 0], [-1, -2], {"begin_mask": 1, "end_mask": 1}, (4, 2, 3)),
              ([1, 0, 0, 0], [2, 0, 0, 0], [1, 1, 1, -1], {"shrink_axis_mask": 1, "new_axis_mask": 2, "end_mask": 12,
                                                           "begin_mask": 12}, (1, 5, 3)))
    return [([np.array([4, 5, 3], t), np.array(b, t), np.array(e, t), np.array(s, t), values(rng, d, dy)], masks)
            for d in NUMERIC for t in INTS for b, e, s, masks, dy in slices]


def one_hot(rng):
    cases = []
    for ti in INTS:
        indices = np.array([[0, 3, -1], [2, 7, 1]], ti)
        for d in NUMERIC + (BOOL,):
            on, off = (np.array(True), np.array(False)) if d == BOOL else (np.array(5, d), np.array(-2, d))
            for axis in (-1, 0, 1):
                cases.append(([indices, np.array(4, I32), on, off], {"axis": axis}))
    cases.append(([np.zeros((0,), I64), np.array(3, I32), np.array(1.0, F32), np.array(0.0, F32)], {}))
    return cases


def top_k_cases(rng):
    """No NaN (its rank is unspecified); ties (small ints, repeated floats) rank the lower index first."""
    cases = []
    for d in NUMERIC:
        x = values(rng, d, (3, 5), "nonzero")
        ties = np.array([[2, 1, 2, 3, 1], [0, 0, 0, 0, 0], [5, -1, 5, -1, 5]], d)
        for inp in (x, ties):
            for k in (0, 1, 2, 5):
                cases.append(([inp, np.array(k, I32)], {}))
        cases.append(([x[0], np.array(3, I64)], {"index_type": "int64"}))
        cases.append(([values(rng, d, (2, 2, 4), "nonzero"), np.array(4, I32)], {}))
        cases.append(([values(rng, d, (0, 3)), np.array(2, I32)], {}))
        for k in (6, -1):
            cases.append(([x, np.array(k, I32)], {REFUSED: True}))
        cases.append(([values(rng, d, ()), np.array(0, I32)], {REFUSED: True}))
    return cases


def scan_cases(_, kind):
    """Every axis (negative too), each exclusive/reverse combination, int64 axes, empty and bad axes.
    Own generator: the shared one's later draws stay as they were for the ops after these."""
    rng = np.random.default_rng(24 if kind == "any" else 25)
    cases = []
    for d in NUMERIC:
        x = values(rng, d, (3, 4, 2), "small" if d in INTS else kind)
        if d in FLOATS:  # TensorFlow flushes denormals on the way, and a running sum carries them on
            x[np.abs(x) < np.finfo(d).tiny] = 0
        for axis in (0, 1, 2, -1):
            for exclusive in (False, True):
                for reverse in (False, True):
                    cases.append(([x, np.array(axis, I32)], {"exclusive": exclusive, "reverse": reverse}))
        cases.append(([values(rng, d, (5,), "nonzero"), np.array(0, I64)], {}))
        cases.append(([values(rng, d, (0, 3)), np.array(1, I32)], {}))
        for axis in (3, -4):
            cases.append(([x, np.array(axis, I32)], {REFUSED: True}))
        cases.append(([x, np.array([0], I32)], {REFUSED: True}))
    return cases


def depthwise_cases(_, op):
    """Strides, SAME / VALID, channel multipliers 1, 2 and 3; a channel count or a rank the filter
    does not fit is refused by both. Unequal row and column strides: TensorFlow's float32 kernels
    run them, its float64 kernels refuse them; ours run both (a documented deviation). Own generator (the
    shared one's later draws stay as they were). Not here: dilations, which TensorFlow's CPU
    kernels refuse (test_depthwise_conv.py compares them through tf.nn.depthwise_conv2d's rate),
    and an empty batch, where TensorFlow's kernels return a wrong shape or uninitialized memory."""
    rng = np.random.default_rng(31)
    cases = []
    for d in FLOATS:
        for xs, ws, strides, padding in (((2, 5, 6, 3), (3, 3, 3, 1), [1, 1, 1, 1], "SAME"),
                                         ((1, 7, 5, 2), (2, 3, 2, 3), [1, 2, 2, 1], "VALID"),
                                         ((1, 6, 7, 4), (3, 2, 4, 2), [1, 2, 2, 1], "SAME")):
            x, w = values(rng, d, xs, "small"), values(rng, d, ws, "small")
            attrs = {"strides": strides, "padding": padding}
            ys = (xs[0], -(-xs[1] // strides[1]) if padding == "SAME" else (xs[1] - ws[0]) // strides[1] + 1,
                  -(-xs[2] // strides[2]) if padding == "SAME" else (xs[2] - ws[1]) // strides[2] + 1, xs[3] * ws[3])
            dy = values(rng, d, ys, "small")
            if op == "DepthwiseConv2dNative":
                cases.append(([x, w], attrs))
            elif op == "DepthwiseConv2dNativeBackpropInput":
                cases.append(([np.array(xs, I32), w, dy], attrs))
            else:
                cases.append(([x, np.array(ws, I32), dy], attrs))
        bad_w = values(rng, d, (2, 2, 2, 1), "small")  # 2 channels for a 3-channel input
        x = values(rng, d, (1, 4, 4, 3), "small")
        unequal = {"strides": [1, 2, 1, 1], "padding": "VALID", **({ONLY_OURS: True} if d == F64 else {})}
        w, dy = values(rng, d, (2, 2, 3, 1), "small"), values(rng, d, (1, 2, 3, 3), "small")
        cases.append({"DepthwiseConv2dNative": ([x, w], unequal),
                      "DepthwiseConv2dNativeBackpropInput": ([np.array([1, 4, 4, 3], I32), w, dy], unequal),
                      "DepthwiseConv2dNativeBackpropFilter": ([x, np.array([2, 2, 3, 1], I32), dy], unequal)}[op])
        if op == "DepthwiseConv2dNative":
            cases.append(([x, bad_w], {"strides": [1, 1, 1, 1], "padding": "VALID", REFUSED: True}))
            cases.append(([x[0], values(rng, d, (2, 2, 3, 1))], {"strides": [1, 1, 1, 1], "padding": "VALID",
                                                                 REFUSED: True}))
        elif op == "DepthwiseConv2dNativeBackpropInput":
            cases.append(([np.array([1, 4, 4, 3], I32), bad_w, values(rng, d, (1, 3, 3, 2))],
                          {"strides": [1, 1, 1, 1], "padding": "VALID", REFUSED: True}))
        else:
            cases.append(([x, np.array([2, 2, 2, 1], I32), values(rng, d, (1, 3, 3, 2))],
                          {"strides": [1, 1, 1, 1], "padding": "VALID", REFUSED: True}))
    return cases


def in_top_k_cases(rng, v2):
    """Ties count as in; an out-of-range target, or any non-finite prediction in the row, is out."""
    pred = np.array([[0.1, 0.5, 0.5, 0.2], [1, 2, 3, 4], [np.nan, 1, 2, 3], [0, np.inf, 1, 1],
                     [3, 3, 3, 3]], F32)
    cases = []
    for t in INTS:
        targets = np.array([2, 0, 0, 1, -1], t)
        for k in (0, 1, 2, 4, 5):
            if v2:
                cases.append(([pred, targets, np.array(k, t)], {}))
            else:
                cases.append(([pred, targets], {"k": k}))
        targets = np.array([3, 4, 1, 2, 0], t)
        cases.append(([pred, targets, np.array(2, t)] if v2 else [pred, targets], {} if v2 else {"k": 2}))
        bad = np.array([0, 1], t)
        cases.append(([pred, bad, np.array(1, t)] if v2 else [pred, bad], {REFUSED: True} if v2 else
                      {"k": 1, REFUSED: True}))
    return cases


SPECS = {
    # (input maker, float tolerance in units of the dtype's epsilon, relative)
    **{op: (unary(NUMERIC), 0) for op in ("Abs", "Neg", "Sign", "Square", "Identity", "ZerosLike", "OnesLike",
                                          "Shape", "Size", "Rank")},
    "Relu": (unary(NUMERIC), 0),
    **{op: (unary(FLOATS), 4) for op in ("Sqrt", "Rsqrt", "Exp", "Log", "Tanh", "Reciprocal")},
    # Regression: our float32 Sigmoid was Eigen 3.4's rational fit, 8 ulps off at -3.6486068.
    "Sigmoid": (lambda rng: unary(FLOATS)(rng) + [([np.array([-2.25, -3.648606777191162, 5.17488431930542, -9.5,
                                                              20.0, -90.0, 0.1], F32)], {})], 4),
    **{op: (binary(NUMERIC), 0) for op in ("Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum")},
    "Div": (binary(NUMERIC, y_kind="nonzero"), 1),
    "FloorDiv": (binary(NUMERIC, y_kind="nonzero"), 1),
    "FloorMod": (binary(NUMERIC, y_kind="nonzero"), 1),
    "RealDiv": (binary(FLOATS), 1),
    "SquaredDifference": (binary(FLOATS), 1),
    "Pow": (lambda rng: binary(FLOATS, "positive", "small")(rng) + binary(INTS, "small", "small")(rng), 4),
    **{op: (binary(NUMERIC), 0) for op in ("Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual")},
    **{op: (binary((BOOL,)), 0) for op in ("LogicalAnd", "LogicalOr")},
    "LogicalNot": (unary((BOOL,)), 0),
    # 1 - y*y cancels near |y| = 1, where TensorFlow's Eigen expression (fused multiply-add or
    # not) rounds differently by a few units.
    **{op: (lambda rng: [([values(rng, d, (3, 4), "small"), values(rng, d, (3, 4))], {}) for d in FLOATS], 8)
       for op in ("SigmoidGrad", "TanhGrad")},
    "ReluGrad": (lambda rng: [([values(rng, d, (3, 4)), values(rng, d, (3, 4))], {}) for d in NUMERIC], 0),
    "Cast": (lambda rng: [([values(rng, s, (2, 5), "small" if np.issubdtype(s, np.integer) else "any")],
                           {"DstT": np.dtype(t).name}) for s in NUMERIC + (BOOL,) for t in NUMERIC + (BOOL,)
                          if not (np.issubdtype(s, np.floating) and t in INTS)], 0),
    "SelectV2": (lambda rng: [([values(rng, BOOL, (3, 1)), values(rng, d, (3, 4)), values(rng, d, (4,))], {})
                              for d in NUMERIC], 0),
    "AddN": (lambda rng: [([values(rng, d, (2, 3), "small") for _ in range(3)], {}) for d in NUMERIC], 1),
    **{op: (reduction(NUMERIC), 8) for op in ("Sum", "Mean", "Max", "Min", "Prod")},
    **{op: (arg_reduction, 0) for op in ("ArgMax", "ArgMin")},
    "MatMul": (matmul, 8),
    "BatchMatMulV2": (batch_matmul, 8),
    **{op: (softmax_like, 8) for op in ("Softmax", "LogSoftmax")},
    "SoftmaxCrossEntropyWithLogits": (xent, 8),
    # Our sum runs in double, TensorFlow's in T: a few ulps apart.
    "L2Loss": (own_rng(unary(FLOATS, shapes=((3, 4), (0,), (), (50, 7))), 1515), 8),
    "BiasAdd": (lambda rng: [([values(rng, d, (2, 3, 4)), values(rng, d, (4,))], {}) for d in NUMERIC], 0),
    "Reshape": (lambda rng: [([values(rng, d, (2, 6)), np.array(s, I32)], {}) for d in NUMERIC
                             for s in ([3, 4], [-1], [4, -1, 1])], 0),
    "Transpose": (lambda rng: [([values(rng, d, (2, 3, 4)), np.array(p, I32)], {}) for d in NUMERIC + (BOOL,)
                               for p in ([2, 0, 1], [0, 1, 2])], 0),
    "ConcatV2": (lambda rng: [([values(rng, d, (2, 3)), values(rng, d, (2, 1)), np.array(a, I32)], {})
                              for d in NUMERIC for a in (1, -1)], 0),
    "Pack": (lambda rng: [([values(rng, d, (2, 3)), values(rng, d, (2, 3))], {"axis": a}) for d in NUMERIC
                          for a in (0, 2, -1)], 0),
    "Tile": (lambda rng: [([values(rng, d, (2, 3)), np.array([2, 1], I32)], {}) for d in NUMERIC], 0),
    "Slice": (lambda rng: [([values(rng, d, (4, 5)), np.array([1, 2], I32), np.array([2, -1], I32)], {})
                           for d in NUMERIC], 0),
    "Pad": (lambda rng: [([values(rng, d, (2, 3)), np.array([[1, 0], [2, 1]], I32)], {}) for d in NUMERIC], 0),
    "GatherV2": (lambda rng: [([values(rng, d, (4, 3)), np.array([[3, 0], [1, 1]], I64), np.array(a, I32)], {})
                              for d in NUMERIC + (BOOL,) for a in (0,)] +
                             [([values(rng, F32, (2, 5)), np.array([4, 0], I32), np.array(1, I32)], {})] +
                             # batch_dims: per batch row, axis at or after the batch dims, negative batch_dims.
                             [([values(rng, d, (2, 3, 4)), np.array([[2, 0], [1, 1]], I32), np.array(1, I32)],
                               {"batch_dims": 1}) for d in NUMERIC + (BOOL,)] +
                             [([values(rng, F64, (2, 3, 4)), np.array([[3, 0, 3], [1, 2, 0]], I64), np.array(2, I32)],
                               {"batch_dims": 1}),
                              ([values(rng, F32, (2, 3, 4, 2)), np.array([[[3, 0], [1, 1], [2, 2]], [[0, 0], [3, 1],
                                                                                                     [2, 1]]], I32),
                                np.array(2, I32)], {"batch_dims": 2}),
                              ([values(rng, I64, (2, 3, 4)), np.array([[2], [0]], I32), np.array(-1, I32)],
                               {"batch_dims": -1})], 0),
    "UnsortedSegmentSum": (lambda rng: [([values(rng, d, (5, 2), "small"), np.array([1, -1, 0, 1, 3], I32),
                                         np.array(4, I32)], {}) for d in NUMERIC], 1),
    "ExpandDims": (lambda rng: [([values(rng, F32, (2, 3)), np.array(a, I32)], {}) for a in (0, -1, 2)], 0),
    "Squeeze": (lambda rng: [([values(rng, d, (1, 3, 1))], {"squeeze_dims": dims}) for d in NUMERIC
                             for dims in ([], [0], [-1])], 0),
    "Fill": (lambda rng: [([np.array([2, 3], I32), values(rng, d, ())], {}) for d in NUMERIC + (BOOL,)], 0),
    "Range": (lambda rng: [([np.array(a, d), np.array(b, d), np.array(c, d)], {}) for d in NUMERIC
                           for a, b, c in ((0, 10, 3), (5, -1, -2), (2, 2, 1))], 2),
    "BroadcastTo": (lambda rng: [([values(rng, d, (3, 1)), np.array([2, 3, 4], I32)], {}) for d in NUMERIC], 0),
    "StridedSlice": (strided_slice, 0),
    "StridedSliceGrad": (strided_slice_grad, 0),
    "Split": (lambda rng: [([np.array(a, I32), values(rng, d, (4, 6))], {"num_split": n}) for d in NUMERIC + (BOOL,)
                           for a, n in ((1, 3), (-1, 2), (0, 4), (0, 1))], 0),
    "SplitV": (lambda rng: [([values(rng, d, (4, 6)), np.array(s, t), np.array(a, I32)], {"num_split": len(s)})
                            for d in NUMERIC for t in INTS
                            for s, a in (([1, -1, 2], 1), ([4], 0), ([0, 3, 1], -2))], 0),
    "Unpack": (lambda rng: [([values(rng, d, (3, 4))], {"num": (3, 4, 4)[i], "axis": a}) for d in NUMERIC + (BOOL,)
                            for i, a in enumerate((0, 1, -1))] +
                           [([values(rng, F32, (0, 2))], {"num": 2, "axis": 1})], 0),
    "Concat": (lambda rng: [([np.array(a, I32), values(rng, d, (2, 3)), values(rng, d, (2, 1)), values(rng, d, (2, 0))],
                             {}) for d in NUMERIC + (BOOL,) for a in (1, -1)], 0),
    "BiasAddV1": (lambda rng: [([values(rng, d, s), values(rng, d, (4,))], {REFUSED: s == (4,)}) for d in NUMERIC
                               for s in ((2, 3, 4), (4,), (0, 4))], 0),
    "BiasAddGrad": (lambda rng: [([values(rng, d, s, "small")], {"data_format": f}) for d in NUMERIC
                                 for s, f in (((2, 3, 4), "NHWC"), ((5, 4), "NHWC"), ((2, 4, 3, 2), "NCHW"),
                                              ((0, 3), "NHWC"))], 8),
    "BatchMatMul": (lambda rng: [([values(rng, d, (2, 3, 4), "small"), values(rng, d, (2, 4, 5), "small")], {})
                                 for d in NUMERIC] +
                                [([values(rng, d, (2, 4, 3), "small"), values(rng, d, (2, 5, 4), "small")],
                                  {"adj_x": True, "adj_y": True}) for d in FLOATS] +
                                [([values(rng, F64, (0, 2, 3)), values(rng, F64, (0, 3, 1))], {})], 8),
    "Select": (lambda rng: [([values(rng, BOOL, c), values(rng, d, s), values(rng, d, s)], {})
                            for d in NUMERIC + (BOOL,)
                            for c, s in (((3, 4), (3, 4)), ((3,), (3, 4)), ((), ()), ((0,), (0, 2)))], 0),
    "PlaceholderWithDefault": (lambda rng: [([values(rng, d, (3, 4))], attrs) for d in NUMERIC + (BOOL,)
                                            for attrs in ({"shape": [3, 4]}, {"shape": [None, 4]}, {"shape": None},
                                                          {"shape": [2, 4], REFUSED: True},
                                                          # Our `shape` has a default (unknown); TF's has none.
                                                          {ONLY_OURS: True})], 0),
    "BroadcastGradientArgs": (lambda rng: [([np.array(a, d), np.array(b, d)], {}) for d in INTS for a, b in (
        ([2, 3, 1], [3, 4]), ([], [5]), ([2, 1], [2, 1]), ([1], [1]), ([1, 1], []), ([0, 3], [1, 1, 3]))], 0),
    "OneHot": (one_hot, 0),
    # Activations (activation_kernels.cc): values around the kinks 0 and 6 and the edges.
    "Relu6": (lambda rng: unary(NUMERIC)(rng) + [([np.array([-1, 0, 3, 6, 7, 5.5, 6.5], d)], {}) for d in NUMERIC], 0),
    **{op: (unary(FLOATS), 4) for op in ("Elu", "Selu", "Softplus", "Softsign")},
    "LeakyRelu": (with_attrs(unary(FLOATS), [{}, {"alpha": 0.01}, {"alpha": 1.5}]), 0),
    "Relu6Grad": (lambda rng: [([values(rng, d, (3, 4)), values(rng, d, (3, 4)) * 2], {}) for d in NUMERIC], 0),
    **{op: (lambda rng: [([values(rng, d, (3, 4)), values(rng, d, (3, 4))], {}) for d in FLOATS], 2)
       for op in ("EluGrad", "SeluGrad", "SoftplusGrad", "SoftsignGrad")},
    "LeakyReluGrad": (with_attrs(lambda rng: [([values(rng, d, (3, 4)), values(rng, d, (3, 4))], {}) for d in FLOATS],
                                 [{}, {"alpha": 0.3}]), 0),
    "TopKV2": (lambda rng: top_k_cases(rng), 0),
    **{op: (lambda rng, op=op: depthwise_cases(rng, op), 8)
       for op in ("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                  "DepthwiseConv2dNativeBackpropFilter")},
    "InTopK": (lambda rng: in_top_k_cases(rng, False), 0),
    "InTopKV2": (lambda rng: in_top_k_cases(rng, True), 0),
    # 1 ulp (an exact sum all the same): the sign bit of a NaN (inf + -inf) is not compared.
    "Cumsum": (lambda rng: scan_cases(rng, "any"), 1),
    "Cumprod": (lambda rng: scan_cases(rng, "small"), 1),
    # Row routing (partition_kernels.cc): out-of-range ids and partitions are refused by both.
    "Gather": (own_rng(lambda rng: [([values(rng, d, (4, 3)), np.array(i, t)], {}) for d in NUMERIC + (BOOL,)
                            for t in INTS for i in ([[3, 0], [1, 1]], [], 2)] +
                           [([values(rng, F32, (4, 3)), np.array(i, I32)], {REFUSED: True}) for i in ([0, 4], [-1])], 1), 0),
    "DynamicPartition": (own_rng(lambda rng: [([values(rng, d, (6, 2)), np.array([1, 0, 1, 2, 0, 1], I32)],
                                       {"num_partitions": 3}) for d in NUMERIC + (BOOL,)] +
                                     [([values(rng, F64, (2, 3, 2)), np.array([[1, 1, 0], [3, 0, 1]], I32)],
                                       {"num_partitions": 4}),
                                      ([values(rng, F32, (3,)), np.array([0, 2, 0], I32)], {"num_partitions": 2,
                                                                                             REFUSED: True}),
                                      ([values(rng, F32, (3,)), np.array([0, -1, 0], I32)], {"num_partitions": 2,
                                                                                              REFUSED: True})], 2), 0),
    **{op: (own_rng(lambda rng: [([np.array([0, 4], I32), np.array([[1], [3]], I32), values(rng, d, (2, 2)),
                           values(rng, d, (2, 1, 2))], {}) for d in NUMERIC + (BOOL,)] +
                        [([np.array([2, 0], I32), np.array([1], I32), values(rng, F32, (2,)), values(rng, F32, (1,))],
                          {}),
                         ([np.array([0, -1], I32), values(rng, F32, (2, 2))], {REFUSED: True}),
                         ([np.array([0, 1], I32), np.array([2], I32), values(rng, F32, (2, 2)),
                           values(rng, F32, (1, 3))], {REFUSED: True})], 3), 0)
       for op in ("DynamicStitch", "ParallelDynamicStitch")},
    "Unique": (own_rng(lambda rng: [([values(rng, d, (9,), "small")], {"out_idx": t}) for d in INTS for t in ("int32", "int64")]
                           + [([np.array([1.5, 0.0, -0.0, 1.5, np.inf, -2.0, np.inf, 0.0], d)], {}) for d in FLOATS]
                           + [([np.zeros((0,), I64)], {}), ([values(rng, I32, (2, 2))], {REFUSED: True})], 4), 0),
    **{op: (own_rng(lambda rng: [([values(rng, d, (5, 2), "small"), np.array([0, 0, 2, 3, 3], t)], {})
                                 for d in NUMERIC for t in INTS] +
                                [([values(rng, F64, (0, 3)), np.zeros((0,), I32)], {}),
                                 ([values(rng, F32, (3,)), np.array([0, 2, 1], I32)], {REFUSED: True}),
                                 ([values(rng, F32, (3,)), np.array([-1, 0, 0], I32)], {REFUSED: True})], 5), 0)
       for op in ("SegmentSum", "SegmentMean")},
    # Sorted max / min / product: gaps (ids no row has: 0, or 1 for the product), NaN and inf
    # rows, a one-row segment, ints wrapping; unsorted product with negative ids dropped.
    **{op: (own_rng(lambda rng: [([values(rng, d, (6, 2), "small"), np.array([0, 0, 2, 3, 3, 3], t)], {})
                                 for d in NUMERIC for t in INTS] +
                                [([np.array([np.nan, 1.0, -np.inf, 2.0, 3.0, np.nan, -0.0], d),
                                   np.array([0, 0, 1, 1, 3, 3, 4], I32)], {}) for d in FLOATS] +
                                [([np.array([70000, 70000, 5, -2147483647], I32), np.array([0, 0, 1, 1], I64)], {}),
                                 ([values(rng, F64, (0, 3)), np.zeros((0,), I32)], {}),
                                 ([values(rng, F32, (3,)), np.array([0, 2, 1], I32)], {REFUSED: True})], 2616), 0)
       for op in ("SegmentMax", "SegmentMin", "SegmentProd")},
    "UnsortedSegmentProd": (own_rng(lambda rng: [([values(rng, d, (5, 2), "small"), np.array([1, -1, 0, 1, 3], t),
                                                   np.array(5, I32)], {}) for d in NUMERIC for t in INTS] +
                                               [([values(rng, F32, (2, 3, 2), "small"),
                                                  np.array([[0, 1, 1], [2, -1, 0]], I32), np.array(3, I64)], {})] +
                                               [([values(rng, F32, (3,)), np.array([0, 3, 1], I32), np.array(3, I32)],
                                                 {REFUSED: True})], 2617), 1),
    **{op: (own_rng(lambda rng: [([values(rng, d, (5, 2), "small"), np.array([1, -1, 0, 1, 3], t),
                                   np.array(5, I32)], {}) for d in NUMERIC for t in INTS] +
                                [([values(rng, F32, (2, 3, 2), "small"), np.array([[0, 1, 1], [2, -1, 0]], I32),
                                   np.array(3, I64)], {})] +
                                [([np.array([np.nan, 1.0, -np.inf, 2.0, 3.0, np.nan], d),
                                   np.array([0, 0, 1, 1, 2, 2], I32), np.array(4, I32)], {}) for d in FLOATS] +
                                [([values(rng, F32, (3,)), np.array([0, 3, 1], I32), np.array(3, I32)],
                                  {REFUSED: True})], 6), 0)
       for op in ("UnsortedSegmentMax", "UnsortedSegmentMin")},
    "GatherNd": (own_rng(lambda rng: [([values(rng, d, (3, 4, 2)), np.array(i, t)], {}) for d in NUMERIC + (BOOL,)
                                      for t in INTS for i in ([[2, 1], [0, 3]], [[1], [2], [1]], [[[0, 0, 1]]])] +
                                     [([values(rng, F32, (3, 2)), np.array([[3, 0]], I32)], {REFUSED: True}),
                                      ([values(rng, F32, (3, 2)), np.array([[0, -1]], I64)], {REFUSED: True})], 7), 0),
    "ScatterNd": (own_rng(lambda rng: [([np.array(i, t), values(rng, d, u, "small"), np.array(s, t)], {})
                                       for d in NUMERIC for t in INTS
                                       for i, u, s in (([[1, 0], [2, 2], [1, 0]], (3,), [3, 4]),
                                                       ([[2], [0]], (2, 4), [3, 4]))] +
                                      [([np.array([[3]], I32), values(rng, F32, (1, 2)), np.array([3, 2], I32)],
                                        {REFUSED: True})], 8), 1),
    "ClipByValue": (lambda rng: [([values(rng, d, (3, 4)), values(rng, d, lo_s, "small"), (values(rng, d, hi_s, "small")
                                   + (0 if d in INTS else 0.25)).astype(d)], {REFUSED: lo_s == (4,)}) for d in NUMERIC
                                 for lo_s, hi_s in (((), ()), ((3, 4), ()), ((), (3, 4)), ((3, 4), (3, 4)), ((4,), ()))],
                    0),
    # Unary functions (math_unary_fn_kernels.cc): edge values, and the domains of the inverse functions.
    **{op: (own_rng(unary(FLOATS)), 4) for op in ("Inv", "Sin", "Cos", "Tan", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
                                                  "Expm1", "Log1p", "Erfc")},
    # Documented deviation (RELIABILITY.md): TensorFlow's float64 Erf gives NaN for |x| > ~1e154 and +-inf, ours
    # +-1 (the limit; checked in test_math_fns.py); those inputs are left out here.
    "Erf": (own_rng(lambda rng: [([np.where(np.abs(x) > 1e150, 0.5, x).astype(x.dtype)], a)
                                 for [x], a in unary(FLOATS)(rng)]), 4),
    **{op: (own_rng(plus_cases(unary(FLOATS), unary(FLOATS, "small"))), 4) for op in ("Asin", "Acos", "Atanh")},
    # Poles at 0 and the negative integers; halves and integers around them.
    **{op: (own_rng(plus_cases(unary(FLOATS), special_points)), 8) for op in ("Lgamma", "Digamma")},
    **{op: (own_rng(plus_cases(unary(FLOATS), halves)), 0) for op in ("Floor", "Ceil", "Rint")},
    # Floats only: TensorFlow's raw Round kernel gives zeros for integers (tf.round returns integers as they are,
    # in Python, and so does our kernel: test_math_fns.py).
    "Round": (own_rng(plus_cases(unary(FLOATS), halves)), 0),
    **{op: (own_rng(unary(FLOATS)), 0) for op in ("IsFinite", "IsInf", "IsNan")},
    # Binary functions (math_binary_fn_kernels.cc).
    "Atan2": (own_rng(binary(FLOATS)), 4),
    **{op: (own_rng(plus_cases(binary(NUMERIC, y_kind="nonzero"), integer_zero_divisor)), 1)
       for op in ("TruncateDiv", "TruncateMod", "Mod")},
    "DivNoNan": (own_rng(plus_cases(binary(FLOATS), zero_divisor)), 1),
    **{op: (own_rng(plus_cases(binary(FLOATS), zero_divisor)), 4) for op in ("Xdivy", "Xlogy", "Xlog1py")},
    **{op: (own_rng(binary(INTS)), 0) for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor")},
    **{op: (own_rng(plus_cases(binary(INTS, "any", "small"), shift_counts)), 0) for op in ("LeftShift", "RightShift")},
    "Invert": (own_rng(unary(INTS)), 0),
    **{op: (own_rng(binary(FLOATS, "positive", "positive")), 16) for op in ("Igamma", "Zeta")},
    # Series summed in another order by TensorFlow's newer Eigen: up to ~25 ulps apart in float64.
    **{op: (own_rng(binary(FLOATS, "positive", "positive")), 64) for op in ("Igammac", "IgammaGradA")},
    **{op: (own_rng(lambda rng: reduction((BOOL,))(rng) + [([np.zeros((0, 3), bool), np.array([0], I64)],
                                                            {"keep_dims": False})]), 0) for op in ("All", "Any")},
    # Finite inputs pass through; NaN or Inf fail (the messages: test_check_ops.py).
    "CheckNumerics": (own_rng(lambda rng: [([values(rng, d, s, "small")], {"message": "m"}) for d in FLOATS
                                           for s in ((3, 4), (0,), ())] +
                              [([np.array(v, d)], {"message": "m", REFUSED: True}) for d in FLOATS
                               for v in ([1.0, np.nan], [np.inf], [-np.inf, np.nan])]), 0),
    "MulNoNan": (own_rng(plus_cases(binary(FLOATS), zero_divisor)), 1),
    # Scalars stand for any shape; other shapes must be equal (refused otherwise).
    "Betainc": (own_rng(lambda rng: [([values(rng, d, sa, "positive"), values(rng, d, sb, "positive"),
                                       rng.uniform(0, 1, sx).astype(d)], {REFUSED: bad})
                                     for d in FLOATS for sa, sb, sx, bad in (((3, 4), (3, 4), (3, 4), False),
                                                                             ((), (3,), (), False),
                                                                             ((2, 2), (), (2, 2), False),
                                                                             ((3, 4), (3, 4), (4,), True))]), 64),
    "StopGradient": (own_rng(unary(NUMERIC + (BOOL,))), 0),
    "Polygamma": (own_rng(lambda rng: [([np.array(n, d), values(rng, d, (3, 4), "positive")], {}) for d in FLOATS
                                       for n in (0, 1, 2, 3)] +
                          [([np.array([[-1], [0.5], [1]], d), values(rng, d, (4,))], {}) for d in FLOATS]), 16),
    # Element movers (array_reorder_kernels.cc): every dtype, negative and summed axes, empty tensors; bad axes,
    # permutations and band widths refused by both.
    "ReverseV2": (own_rng(lambda rng: [([values(rng, d, (2, 3, 4)), np.array(a, t)], {}) for d in NUMERIC + (BOOL,)
                                       for t in INTS for a in ([0], [1, 2], [-1], [])] +
                                      [([values(rng, F32, (0, 3)), np.array([1], I32)], {})] +
                                      [([values(rng, F32, (2, 3)), np.array(a, I32)], {REFUSED: True})
                                       for a in ([2], [0, 0], [-3])], 240), 0),
    "Roll": (own_rng(lambda rng: [([values(rng, d, (3, 4, 2)), np.array(s, t), np.array(a, u)], {})
                                  for d in NUMERIC + (BOOL,) for t, u in ((I32, I32), (I64, I32))
                                  for s, a in ((2, 0), ([1, -2], [0, 1]), ([3, 1], [1, 1]), ([-7], [-1]), (9, 2))] +
                                 [([values(rng, F64, (0, 3)), np.array(1, I32), np.array(1, I32)], {})] +
                                 [([values(rng, F32, (2, 3)), np.array(s, I32), np.array(a, I32)], {REFUSED: True})
                                  for s, a in (([1, 2], [0]), ([1], [2]))], 241), 0),
    "InvertPermutation": (own_rng(lambda rng: [([np.array(p, t)], {}) for t in INTS
                                               for p in ([3, 0, 2, 1], [], list(rng.permutation(9)))] +
                                              [([np.array(p, I32)], {REFUSED: True})
                                               for p in ([0, 0], [1, 2], [[0]], [-1, 0])], 242), 0),
    "MatrixBandPart": (own_rng(lambda rng: [([values(rng, d, (2, 3, 4)), np.array(lo, t), np.array(up, t)], {})
                                            for d in NUMERIC + (BOOL,) for t in INTS
                                            for lo, up in ((0, 0), (-1, 0), (1, -1), (2, 3), (-1, -1))] +
                                           [([values(rng, F32, (3, 0)), np.array(1, I64), np.array(0, I64)], {})] +
                                           [([values(rng, F32, (3, 4)), np.array(lo, I64), np.array(up, I64)],
                                             {REFUSED: True}) for lo, up in ((4, 0), (0, 5), ([1], 0))] +
                                           [([values(rng, F32, (4,)), np.array(0, I64), np.array(0, I64)],
                                             {REFUSED: True})], 243), 0),
    # Matrix functions (linalg_decomp_kernels.cc) on well-conditioned batches, both float dtypes; singular and
    # non-square matrices refused by both. Compared within 64 ulps of the largest result (LU/LLT sums).
    "MatrixInverse": (own_rng(lambda rng: [([well_conditioned(rng, d, s)], {"adjoint": adj}) for d in FLOATS
                                           for s in ((3, 3), (2, 4, 4), (0, 0), (2, 0, 0)) for adj in (False, True)] +
                                          [([np.zeros((2, 2), F64)], {REFUSED: True}),
                                           ([np.ones((2, 3), F32)], {REFUSED: True})], 244), 64),
    **{op: (own_rng(lambda rng: [([well_conditioned(rng, d, s)], {}) for d in FLOATS
                                 for s in ((3, 3), (2, 4, 4), (0, 0), (2, 0, 0))] +
                                [([np.array([[1.0, 2.0], [2.0, 4.0]], F64)], {}),
                                 ([np.ones((2, 3), F32)], {REFUSED: True})], 245), 64)
       for op in ("MatrixDeterminant", "LogMatrixDeterminant")},
    "Cholesky": (own_rng(lambda rng: [([positive_definite(rng, d, s)], {}) for d in FLOATS
                                      for s in ((3, 3), (2, 4, 4), (0, 0))] +
                                     [([np.ones((2, 3), F32)], {REFUSED: True})], 246), 64),
    # Principal square roots (matrix_sqrt_kernels.cc, Eigen's Schur method as TensorFlow's): positive definite and
    # non-symmetric matrices with positive eigenvalues (complex in test_matrix_square_root.py); a matrix with a
    # negative eigenvalue gives NaNs in both; non-square refused.
    "MatrixSquareRoot": (own_rng(lambda rng: [([m], {}) for d in FLOATS
                                              for m in (positive_definite(rng, d, (3, 3)), positive_definite(rng, d, (2, 4, 4)),
                                                        well_conditioned(rng, d, (2, 3, 5, 5)), np.zeros((0, 0), d),
                                                        np.zeros((2, 0, 0), d), np.array([[4.0]], d))] +
                                             [([np.array([[-1.0, 0.0], [0.0, 4.0]])], {}),
                                              ([np.ones((2, 3), F32)], {REFUSED: True}),
                                              ([np.ones((3,), F64)], {REFUSED: True})], 271), 64),
    "MatrixSolve": (own_rng(lambda rng: [([well_conditioned(rng, d, a), values(rng, d, b, "small")], {"adjoint": adj})
                                         for d in FLOATS for a, b in (((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)),
                                                                      ((0, 0), (0, 2)))
                                         for adj in (False, True)] +
                                        [([np.zeros((2, 2), F64), np.ones((2, 1), F64)], {REFUSED: True}),
                                         ([np.eye(2), np.ones((3, 1))], {REFUSED: True})], 247), 64),
    "MatrixTriangularSolve": (own_rng(lambda rng: [([well_conditioned(rng, d, a), values(rng, d, b, "small")],
                                                    {"lower": lo, "adjoint": adj})
                                                   for d in FLOATS for a, b in (((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)))
                                                   for lo in (False, True) for adj in (False, True)] +
                                                  [([np.eye(2), np.ones((3, 1))], {REFUSED: True})], 248), 64),
    # Lu (linalg_factor_kernels.cc): Eigen's PartialPivLU on both sides, so the same pivots (plain random
    # matrices pivot); p in either index dtype; non-square and exactly singular refused by both.
    "Lu": (own_rng(lambda rng: [([well_conditioned(rng, d, s)], {"output_idx_type": t}) for d in FLOATS
                                for s in ((3, 3), (2, 4, 4), (2, 3, 5, 5), (0, 0), (2, 0, 0)) for t in ("int32", "int64")] +
                               [([rng.uniform(-1, 1, s).astype(d)], {}) for d in FLOATS for s in ((6, 6), (3, 5, 5))] +
                               [([np.array([[1.0, 2.0], [2.0, 4.0]], F64)], {REFUSED: True}),
                                ([np.ones((2, 3), F32)], {REFUSED: True}), ([np.ones(3, F32)], {REFUSED: True})], 290), 64),
    # Diagonals (array_diag_kernels.cc): every dtype, non-square and empty matrices; bad ranks and shapes refused.
    "Diag": (own_rng(lambda rng: [([values(rng, d, s)], {}) for d in NUMERIC for s in ((3,), (2, 2), (0,))] +
                                 [([np.array(1.0, F32)], {REFUSED: True})], 249), 0),
    "DiagPart": (own_rng(lambda rng: [([values(rng, d, s)], {}) for d in NUMERIC for s in ((3, 3), (2, 3, 2, 3))] +
                                     [([values(rng, F32, s)], {REFUSED: True}) for s in ((3,), (2, 3), ())], 250), 0),
    "MatrixDiag": (own_rng(lambda rng: [([values(rng, d, s)], {}) for d in NUMERIC + (BOOL,)
                                        for s in ((3,), (2, 4), (2, 0))] +
                                       [([np.array(1.0, F32)], {REFUSED: True})], 251), 0),
    "MatrixDiagPart": (own_rng(lambda rng: [([values(rng, d, s)], {}) for d in NUMERIC + (BOOL,)
                                            for s in ((3, 3), (2, 3, 5), (4, 2), (2, 0, 3))] +
                                           [([values(rng, F32, (3,))], {REFUSED: True})], 252), 0),
    "MatrixSetDiag": (own_rng(lambda rng: [([values(rng, d, s), values(rng, d, k)], {}) for d in NUMERIC + (BOOL,)
                                           for s, k in (((3, 3), (3,)), ((2, 3, 5), (2, 3)), ((4, 2), (2,)))] +
                                          [([values(rng, F32, s), values(rng, F32, k)], {REFUSED: True})
                                           for s, k in (((3, 3), (2,)), ((2, 3, 3), (3, 3)))], 253), 0),
    "LinSpace": (own_rng(lambda rng: [([np.array(a, d), np.array(b, d), np.array(n, t)], {}) for d in FLOATS
                                      for t in INTS for a, b, n in ((0.1, 1.0, 7), (-3.0, 5.5, 1), (2.0, -1.0, 30),
                                                                    (1.0, 1.0, 4))] +
                                     [([np.array(0.0, F32), np.array(1.0, F32), np.array(n, I32)], {REFUSED: True})
                                      for n in (0, -2)], 254), 1),
    # Shape plumbing (array_shape_n_kernels.cc).
    "ShapeN": (own_rng(lambda rng: [([values(rng, d, (2, 3)), values(rng, d, ()), values(rng, d, (0, 4, 1))],
                                     {"out_type": t}) for d in NUMERIC + (BOOL,) for t in ("int32", "int64")], 255), 0),
    "IdentityN": (own_rng(lambda rng: [([values(rng, F32, (2, 3)), values(rng, I64, ()), values(rng, BOOL, (4,))], {}),
                                       ([values(rng, F64, (3,))], {})], 256), 0),
    "EnsureShape": (own_rng(lambda rng: [([values(rng, d, (2, 3))], {"shape": s}) for d in NUMERIC + (BOOL,)
                                         for s in ([2, 3], [None, 3], [None, None])] +
                                        [([values(rng, F32, (2, 3))], {"shape": s, REFUSED: True})
                                         for s in ([3, 2], [2, None, 1])], 257), 0),
    "BroadcastArgs": (own_rng(lambda rng: [([np.array(a, t), np.array(b, t)], {}) for t in INTS
                                           for a, b in (([2, 1, 3], [4, 1]), ([], [5]), ([1], [1, 0]), ([3], [3]))] +
                                          [([np.array([2, 3], I32), np.array([4], I32)], {REFUSED: True})], 258), 0),
    # Mirror padding (mirror_pad_kernels.cc): both modes up to their limits; paddings past them refused.
    "MirrorPad": (own_rng(lambda rng: [([values(rng, d, (3, 4)), np.array(p, t)], {"mode": m})
                                       for d in NUMERIC + (BOOL,) for t in INTS for m, p in (
                                           ("REFLECT", [[2, 1], [0, 3]]), ("SYMMETRIC", [[3, 0], [4, 4]]),
                                           ("REFLECT", [[0, 0], [0, 0]]))] +
                                      [([values(rng, F64, (2, 1, 3)), np.array([[1, 2], [1, 0], [2, 2]], I32)],
                                        {"mode": "SYMMETRIC"})] +
                                      [([values(rng, F32, (3, 4)), np.array(p, I32)], {"mode": m, REFUSED: True})
                                       for m, p in (("REFLECT", [[3, 0], [0, 0]]), ("SYMMETRIC", [[0, 0], [5, 0]]),
                                                    ("REFLECT", [[-1, 0], [0, 0]]))], 259), 0),
    "MirrorPadGrad": (own_rng(lambda rng: [([values(rng, d, (6, 8), "small"), np.array(p, t)], {"mode": m})
                                           for d in NUMERIC for t in INTS for m, p in (
                                               ("REFLECT", [[2, 1], [0, 3]]), ("SYMMETRIC", [[3, 0], [2, 2]]))] +
                                          [([values(rng, F32, (3, 4)), np.array([[2, 2], [0, 0]], I32)],
                                            {"mode": "REFLECT", REFUSED: True})], 260), 2),
    # Bytes reread as another dtype (bitcast_kernel.cc): same size, wider (a last dim dropped),
    # narrower (a last dim added); a last dim that does not match, or a scalar to widen, refused.
    "Bitcast": (own_rng(lambda rng: [([values(rng, d, s)], {"type": np.dtype(t).name}) for d, s, t in (
        (F32, (2, 3), I32), (I32, (4,), F32), (F64, (2, 2), I64), (I64, (3,), F64), (F32, (2, 3), np.uint8),
        (F64, (3,), np.int16), (I64, (2,), np.float16), (I32, (3, 2), F64), (np.uint8, (2, 4), F32),
        (np.int16, (4,), I64), (np.float16, (5, 2), I32), (F64, (2, 2), np.complex64), (F32, (3, 2), np.complex64),
        (F64, (0, 2), np.complex128), (F32, (), I32), (np.int8, (2, 2), np.uint16))] +
        [([np.asarray(rng.standard_normal(4) + 1j * rng.standard_normal(4), np.complex64)], {"type": "float64"}),
         ([np.asarray(rng.standard_normal(2) + 1j * rng.standard_normal(2), np.complex128)], {"type": "float32"})] +
        [([values(rng, d, s)], {"type": np.dtype(t).name, REFUSED: True}) for d, s, t in (
            (np.uint8, (3, 3), F32), (np.uint8, (), np.int16), (I32, (2, 3), F64))], 2615), 0),
    # Spatial blocks into the batch and back (space_batch_kernels.cc): 1-3 block dims, trailing
    # dims, int64 blocks and edges, the 4-D forms; undivisible, negative or misshapen ones refused.
    "SpaceToBatchND": (own_rng(lambda rng: [([values(rng, d, s), np.array(b, t), np.array(p, t)], {})
                                            for d in NUMERIC for t in INTS for s, b, p in (
                                                ((2, 4, 6, 3), [2, 3], [[0, 0], [1, 2]]),
                                                ((1, 5, 2), [3], [[1, 0]]), ((2, 2, 4, 2, 1), [1, 2, 3], [[0, 0], [1, 1], [2, 2]]),
                                                ((3, 4), [1], [[0, 0]]))] +
                                           [([values(rng, F32, (2, 4, 6, 3)), np.array(b, I32), np.array(p, I32)],
                                             {REFUSED: True}) for b, p in (
                                               ([2, 4], [[0, 0], [1, 2]]), ([2, 3], [[0, 0], [-1, 1]]),
                                               ([2, 0], [[0, 0], [0, 0]]), ([2, 3], [[0, 0]]))], 2611), 0),
    "BatchToSpaceND": (own_rng(lambda rng: [([values(rng, d, s), np.array(b, t), np.array(c, t)], {})
                                            for d in NUMERIC for t in INTS for s, b, c in (
                                                ((12, 2, 3, 3), [2, 3], [[0, 0], [1, 2]]),
                                                ((6, 2, 2), [3], [[1, 2]]), ((12, 2, 1, 1, 2), [1, 2, 3], [[0, 0], [1, 1], [0, 2]]),
                                                ((3, 4), [1], [[0, 0]]))] +
                                           [([values(rng, F32, (12, 2, 3, 3)), np.array(b, I32), np.array(c, I32)],
                                             {REFUSED: True}) for b, c in (
                                               ([5, 2], [[0, 0], [0, 0]]), ([2, 3], [[0, 0], [-1, 1]]),
                                               ([2, 3], [[0, 5], [0, 0]]))], 2612), 0),
    "SpaceToBatch": (own_rng(lambda rng: [([values(rng, d, (2, 4, 5, 3)), np.array([[0, 2], [1, 0]], t)],
                                           {"block_size": bs}) for d in NUMERIC for t in INTS for bs in (2, 3)
                                          if (6 % bs, 6 % bs) == (0, 0)] +
                                         [([values(rng, F32, (2, 4, 5, 3)), np.array([[0, 0], [0, 0]], I32)],
                                           {"block_size": 2, REFUSED: True})], 2613), 0),
    "BatchToSpace": (own_rng(lambda rng: [([values(rng, d, (8, 2, 3, 3)), np.array([[1, 1], [0, 2]], t)],
                                           {"block_size": 2}) for d in NUMERIC for t in INTS] +
                                         [([values(rng, F32, (6, 2, 3, 3)), np.array([[0, 0], [0, 0]], I32)],
                                           {"block_size": 2, REFUSED: True})], 2614), 0),
    # Blocks of pixels to channels and back (space_depth_kernels.cc); shapes not divisible refused.
    "SpaceToDepth": (own_rng(lambda rng: [([values(rng, d, s)], {"block_size": bs}) for d in NUMERIC + (BOOL,)
                                          for s, bs in (((2, 4, 6, 3), 2), ((1, 3, 3, 2), 3), ((0, 2, 2, 1), 2))] +
                                         [([values(rng, F32, s)], {"block_size": 2, REFUSED: True})
                                          for s in ((1, 3, 4, 1), (4, 4, 1))], 261), 0),
    "DepthToSpace": (own_rng(lambda rng: [([values(rng, d, s)], {"block_size": bs}) for d in NUMERIC + (BOOL,)
                                          for s, bs in (((2, 2, 3, 12), 2), ((1, 1, 2, 9), 3), ((0, 2, 2, 4), 2))] +
                                         [([values(rng, F32, (1, 2, 2, 6))], {"block_size": 2, REFUSED: True})],
                                         262), 0),
    # Patches of images (extract_patches_kernels.cc), TensorFlow's CPU dtypes (real numbers): VALID and SAME, strides, rates, windows wider than the image
    # (SAME), empty batches; a VALID window past the image and a rank-3 image refused.
    "ExtractImagePatches": (own_rng(lambda rng: [([values(rng, d, s)], {"ksizes": [1, *k, 1], "strides": [1, *st, 1],
                                                                       "rates": [1, *r, 1], "padding": p})
                                                 for d in NUMERIC + (np.float16, np.uint8, np.int8, np.int16, np.uint16)
                                                 for s, k, st, r, p in (((2, 5, 6, 3), (2, 3), (1, 1), (1, 1), "VALID"),
                                                                        ((1, 7, 5, 2), (3, 2), (2, 3), (1, 1), "SAME"),
                                                                        ((2, 6, 7, 1), (2, 2), (1, 2), (2, 3), "VALID"),
                                                                        ((1, 5, 5, 2), (3, 3), (2, 2), (2, 1), "SAME"),
                                                                        ((1, 2, 3, 1), (4, 5), (3, 1), (1, 1), "SAME"),
                                                                        ((0, 4, 4, 2), (2, 2), (1, 1), (1, 1), "VALID"),
                                                                        ((1, 3, 3, 0), (2, 2), (1, 1), (1, 1), "SAME"))] +
                                                [([values(rng, F32, s)], {"ksizes": [1, 3, 3, 1], "strides": [1, 1, 1, 1],
                                                                          "rates": [1, r, 1, 1], "padding": "VALID",
                                                                          REFUSED: True})
                                                 for s, r in (((1, 2, 4, 1), 2), ((4, 4, 1), 1))], 270), 0),
    "ReverseSequence": (own_rng(lambda rng: [([values(rng, d, (3, 4, 2)), np.array(n, t)], {"seq_dim": s, "batch_dim": b})
                                             for d in NUMERIC + (BOOL,) for t in INTS
                                             for s, b, n in ((1, 0, [4, 0, 2]), (0, 2, [3, 1]), (2, 1, [2, 1, 0, 2]))] +
                                            [([values(rng, F32, (3, 4)), np.array(n, I64)],
                                              {"seq_dim": 1, "batch_dim": b, REFUSED: True})
                                             for n, b in (([5, 0, 1], 0), ([1, 1], 0), ([1, 1, 1, 1], 1))], 263), 0),
    # TensorScatter* (nd_kernels.cc): K = 1 and 2 (a vector of indices fails in TensorFlow, always); repeated indices combine in index order
    # (Update: none, TensorFlow leaves their order open); out-of-range indices and mismatched updates refused.
    **{op: (own_rng(lambda rng, op=op: [([values(rng, d, (4, 3), kind), np.array(i, t), values(rng, d, u, kind)], {})
                                        for d in NUMERIC for t in INTS
                                        for i, u in (([[1], [3]], (2, 3)), ([[0, 2], [3, 1]], (2,)),
                                                     ([[2]], (1, 3))) + ((([[1], [1]], (2, 3)),) if dup else ())] +
                                       [([values(rng, F32, (4, 3)), np.array(i, I32), values(rng, F32, u)],
                                         {REFUSED: True})
                                        for i, u in (([[4]], (1, 3)), ([[-1]], (1, 3)), ([[1]], (2, 3)),
                                                     ([[1, 1, 1]], (1,)), ([[0, 3]], (1,)), ([1, 2], ()))], seed), 1)
       for op, seed, kind, dup in (("TensorScatterUpdate", 265, "any", False), ("TensorScatterAdd", 266, "any", True),
                                   ("TensorScatterSub", 267, "any", True), ("TensorScatterMin", 268, "small", True),
                                   ("TensorScatterMax", 269, "small", True))},
    "UnravelIndex": (own_rng(lambda rng: [([np.array(i, t), np.array(d, t)], {}) for t in INTS
                                          for i, d in ((1621, [6, 7, 8, 9]), ([0, 5, 11], [3, 4]), (3, [4]))] +
                                         [([np.array(i, I32), np.array(d, I32)], {REFUSED: True})
                                          for i, d in ((12, [3, 4]), (0, [[3, 4]]))], 264), 0),
}


def well_conditioned(rng, dtype, shape):
    """Random matrices with a dominant diagonal (far from singular)."""
    x = rng.uniform(-1, 1, shape)
    return (x + 2 * shape[-1] * np.eye(shape[-1]) if shape[-1] else x).astype(dtype)


def positive_definite(rng, dtype, shape):
    x = rng.uniform(-1, 1, shape)
    return (x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _differences(inputs, ours, theirs):
    """The first differing elements: inputs there, ours, TensorFlow's (bit-level for floats)."""
    flat_o, flat_t = ours.ravel(), theirs.ravel()
    bad = [i for i in range(flat_o.size) if not (flat_o[i] == flat_t[i] and np.signbit(flat_o[i]) ==
                                                 np.signbit(flat_t[i])) and not (np.isnan(flat_o[i]) and
                                                                                 np.isnan(flat_t[i]))]
    shown = []
    for i in bad[:4]:
        at = [x.ravel()[i % x.size].item() if x.size else None for x in inputs if x.shape == ours.shape]
        shown.append(f"[{i}] inputs {at} ours {flat_o[i]!r} tf {flat_t[i]!r}")
    return f"{len(bad)} of {flat_o.size} differ: " + "; ".join(shown)


# Ops with a list input: its name and how many single inputs there are beside it.
LIST_INPUTS = {"ShapeN": ("input", 0), "IdentityN": ("input", 0), "AddN": ("inputs", 0), "Pack": ("values", 0), "ConcatV2": ("values", 1), "Concat": ("values", 1)}
# Ops whose inputs are two lists of one length (N indices, then N data).
PAIRED_LISTS = {"DynamicStitch": ("indices", "data"), "ParallelDynamicStitch": ("indices", "data")}


def list_sizes(op, inputs):
    """The length of each list input of `op` given its flat `inputs` (TensorFlow's side needs it)."""
    if op in PAIRED_LISTS:
        return {name: len(inputs) // 2 for name in PAIRED_LISTS[op]}
    name, singles = LIST_INPUTS.get(op, ("values", 0))
    return {name: len(inputs) - singles}


def registered_ops():
    tw = os.path.join(BUILD_DIR, "tools", "tw")
    return set(subprocess.run([tw, "ops"], capture_output=True, text=True, check=True).stdout.split())


def test_every_registered_op_is_compared_or_says_why_not():
    ops = registered_ops()
    listed = set(SPECS) | set(EXCLUDED)
    assert not set(SPECS) & set(EXCLUDED), set(SPECS) & set(EXCLUDED)
    assert ops - listed == set(), f"registered ops with no differential test and no reason: {sorted(ops - listed)}"
    assert listed - ops == set(), f"listed ops that are not registered: {sorted(listed - ops)}"
    print(f"\n{len(SPECS)} of {len(ops)} ops compared with TensorFlow; {len(EXCLUDED)} excluded with a reason")


def our_attrs(attrs):
    """A spec's attrs as tensorweave's create_op takes them (dtypes and shapes as objects)."""
    return {k: (tf.as_dtype(v) if k in ("DstT", "output_type", "index_type", "out_idx", "out_type", "output_idx_type", "type") else tf.TensorShape(v) if k == "shape" else v)
            for k, v in attrs.items()}


def run_ours(op, inputs, attrs):
    g = tf.Graph()
    with g.as_default():
        node = g.create_op(op, [tf.constant(x) for x in inputs], our_attrs(attrs))
        with tf.Session(graph=g) as sess:
            return [np.asarray(v) for v in sess.run(list(node.outputs))]


def test_ops_match_tensorflow(tmp_path):
    python = require_tensorflow("test_ops_match_tensorflow")
    rng = np.random.default_rng(2026)
    arrays, cases, meta = {}, [], []
    for op in sorted(SPECS):
        make, ulps = SPECS[op]
        for inputs, attrs in make(rng):
            refused = attrs.pop(REFUSED, False)
            only_ours = attrs.pop(ONLY_OURS, False)
            keys = []
            for x in inputs:
                keys.append(f"a{len(arrays)}")
                arrays[keys[-1]] = x
            cases.append({"op": op, "inputs": keys, "attrs": attrs, "list_sizes": list_sizes(op, inputs)})
            meta.append((op, inputs, attrs, ulps, refused, only_ours))
    theirs = run_tf_cases(python, "raw_ops.py", tmp_path, arrays, cases)
    failures, refusals = [], 0
    for i, (op, inputs, attrs, ulps, refused, only_ours) in enumerate(meta):
        what = f"{op} {[x.dtype.name + str(list(x.shape)) for x in inputs]} {attrs}"
        if only_ours:  # a documented deviation: TensorFlow refuses, ours runs
            try:
                run_ours(op, inputs, attrs)
            except tf.errors.OpError as e:
                failures.append(f"{what}: the documented deviation no longer holds: tensorweave failed: {e.message}")
            if f"c{i}_error" not in theirs.files:
                failures.append(f"{what}: TensorFlow now runs what the documented deviation says it refuses")
            continue
        if refused:  # both must refuse the inputs
            try:
                run_ours(op, inputs, attrs)
                failures.append(f"{what}: tensorweave ran inputs that TensorFlow refuses")
            except tf.errors.InvalidArgumentError:
                refusals += 1
            if f"c{i}_error" not in theirs.files:
                failures.append(f"{what}: TensorFlow ran inputs marked as refused")
            continue
        if f"c{i}_error" in theirs.files:
            failures.append(f"{what}: TensorFlow failed: {theirs[f'c{i}_error']}")
            continue
        try:
            ours = run_ours(op, inputs, attrs)
        except tf.errors.OpError as e:
            failures.append(f"{what}: tensorweave failed: {e.message}")
            continue
        for j, value in enumerate(ours):
            expected = theirs[f"c{i}_o{j}"]
            if value.shape != expected.shape or value.dtype != expected.dtype:
                failures.append(f"{what} output {j}: {value.dtype}{value.shape} vs TensorFlow's "
                                f"{expected.dtype}{expected.shape}")
            elif np.issubdtype(expected.dtype, np.floating):
                eps = np.finfo(expected.dtype).eps
                keep = ~_denormal_positions(inputs, expected.shape)
                v, e = value[keep], expected[keep]
                if op in FLUSHED_RESULTS:
                    tiny = np.finfo(expected.dtype).tiny
                    v, e = np.where(np.abs(v) < tiny, 0, v), np.where(np.abs(e) < tiny, 0, e)
                finite = np.abs(e[np.isfinite(e)])
                scale = float(finite.max()) if op in CONTRACTIONS and finite.size else 0.0
                try:
                    np.testing.assert_allclose(v, e, rtol=max(ulps, 1) * eps, equal_nan=True,
                                               atol=max(ulps, 1) * eps * scale if ulps else 0)
                    if ulps == 0 and op not in ZERO_SIGN_FREE:  # exact ops: the sign of zero too
                        np.testing.assert_array_equal(np.signbit(v), np.signbit(e))
                except AssertionError:
                    failures.append(f"{what} output {j}: {_differences(inputs, value, expected)}")
            elif not np.array_equal(value, expected, equal_nan=np.issubdtype(expected.dtype, np.complexfloating)):
                failures.append(f"{what} output {j}: {value.ravel()[:8]} vs TensorFlow's {expected.ravel()[:8]}")
    print(f"\n{len(meta)} cases of {len(SPECS)} ops compared with TensorFlow ({refusals} of them inputs both "
          f"refuse)")
    assert not failures, f"{len(failures)} mismatches:\n" + "\n".join(failures)
