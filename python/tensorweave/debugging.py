"""tf.debugging: the checks of check_ops.py and the predicates of math_fn_ops.py under the
names tf.debugging gives them."""
from tensorweave.check_ops import (Assert, assert_equal, assert_greater, assert_greater_equal,  # noqa: F401
                                   assert_less, assert_less_equal, assert_negative, assert_non_negative,
                                   assert_non_positive, assert_none_equal, assert_positive, check_numerics)
from tensorweave.math_fn_ops import is_finite, is_inf, is_nan  # noqa: F401
from tensorweave.check_ops import verify_tensor_all_finite as assert_all_finite  # noqa: F401
from tensorweave.math_composites import is_non_decreasing, is_strictly_increasing  # noqa: F401
from tensorweave.check_ops import (assert_integer, assert_near, assert_proper_iterable, assert_rank,  # noqa: F401,E402
                                   assert_rank_at_least, assert_rank_in, assert_same_float_dtype, assert_scalar,
                                   assert_type)
from tensorweave.tensor_util import is_numeric_tensor  # noqa: F401,E402
