"""TensorFlow's side of test_input_queues.py (and test_accumulators.py): runs the cases of
queue_cases.py (or of the module named) in tf.compat.v1 and prints repr() of
{case: described result}.
    queue_results.py [cases_module]"""
import importlib
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import queue_cases  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()


class _TF1:
    """tf.compat.v1, its Variable a resource variable as tensorweave's."""
    class strings:  # noqa: N801
        pass

    def __getattr__(self, name):
        if name == "Variable":  # tensorweave's variables are resource variables
            return lambda *args, **kwargs: tf1.Variable(*args, use_resource=True, **kwargs)
        return getattr(tf1, name)


_TF1.strings = tf1.strings


if __name__ == "__main__":
    module = importlib.import_module(sys.argv[1]) if len(sys.argv) > 1 else queue_cases
    print(repr(queue_cases.run_all(_TF1(), lambda g: tf1.Session(graph=g), module.cases())))
