"""The seeds' listings run as written with `import tensorweave as tf` (seed 000's tutorial,
seed 002's slides), the fixed ports 2222/2223 replaced by free ones. Seed 003's program is
examples/data_parallel_exp.py (test_examples)."""
import signal
import subprocess
import textwrap

import pytest

from conftest import PYTHON, free_port, python_env

CREATE_WORKER = """
# Get task number from command line
import sys
task_number = int(sys.argv[1])

import tensorweave as tf

cluster = tf.train.ClusterSpec({"local": ["localhost:2222", "localhost:2223"]})
server = tf.train.Server(cluster, job_name="local", task_index=task_number)

print("Starting server #{}".format(task_number))

server.start()
server.join()
"""

HELLO_238 = """
import tensorweave as tf

x = tf.constant(2)
y1 = x + 300
y2 = x - 66
y = y1 + y2

with tf.Session() as sess:
    result = sess.run(y)
    print(result)
"""

DISTRIBUTED_238 = """
import tensorweave as tf


cluster = tf.train.ClusterSpec({"local": ["localhost:2222", "localhost:2223"]})

x = tf.constant(2)


with tf.device("/job:local/task:1"):
    y2 = x - 66

with tf.device("/job:local/task:0"):
    y1 = x + 300
    y = y1 + y2


with tf.Session("grpc://localhost:2222") as sess:
    result = sess.run(y)
    print(result)
"""

MEAN = """
import numpy as np
import tensorweave as tf

x = tf.placeholder(tf.float32, 100)

mean = tf.reduce_mean(x)


with tf.Session() as sess:
    result = sess.run(mean, feed_dict={x: np.random.random(100)})
    print(result)
"""

DISTRIBUTED_MEAN = """
import numpy as np
import tensorweave as tf

cluster = tf.train.ClusterSpec({"local": ["localhost:2222", "localhost:2223"]})

x = tf.placeholder(tf.float32, 100)


with tf.device("/job:local/task:1"):
    first_batch = tf.slice(x, [0], [50])
    mean1 = tf.reduce_mean(first_batch)

with tf.device("/job:local/task:0"):
    second_batch = tf.slice(x, [50], [-1])
    mean2 = tf.reduce_mean(second_batch)
    mean = (mean1 + mean2) / 2


with tf.Session("grpc://localhost:2222") as sess:
    result = sess.run(mean, feed_dict={x: np.random.random(100)})
    print(result)
"""

# Seed 000's exercise 3: a device of a remote task; this project has no GPU devices.
REMOTE_GPU = """
import tensorweave as tf
x = tf.constant(2.0)
with tf.device("/job:local/task:1/gpu:0"):
    y = x * 21
with tf.Session("grpc://localhost:2222") as sess:
    try:
        sess.run(y)
    except tf.errors.InvalidArgumentError as e:
        print("InvalidArgumentError:", e.message)
with tf.Session("grpc://localhost:2222", config=tf.ConfigProto(allow_soft_placement=True)) as sess:
    print(sess.run(y))
"""

# Seed 002's slides 6, 7 and 11 (values for the names the slides leave open).
SLIDES = """
import numpy as np
import tensorweave as tf
initial_values, var_name = np.ones(3, np.float32), "var_name"
x = tf.Variable(initial_values)
y = tf.get_variable(var_name, [3])
z = x + y

x = tf.placeholder(tf.float32)
y = tf.placeholder(tf.float32)
z = x + y
x_val, y_val = 1.5, 2.0
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    result = z.eval(feed_dict={x:x_val, y:y_val})
    print(result)

with tf.device("/gpu:0"):
    a = tf.placeholder(tf.float32)
    b = tf.placeholder(tf.float32)
    ab = tf.matmul(a, b)
with tf.device("/gpu:1"):
    c = tf.placeholder(tf.float32)
    d = tf.placeholder(tf.float32)
    cd = tf.matmul(c, d)
with tf.device("/cpu:0"):
    res = ab + cd
sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
a_val = b_val = c_val = d_val = np.eye(2, dtype=np.float32)
result = sess.run(res, feed_dict={a: a_val, b: b_val, c: c_val, d: d_val})
print(result.tolist())
"""


def _run(source, ports, *args):
    source = textwrap.dedent(source).replace("2222", str(ports[0])).replace("2223", str(ports[1]))
    result = subprocess.run([PYTHON, "-c", source, *args], capture_output=True, text=True, env=python_env(),
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def workers():
    """Seed 000's create_worker.py, twice."""
    ports = (free_port(), free_port())
    source = CREATE_WORKER.replace("2222", str(ports[0])).replace("2223", str(ports[1]))
    procs = [subprocess.Popen([PYTHON, "-c", source, str(task)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=python_env()) for task in range(2)]
    for task, proc in enumerate(procs):
        assert proc.stdout.readline() == "Starting server #%d\n" % task
    yield ports
    for proc in procs:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)


def test_local_programs():
    assert _run(HELLO_238, (0, 0)) == "238\n"
    assert 0 < float(_run(MEAN, (0, 0))) < 1


def test_distributed_programs(workers):
    assert _run(DISTRIBUTED_238, workers) == "238\n"
    assert 0 < float(_run(DISTRIBUTED_MEAN, workers)) < 1
    out = _run(REMOTE_GPU, workers).splitlines()
    assert out[0].startswith("InvalidArgumentError: ") and "GPU:0" in out[0] and "allow_soft_placement" in out[0]
    assert out[1] == "42.0"


def test_slides_of_seed_002():
    assert _run(SLIDES, (0, 0)).splitlines() == ["3.5", "[[2.0, 0.0], [0.0, 2.0]]"]
