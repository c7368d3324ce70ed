"""Seed 000's create_worker.py: runs task N of the "local" job until stopped.

    python3 create_worker.py 0        # then, in another terminal: python3 create_worker.py 1
    python3 create_worker.py 1 'local|localhost:2222;localhost:2223'   # other addresses
"""
# Get task number from command line
import sys

import tensorweave as tf

if len(sys.argv) < 2 or not sys.argv[1].isdigit():
    sys.exit(__doc__)
task_number = int(sys.argv[1])
if len(sys.argv) > 2:
    cluster = tf.train.ClusterSpec(sys.argv[2])
else:
    cluster = tf.train.ClusterSpec({"local": ["localhost:2222", "localhost:2223"]})
server = tf.train.Server(cluster, job_name="local", task_index=task_number)

try:
    print("Starting server #{}".format(task_number), flush=True)
    server.start()
    server.join()
except KeyboardInterrupt:  # Ctrl-C stops the server.
    server.stop()
    print("Stopped server #{}".format(task_number), flush=True)
