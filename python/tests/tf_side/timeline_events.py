"""TensorFlow's side of test_timeline.py: reads a serialized RunMetadata (argv[1]), makes
TF's own timeline.Timeline of its step_stats and prints the trace's events as JSON."""
import sys

from tensorflow.core.protobuf import config_pb2
from tensorflow.python.client import timeline

metadata = config_pb2.RunMetadata()
with open(sys.argv[1], "rb") as f:
    metadata.ParseFromString(f.read())
print(timeline.Timeline(metadata.step_stats).generate_chrome_trace_format(show_dataflow=True, show_memory=False))
