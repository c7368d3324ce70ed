"""Runs an unmodified TensorFlow 1.x program with only its imports changed, as a user would.

    python3 run_tf1_program.py PROGRAM.py [the program's own flags...]
        `import tensorflow as tf` becomes `import tensorweave as tf` (run with our python3).
    TF_PYTHON run_tf1_program.py --tensorflow PROGRAM.py [flags...]
        the same program on real TensorFlow 2.x as a TF1 user gets it there:
        `import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()`, plus tf.contrib's few
        names our programs use (tf_shim.py; TF 2 has no contrib).

In both modes TensorFlow's MNIST reader becomes the synthetic stand-in beside this file
(input_data.py). Nothing else in the program is touched."""
import os
import re
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))

_MNIST = (re.compile(r"^(\s*)from tensorflow\.examples\.tutorials\.mnist import input_data\s*$", re.M),
          r"\1import input_data")

# (pattern, replacement) applied to import lines only.
IMPORT_REWRITES = [
    (re.compile(r"^(\s*)import tensorflow as tf\s*$", re.M), r"\1import tensorweave as tf"),
    (re.compile(r"^(\s*)import tensorflow\.compat\.v1 as tf\s*$", re.M), r"\1import tensorweave as tf"),
    _MNIST,
    # Any other TensorFlow module: tensorweave's of that name (tf.contrib.rnn, ...).
    (re.compile(r"^(\s*)from tensorflow((?:\.\w+)*) import ", re.M), r"\1from tensorweave\2 import "),
]

TENSORFLOW_REWRITES = [
    (re.compile(r"^(\s*)import tensorflow as tf\s*$", re.M),
     r"\1import tensorflow.compat.v1 as tf; tf.disable_v2_behavior(); "
     r"import tf_shim; tf_shim.install(tf)"),
    _MNIST,
]


def rewrite_imports(source, tensorflow=False):
    for pattern, replacement in (TENSORFLOW_REWRITES if tensorflow else IMPORT_REWRITES):
        source = pattern.sub(replacement, source)
    return source


def main():
    args = sys.argv[1:]
    tensorflow = bool(args) and args[0] == "--tensorflow"
    if tensorflow:
        args = args[1:]
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if not args:
        sys.exit(__doc__)
    path = os.path.abspath(args[0])
    with open(path, encoding="utf-8") as f:
        source = rewrite_imports(f.read(), tensorflow)
    sys.argv = [path] + args[1:]
    sys.path.insert(0, HERE)
    sys.path.insert(1, os.path.dirname(path))
    code = compile(source, path, "exec")
    # The program is __main__ (tf.app.run finds its main() there).
    module = types.ModuleType("__main__")
    module.__file__ = path
    sys.modules["__main__"] = module
    exec(code, module.__dict__)  # pylint: disable=exec-used


if __name__ == "__main__":
    main()
