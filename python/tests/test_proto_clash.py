"""tensorweave and another extension that registers its own tensor.proto share one process.

Before our .proto files were registered as tensorweave/proto/*.proto, `import torch` then
`import tensorweave` aborted the interpreter ("File already exists in database: tensor.proto").
Each order runs in a fresh interpreter: a protobuf CHECK failure kills the process."""
import os
import subprocess
import sys

import pytest

BUILD_PYTHON = os.path.dirname(os.path.dirname(os.path.abspath(__import__("tensorweave").__file__)))
CLASH_DIR = os.path.join(BUILD_PYTHON, "proto_clash")

USE_BOTH = """
import numpy as np
import tensorweave as tf
import proto_clash_ext
assert proto_clash_ext.registered_file() == "tensor.proto", proto_clash_ext.registered_file()
assert proto_clash_ext.round_trip(2.5) == 2.5
x = tf.placeholder(tf.float32, [3])
with tf.Session() as sess:
    print(sess.run(tf.reduce_sum(x * 2.0), {x: np.array([1, 2, 3], np.float32)}))
"""


@pytest.mark.parametrize("first", ["proto_clash_ext", "tensorweave"])
def test_tensorweave_and_a_foreign_tensor_proto_share_a_process(first):
    assert os.path.exists(CLASH_DIR), f"{CLASH_DIR} is missing: the build makes it (python/CMakeLists.txt)"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([BUILD_PYTHON, CLASH_DIR]))
    program = f"import {first}\n" + USE_BOTH
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "12.0"
    assert "File already exists" not in done.stderr
