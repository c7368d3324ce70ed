"""tf.math: TensorFlow 1's math namespace, aliasing the functions of math_ops.py and
math_fn_ops.py under the names tf.math gives them."""
from tensorweave.math_fn_ops import (acos, acosh, asin, asinh, atan, atan2, atanh, ceil, cos, cosh,  # noqa: F401
                                     digamma, div_no_nan, erf, erfc, expm1, floor, igamma, igammac, is_finite,
                                     is_inf, is_nan, lgamma, log1p, logical_xor, polygamma, rint, round, sin, sinh,
                                     tan, truncatediv, truncatemod, xdivy, xlog1py, xlogy, zeta)
from tensorweave.math_ops import (abs, add, add_n, argmax, argmin, cumprod, cumsum, divide, equal, exp,  # noqa: F401
                                  floordiv, floormod, greater, greater_equal, less, less_equal, log, logical_and,
                                  logical_not, logical_or, maximum, minimum, multiply, negative, not_equal, pow,
                                  reciprocal, reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum, rsqrt,
                                  sigmoid, sign, sqrt, square, squared_difference, subtract, tanh, truediv,
                                  unsorted_segment_sum)
from tensorweave.math_ops import floormod as mod  # noqa: F401 - tf.math.mod is FloorMod
from tensorweave.math_reduce_ops import count_nonzero, reduce_all, reduce_any, reduce_logsumexp  # noqa: F401
from tensorweave.math_composites import (divide_no_nan, is_non_decreasing, is_strictly_increasing, lbeta,  # noqa: F401
                                         log_sigmoid, polyval, reciprocal_no_nan, reduce_std, reduce_variance,
                                         scalar_mul)
from tensorweave.nn import in_top_k, l2_normalize, log_softmax, softmax, softplus, softsign, top_k  # noqa: F401
from tensorweave.math_fn_ops import betainc, multiply_no_nan  # noqa: F401,E402
from tensorweave.partition_ops import (segment_max, segment_mean, segment_min, segment_prod,  # noqa: F401,E402
                                       segment_sum, unsorted_segment_max, unsorted_segment_prod,
                                       unsorted_segment_min)
from tensorweave.array_reorder_ops import invert_permutation  # noqa: F401,E402
from tensorweave.complex_ops import angle, conj, imag, real  # noqa: F401,E402
from tensorweave.sort_search_ops import bincount  # noqa: F401,E402
from tensorweave.math_composites import confusion_matrix  # noqa: F401,E402
from tensorweave.partition_ops import unsorted_segment_mean, unsorted_segment_sqrt_n  # noqa: F401,E402
from tensorweave.math_composites import accumulate_n  # noqa: F401,E402
