"""TF1's timeline (`from tensorflow.python.client import timeline`): Chrome trace JSON of a
traced step. Run with tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE) and a
tf.RunMetadata, then `timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format()`
and open the file in chrome://tracing or Perfetto. The JSON is written by the engine
(src/runtime/chrome_trace.cc), the same writer as `tw run --trace`; importable as
tensorweave.python.client.timeline and tensorweave.client.timeline."""
import sys
import types

from tensorweave import _core


class Timeline:
    """The timeline of one step's StepStats (ours, or TensorFlow's: any message whose
    SerializeToString gives StepStats bytes)."""

    def __init__(self, step_stats, graph=None):
        if not hasattr(step_stats, "SerializeToString"):
            raise TypeError("Timeline needs a StepStats message (run_metadata.step_stats), not %r"
                            % type(step_stats).__name__)
        self._step_stats = step_stats.SerializeToString()
        self._graph = graph  # Accepted as TF's; the labels already name each node's inputs.

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False, op_time="schedule"):
        """The step as Chrome trace JSON: one process per device, an 'X' event per node,
        flow arrows ('s'/'t') along edges between devices or lanes and from each _Send to its
        _Recv. op_time is TF's, where only "schedule" applies on CPU devices."""
        if op_time not in ("schedule", "gpu", "all"):
            raise ValueError("op_time must be 'schedule', 'gpu' or 'all', not %r" % (op_time,))
        return _core.chrome_trace(self._step_stats, bool(show_dataflow), bool(show_memory))


def _register(path):
    """Makes `path` (dotted, under tensorweave) importable as this module."""
    parts = path.split(".")
    for i in range(2, len(parts)):
        name = ".".join(parts[:i])
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = []
            sys.modules[name] = package
            setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1], package)
    sys.modules[path] = sys.modules[__name__]
    setattr(sys.modules[".".join(parts[:-1])], parts[-1], sys.modules[__name__])


for _path in ("tensorweave.python.client.timeline", "tensorweave.client.timeline"):
    _register(_path)
