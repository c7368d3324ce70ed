"""tf.random: TensorFlow 1's random namespace, aliasing functions defined elsewhere under the
names tf.random gives them."""
from tensorweave.candidate_sampling import log_uniform_candidate_sampler, uniform_candidate_sampler  # noqa: F401
from tensorweave.framework import set_random_seed  # noqa: F401
from tensorweave.random_ops import categorical, get_seed, multinomial, truncated_normal  # noqa: F401
from tensorweave.random_ops import random_gamma as gamma  # noqa: F401
from tensorweave.random_ops import random_normal as normal  # noqa: F401
from tensorweave.random_ops import random_poisson as poisson  # noqa: F401
from tensorweave.random_ops import random_shuffle as shuffle  # noqa: F401
from tensorweave.random_ops import random_uniform as uniform  # noqa: F401
from tensorweave.stateless_random_ops import stateless_random_normal as stateless_normal  # noqa: F401
from tensorweave.stateless_random_ops import stateless_random_uniform as stateless_uniform  # noqa: F401
from tensorweave.stateless_random_ops import stateless_truncated_normal  # noqa: F401
