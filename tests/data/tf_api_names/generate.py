"""Writes tf1_api_names.txt: the public names of TensorFlow's TF1 API (tf.compat.v1, the API a
TF1 program sees as `tf`), one dotted name a line: every top-level name ("tf.sin", and each
submodule itself, "tf.math") and the names inside the submodules listed in SUBMODULES
("tf.math.sin"). tools/api_coverage.py reads it to report which exist in tensorweave.

Run with the suite's pinned TensorFlow (scripts/tf_env.sh prints its python):
    $(scripts/tf_env.sh) tests/data/tf_api_names/generate.py
MANIFEST.txt records the TensorFlow version that wrote it.
"""
import os
import platform

import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
# The namespaces a TF1 program reaches into for everyday work (issue 24 and its neighbours).
SUBMODULES = ("bitwise", "debugging", "errors", "image", "initializers", "io", "layers", "linalg", "losses",
              "math", "metrics", "nn", "random", "saved_model", "sets", "signal", "sparse", "strings", "summary",
              "train")


def public(module):
    return sorted(n for n in dir(module) if not n.startswith("_"))


def main():
    v1 = tf.compat.v1
    names, skipped = [], []
    for name in public(v1):
        names.append("tf." + name)
        if name not in SUBMODULES:  # getattr would load lazy modules (keras) that may not import
            continue
        try:
            inner_names = public(getattr(v1, name))
        except ImportError as e:  # a lazy module of Keras that this TensorFlow cannot load
            skipped.append(f"tf.{name} ({type(e).__name__}: {e})")
            continue
        names.extend(f"tf.{name}.{inner}" for inner in inner_names)
    with open(os.path.join(HERE, "tf1_api_names.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    with open(os.path.join(HERE, "MANIFEST.txt"), "w") as f:
        f.write(f"tf1_api_names.txt ({len(names)} names) written by TensorFlow {tf.__version__} (tensorflow-cpu "
                f"from PyPI, tf.compat.v1),\nPython {platform.python_version()}, with generate.py of this folder.\n")
        if skipped:
            f.write("Submodules whose names are not listed (they would not load):\n" +
                    "".join(f"  {s}\n" for s in skipped))


if __name__ == "__main__":
    main()
