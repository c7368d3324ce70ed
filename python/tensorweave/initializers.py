"""tf.initializers: TF 1's namespace of the initializers under their short names, and of the
variable-initializing ops (global_variables, local_variables, variables)."""
from tensorweave.init_ops import (glorot_normal_initializer as glorot_normal, he_normal, he_uniform,  # noqa: F401
                                  identity_initializer as identity, lecun_normal, lecun_uniform,
                                  orthogonal_initializer as orthogonal,
                                  uniform_unit_scaling_initializer as uniform_unit_scaling,
                                  variance_scaling_initializer as variance_scaling)
from tensorweave.variables import (constant_initializer as constant,  # noqa: F401
                                   global_variables_initializer as global_variables,
                                   glorot_uniform_initializer as glorot_uniform,
                                   local_variables_initializer as local_variables, ones_initializer as ones,
                                   random_normal_initializer as random_normal,
                                   random_uniform_initializer as random_uniform,
                                   truncated_normal_initializer as truncated_normal,
                                   variables_initializer as variables, zeros_initializer as zeros)
