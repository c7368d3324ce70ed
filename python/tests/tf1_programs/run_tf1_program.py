"""Runs an unmodified TensorFlow 1.x program on tensorweave with only its imports changed,
as a user would: `import tensorflow as tf` becomes `import tensorweave as tf`, and
TensorFlow's MNIST reader becomes the synthetic stand-in beside this file (input_data.py).
Nothing else in the program is touched.

    python3 run_tf1_program.py PROGRAM.py [the program's own flags...]"""
import os
import re
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))

# (pattern, replacement) applied to import lines only.
IMPORT_REWRITES = [
    (re.compile(r"^(\s*)import tensorflow as tf\s*$", re.M), r"\1import tensorweave as tf"),
    (re.compile(r"^(\s*)import tensorflow\.compat\.v1 as tf\s*$", re.M), r"\1import tensorweave as tf"),
    (re.compile(r"^(\s*)from tensorflow\.examples\.tutorials\.mnist import input_data\s*$", re.M),
     r"\1import input_data"),
    # Any other TensorFlow module: tensorweave's of that name (tf.contrib.rnn, ...).
    (re.compile(r"^(\s*)from tensorflow((?:\.\w+)*) import ", re.M), r"\1from tensorweave\2 import "),
]


def rewrite_imports(source):
    for pattern, replacement in IMPORT_REWRITES:
        source = pattern.sub(replacement, source)
    return source


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = os.path.abspath(sys.argv[1])
    with open(path, encoding="utf-8") as f:
        source = rewrite_imports(f.read())
    sys.argv = [path] + sys.argv[2:]
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
