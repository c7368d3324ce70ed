"""TensorFlow's side of test_graph_def_versions.py: argv[1] a GraphDef file, argv[2] an .npz
of feeds (key = tensor name), argv[3] the fetch. Imports the GraphDef in TF graph mode and
runs it, with TF's C++ log (fd 2) and Python warnings captured; prints JSON with the
warnings and the WARNING/ERROR log lines and the fetched value."""
import json
import os
import re
import sys
import tempfile
import warnings

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "1"  # TF's INFO banner lines are not warnings
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_eager_execution()

gd = tf.GraphDef()
with open(sys.argv[1], "rb") as f:
    gd.ParseFromString(f.read())
feeds = dict(np.load(sys.argv[2]))
log = tempfile.TemporaryFile()
saved = os.dup(2)
os.dup2(log.fileno(), 2)
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tf.Graph().as_default():
            tf.import_graph_def(gd, name="")
            with tf.Session() as sess:
                value = sess.run(sys.argv[3], feeds)
finally:
    os.dup2(saved, 2)
log.seek(0)
# TF's C++ log lines ("<date> <time>: W file] ...") and absl's ("W1125 ..."): warnings and
# errors are kept, INFO lines and absl's note about its own initialisation are not.
SEVERITY = re.compile(r"^(?:\d{4}-\d\d-\d\d [\d:.]+: )?([IWEF])(?:\d{4} | )")
lines = []
for line in log.read().decode(errors="replace").splitlines():
    m = SEVERITY.match(line)
    if (m and m.group(1) != "I") or (not m and line.strip() and "absl::InitializeLog" not in line):
        lines.append(line)
print(json.dumps({"warnings": [str(w.message) for w in caught], "log": lines,
                  "value": np.asarray(value).tolist()}))
