"""TensorFlow's side of test_summary_events.py's traced-run test: reads an event file
(argv[1]) with TF's summary_iterator and prints, per tagged RunMetadata, its devices and
node names as JSON."""
import json
import sys

import tensorflow as tf
from tensorflow.core.protobuf import config_pb2

out = {}
for event in tf.compat.v1.train.summary_iterator(sys.argv[1]):
    if event.HasField("tagged_run_metadata"):
        metadata = config_pb2.RunMetadata.FromString(event.tagged_run_metadata.run_metadata)
        out[event.tagged_run_metadata.tag] = {
            "step": event.step,
            "devices": {d.device: sorted(n.node_name for n in d.node_stats) for d in metadata.step_stats.dev_stats}}
print(json.dumps(out))
