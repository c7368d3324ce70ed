"""tf.version: tensorweave's own version values under TF 1's names (also top-level, e.g.
tf.VERSION)."""
from tensorweave import __version__ as VERSION, _core  # noqa: F401

GIT_VERSION = "unknown"  # TF's value when a build records no git description
COMPILER_VERSION = _core.COMPILER_VERSION
# The GraphDef versions (TF's meaning): we write producer 134 (kGraphDefProducer,
# src/graph/graph.cc) and no min_consumer, and import graphs of any producer.
GRAPH_DEF_VERSION = 134
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
