"""tensorweave's Python front end: TensorFlow 1.x's API, so that `import tensorweave as tf`
runs TF 1.x graph programs on the tensorweave C++ engine."""
__version__ = "0.1.0"

from tensorweave import _core  # noqa: F401 - first: the rest needs the extension.
from tensorweave import app, contrib, errors, flags, gfile, losses, nn, python_io, train  # noqa: F401
from tensorweave import layers  # noqa: F401,E402 - tf.layers
from tensorweave import distribute  # noqa: F401,E402 - tf.distribute.cluster_resolver
from tensorweave.clip_ops import clip_by_global_norm, clip_by_norm, global_norm  # noqa: F401,E402
from tensorweave import tf_logging as logging  # noqa: F401 - tf.logging
from tensorweave.array_ops import (bitcast, boolean_mask, broadcast_to, cast, concat, constant, expand_dims, fill, gather, group, identity,  # noqa: F401
                                   no_op, one_hot, ones, ones_like, pad, placeholder, placeholder_with_default,
                                   range, rank, reshape, shape, size, slice, split, squeeze, stack,
                                   strided_slice, tile, transpose, unstack, zeros, zeros_like)
from tensorweave.config import (ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunMetadata,  # noqa: F401
                                RunOptions, ThreadPoolOptionProto)
from tensorweave.accumulators import ConditionalAccumulator, SparseConditionalAccumulator  # noqa: F401
from tensorweave.data_flow_ops import FIFOQueue  # noqa: F401
from tensorweave.data_flow_ops import PaddingFIFOQueue, RandomShuffleQueue  # noqa: F401
from tensorweave import string_ops as strings  # noqa: F401 - tf.strings.join
from tensorweave.string_ops import string_join  # noqa: F401
from tensorweave.string_ops import (as_string, decode_raw, regex_replace, string_split,  # noqa: F401
                                    string_strip, string_to_number, substr)
from tensorweave.dtypes import (DType, as_dtype, bool, complex64, complex128, double, float16, float32,  # noqa: F401
                                float64, half, int8, int16, int32, int64, resource, string, uint8, uint16)
from tensorweave.complex_ops import angle, complex, conj, imag, real  # noqa: F401,A004
from tensorweave import signal  # noqa: F401,E402 - tf.signal
from tensorweave.sort_search_ops import (argsort, bincount, histogram_fixed_width,  # noqa: F401,E402
                                         histogram_fixed_width_bins, searchsorted, setdiff1d, sort, unique_with_counts)
from tensorweave.math_composites import confusion_matrix, cross, saturate_cast  # noqa: F401,E402
from tensorweave.clip_ops import clip_by_average_norm  # noqa: F401,E402
from tensorweave.random_ops import random_crop  # noqa: F401,E402
from tensorweave.array_composites import batch_gather, parallel_stack, repeat  # noqa: F401,E402
from tensorweave.partition_ops import unsorted_segment_mean, unsorted_segment_sqrt_n  # noqa: F401,E402
from tensorweave.math_ops import to_complex64, to_complex128  # noqa: F401,E402
from tensorweave.dtypes import variant  # noqa: F401,E402
from tensorweave.tensor_util import dimension_value, get_static_value, is_numeric_tensor, is_tensor  # noqa: F401,E402
from tensorweave.gating_ops import tuple  # noqa: F401,E402,A004 - tf.tuple
from tensorweave.init_ops import (glorot_normal_initializer, orthogonal_initializer,  # noqa: F401,E402
                                  uniform_unit_scaling_initializer, variance_scaling_initializer)
from tensorweave.variables import local_variables_initializer as initialize_local_variables  # noqa: F401,E402
from tensorweave.variables import variables_initializer as initialize_variables  # noqa: F401,E402


def no_regularizer(_):
    """The regularizer that adds no loss."""
    return None


def model_variables(scope=None):
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


from tensorweave.signal import fft, fft2d, fft3d, ifft, ifft2d, ifft3d  # noqa: F401,E402 - TF1's top-level names
from tensorweave.dimension import Dimension  # noqa: F401
from tensorweave.framework import (Graph, GraphKeys, Operation, Tensor, TensorShape,  # noqa: F401
                                   add_to_collection,
                                   add_to_collections, colocate_with, control_dependencies, convert_to_tensor,
                                   device, get_collection, get_collection_ref, get_default_graph, get_name_scope,
                                   name_scope, reset_default_graph, set_random_seed)
from tensorweave.gradients import (AggregationMethod, NoGradient, NotDifferentiable, RegisterGradient,  # noqa: F401
                                   UnconnectedGradients, custom_gradient, gradients, hessians, no_gradient)
from tensorweave.math_ops import (abs, add, add_n, argmax, argmin, clip_by_value, div, divide, equal, exp,  # noqa: F401
                                  floor_div, floordiv, floormod, greater, mod, greater_equal, less, less_equal, log, logical_and, logical_not, logical_or,
                                  matmul, maximum, minimum, multiply, negative, not_equal, pow, reciprocal,
                                  reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum, rsqrt, sigmoid,
                                  sign, sqrt, square, squared_difference, subtract, tanh, to_double, to_float,
                                  unsorted_segment_sum,
                                  to_int32, to_int64, truediv, where)
from tensorweave.random_ops import random_normal, random_uniform, truncated_normal  # noqa: F401
from tensorweave.session import InteractiveSession, Session, get_default_session  # noqa: F401
from tensorweave.variables import (AUTO_REUSE, Variable, VariableScope, all_variables, assert_variables_initialized,  # noqa: F401
                                   constant_initializer, get_variable, get_variable_scope, global_variables,
                                   global_variables_initializer, glorot_uniform_initializer, is_variable_initialized,
                                   initialize_all_variables, local_variables, local_variables_initializer,
                                   ones_initializer,
                                   random_normal_initializer, random_uniform_initializer, report_uninitialized_variables,
                                   trainable_variables,
                                   truncated_normal_initializer, variable_scope, variables_initializer,
                                   zeros_initializer)

newaxis = None
arg_max, arg_min = argmax, argmin  # TF 1.x's older names.
from tensorweave import meta_graph, saved_model  # noqa: F401,E402 - tf.saved_model; MetaGraphs

# tf.summary and its protos (generated from proto/summary.proto, proto/event.proto).
from tensorweave import summary  # noqa: E402
from tensorweave.summary import Event, HistogramProto, SessionLog, Summary, SummaryMetadata  # noqa: E402,F401
train.summary_iterator = summary.summary_iterator
from tensorweave.summary_hook import FileWriterCache, SummarySaverHook  # noqa: E402
summary.FileWriterCache = FileWriterCache
train.SummarySaverHook = SummarySaverHook
if "compat" not in globals():
    # tf.compat.v1.<name> (e.g. tf.compat.v1.train.summary_iterator): this package is TF's v1 API.
    import sys as _sys
    import types as _types
    compat = _types.SimpleNamespace(v1=_sys.modules[__name__])
# tf.train.Example parsing (tf.io, tf.parse_example) and the minimal tf.SparseTensor.
from tensorweave import io  # noqa: E402,F401
from tensorweave.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature,  # noqa: E402,F401
                                     decode_csv, parse_example, parse_single_example)
from tensorweave import sparse  # noqa: E402,F401
from tensorweave.sparse_tensor import (SparseTensor, SparseTensorValue, sparse_placeholder,  # noqa: E402,F401
                                       sparse_tensor_to_dense, sparse_to_dense)
from tensorweave.math_ops import cumprod, cumsum  # noqa: E402,F401
from tensorweave import metrics  # noqa: E402,F401 - tf.metrics
# Trigonometric, rounding and special functions, tf.math and tf.bitwise (math_fn_ops.py).
from tensorweave.math_fn_ops import (acos, acosh, asin, asinh, atan, atan2, atanh, ceil, cos, cosh,  # noqa: E402,F401
                                     digamma, div_no_nan, erf, erfc, expm1, floor, igamma, igammac, is_finite,
                                     is_inf, is_nan, lgamma, log1p, logical_xor, polygamma, rint, round, sin, sinh,
                                     tan, truncatediv, truncatemod, zeta)
from tensorweave import bitwise  # noqa: E402,F401
from tensorweave import math_namespace as math  # noqa: E402,F401
from tensorweave.math_reduce_ops import (count_nonzero, reduce_all, reduce_any, reduce_logsumexp,  # noqa: E402,F401
                                         stop_gradient)
from tensorweave.check_ops import (Assert, assert_equal, assert_greater, assert_greater_equal,  # noqa: E402,F401
                                   assert_less, assert_less_equal, assert_negative, assert_non_negative,
                                   assert_non_positive, assert_none_equal, assert_positive, check_numerics,
                                   verify_tensor_all_finite)
from tensorweave.check_ops import (add_check_numerics_ops, assert_integer, assert_near,  # noqa: F401,E402
                                   assert_proper_iterable, assert_rank, assert_rank_at_least, assert_rank_in,
                                   assert_same_float_dtype, assert_scalar, assert_type)
from tensorweave import debugging  # noqa: E402,F401
from tensorweave.math_composites import (is_non_decreasing, is_strictly_increasing, lbeta, log_sigmoid,  # noqa: E402,F401
                                         realdiv, scalar_mul)
from tensorweave.math_fn_ops import betainc  # noqa: E402,F401
from tensorweave.check_ops import Print  # noqa: E402,F401
from tensorweave.partition_ops import (dynamic_partition, dynamic_stitch, parallel_dynamic_stitch,  # noqa: E402,F401
                                       unique)
from tensorweave.partitioned_variables import (PartitionedVariable, fixed_size_partitioner,  # noqa: E402,F401
                                               min_max_variable_partitioner, variable_axis_size_partitioner)
from tensorweave.indexed_slices import IndexedSlices, IndexedSlicesValue  # noqa: E402,F401
from tensorweave.partition_ops import (segment_max, segment_mean, segment_min, segment_prod,  # noqa: E402,F401
                                       segment_sum, unsorted_segment_max, unsorted_segment_prod,
                                       unsorted_segment_min)
from tensorweave.partition_ops import gather_nd, scatter_nd  # noqa: E402,F401
from tensorweave.array_reorder_ops import (invert_permutation, matrix_band_part, reverse, reverse_v2,  # noqa: E402,F401
                                           roll)
from tensorweave import linalg  # noqa: E402,F401 - tf.linalg
from tensorweave.linalg_ops import (cholesky, cholesky_solve, eye, log_matrix_determinant,  # noqa: E402,F401
                                    matrix_determinant, matrix_inverse, matrix_solve, matrix_square_root,
                                    matrix_transpose, matrix_triangular_solve, trace)
from tensorweave.tensor_scatter_ops import (tensor_scatter_add, tensor_scatter_nd_add,  # noqa: E402,F401
                                            tensor_scatter_nd_max, tensor_scatter_nd_min, tensor_scatter_nd_sub,
                                            tensor_scatter_nd_update, tensor_scatter_sub, tensor_scatter_update)
from tensorweave.einsum_ops import einsum  # noqa: E402,F401
from tensorweave.script_ops import numpy_function, py_func, py_function  # noqa: E402,F401
from tensorweave.linalg_factor_ops import qr, self_adjoint_eig, self_adjoint_eigvals, svd  # noqa: E402,F401
from tensorweave.linalg_lstsq import matrix_solve_ls  # noqa: E402,F401
from tensorweave.array_diag_ops import (diag, diag_part, lin_space, linspace, matrix_diag,  # noqa: E402,F401
                                        matrix_diag_part, matrix_set_diag, sequence_mask)
from tensorweave.shape_n_ops import (broadcast_dynamic_shape, broadcast_static_shape, ensure_shape,  # noqa: E402,F401
                                     identity_n, shape_n)
from tensorweave.array_composites import meshgrid, norm, tensordot, where_v2  # noqa: E402,F401
from tensorweave.array_reorder_ops import depth_to_space, space_to_depth  # noqa: E402,F401
from tensorweave.array_reorder_ops import (batch_to_space, batch_to_space_nd, space_to_batch,  # noqa: E402,F401
                                           space_to_batch_nd)
from tensorweave.array_reorder_ops import extract_image_patches  # noqa: E402,F401
from tensorweave import image  # noqa: E402,F401 - tf.image
from tensorweave.random_ops import random_shuffle  # noqa: E402,F401
from tensorweave.random_ops import multinomial  # noqa: E402,F401
from tensorweave.random_ops import random_gamma, random_poisson  # noqa: E402,F401
from tensorweave import random_namespace as random  # noqa: E402,F401 - tf.random
from tensorweave.array_reorder_ops import reverse_sequence  # noqa: E402,F401
from tensorweave.array_reorder_ops import unravel_index  # noqa: E402,F401
from tensorweave.control_flow_ops import case, cond  # noqa: E402,F401 - TF1 dataflow cond (Switch/Merge)
from tensorweave.input import count_up_to  # noqa: E402,F401 - tf.count_up_to (queue pipelines' epoch counter)
from tensorweave.readers import (FixedLengthRecordReader, ReaderBase, TextLineReader,  # noqa: E402,F401
                                 TFRecordReader, WholeFileReader)
# The GraphDef workflow: TF's message classes and module paths (proto_aliases.py),
# tf.import_graph_def / write_graph (graph_io.py), tf.make_tensor_proto / make_ndarray
# (tensor_util.py) and tf.graph_util.
from tensorweave import proto_aliases as _proto_aliases  # noqa: E402
from tensorweave.proto_aliases import (AttrValue, GraphDef, MetaGraphDef, NameAttrList, NodeDef,  # noqa: E402,F401
                                       TensorProto, TensorShapeProto, VersionDef)
_proto_aliases.register_modules()
from tensorweave import timeline as _timeline  # noqa: E402,F401 - registers tensorweave.python.client.timeline
from tensorweave.graph_io import import_graph_def, write_graph  # noqa: E402,F401
from tensorweave.tensor_util import make_ndarray, make_tensor_proto  # noqa: E402,F401
from tensorweave import graph_util  # noqa: E402,F401
train.write_graph = write_graph
io.write_graph = write_graph
from tensorweave import raw_ops  # noqa: E402,F401 - tf.raw_ops, generated from the op registry (tools/op_gen)
# Collective ops and the Horovod-shaped data-parallel API (issue 21).
from tensorweave import collective_ops  # noqa: E402,F401
from tensorweave.while_loop import while_loop  # noqa: E402,F401 - TF1 dataflow loop (Enter/Merge/NextIteration/Exit)
from tensorweave.tensor_array_ops import TensorArray  # noqa: E402,F401 - TF1's TensorArrayV3 ops
from tensorweave import rnn as _rnn, rnn_cell as _rnn_cell  # noqa: E402 - tf.nn.rnn_cell, tf.nn.dynamic_rnn
nn.rnn_cell = _rnn_cell
nn.dynamic_rnn, nn.static_rnn = _rnn.dynamic_rnn, _rnn.static_rnn
nn.bidirectional_dynamic_rnn = _rnn.bidirectional_dynamic_rnn
from tensorweave.functional_ops import foldl, foldr, map_fn, scan  # noqa: E402,F401 - on tf.while_loop
from tensorweave import data  # noqa: E402,F401 - tf.data (data_ops.py)
from tensorweave.logging_ops import print_v2 as print  # noqa: E402,F401,A001 - tf.print (StringFormat + PrintV2)
# TF 1's aliases and thin wrappers of what exists (test_api_aliases.py).
from tensorweave import initializers, manip, spectral, version  # noqa: E402,F401
from tensorweave.version import (COMPILER_VERSION, GIT_VERSION, GRAPH_DEF_VERSION,  # noqa: E402,F401
                                 GRAPH_DEF_VERSION_MIN_CONSUMER, GRAPH_DEF_VERSION_MIN_PRODUCER, VERSION)
from tensorweave._core import CXX11_ABI_FLAG  # noqa: E402,F401
from tensorweave.variables import (assign, assign_add, assign_sub, scatter_add, scatter_div,  # noqa: E402,F401
                                   scatter_max, scatter_min, scatter_mul, scatter_sub, scatter_update)
from tensorweave.math_composites import accumulate_n  # noqa: E402,F401
from tensorweave.random_ops import get_seed  # noqa: E402,F401
from tensorweave.errors import OpError  # noqa: E402,F401
from tensorweave.device_spec import DeviceSpec  # noqa: E402,F401
from tensorweave.indexed_slices import convert_to_tensor_or_indexed_slices  # noqa: E402,F401
from tensorweave.array_reorder_ops import required_space_to_batch_paddings  # noqa: E402,F401
