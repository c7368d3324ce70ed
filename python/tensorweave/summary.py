"""tf.summary (TF 1.x): summary ops that output serialized Summary protos, and FileWriter,
which writes them as event files TensorBoard reads (the C++ EventsWriter underneath)."""
import atexit
import os
import re
import time
import weakref

import numpy as np

from tensorweave import _core, dtypes, errors
from tensorweave import tf_logging as logging
from tensorweave.framework import GraphKeys, _op_output, convert_to_tensor, get_collection, name_scope
from tensorweave.proto.event_pb2 import Event, LogMessage, SessionLog, SourceMetadata, TaggedRunMetadata  # noqa: F401
from tensorweave.proto.summary_pb2 import (HistogramProto, Summary, SummaryDescription,  # noqa: F401
                                           SummaryMetadata)

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")
# ImageSummary's bad_color: what non-finite pixels of float images become (TF's default, red).
_BAD_COLOR = np.array([255, 0, 0, 255], dtype=np.uint8)


def _clean_tag(name):
    """TF's clean_tag: characters outside [-/\\w.] become '_', leading '/' go."""
    if name is None:
        return None
    new_name = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    if new_name != name:
        logging.info("Summary name %s is illegal; using %s instead." % (name, new_name))
    return new_name


class _SummaryScope:
    """TF's summary_scope: a unique name scope whose name (prefixed by family) is the tag."""

    def __init__(self, name, family):
        self._name = _clean_tag(name)
        self._family = _clean_tag(family)
        self._scope = None

    def __enter__(self):
        base = self._name if self._family is None else "%s/%s" % (self._family, self._name)
        self._scope = name_scope(base)
        scope = self._scope.__enter__()
        tag = scope.rstrip("/")
        if self._family is not None:
            tag = "%s/%s" % (self._family, tag)
        return tag, scope

    def __exit__(self, *exc):
        return self._scope.__exit__(*exc)


def _summary_op(op_type, inputs, attrs, scope):
    """The op named as its scope ("loss", not "loss/ScalarSummary"), as TF names it: its
    errors then name the same node."""
    inputs = [convert_to_tensor(i) for i in inputs]
    with name_scope(""):
        return _op_output(op_type, inputs, attrs, scope.rstrip("/"))


def _collect(value, collections, default):
    from tensorweave.framework import add_to_collection
    for key in (default if collections is None else collections):
        add_to_collection(key, value)


def scalar(name, tensor, collections=None, family=None):
    """A Summary with one simple_value (the scalar `tensor` as float), tagged `name`."""
    with _SummaryScope(name, family) as (tag, scope):
        val = _summary_op("ScalarSummary", [convert_to_tensor(tag, dtype=dtypes.string), tensor], None, scope)
    _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def histogram(name, values, collections=None, family=None):
    """A Summary with the histogram of `values` (TF's default buckets); NaN or inf fail the step."""
    with _SummaryScope(name, family) as (tag, scope):
        val = _summary_op("HistogramSummary", [convert_to_tensor(tag, dtype=dtypes.string), values], None, scope)
    _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """Up to max_outputs PNG images from a [batch, height, width, 1|3|4] tensor (uint8 as is;
    float and half scaled into [0, 255] as TF does), tagged name/image[/i]."""
    if int(max_outputs) < 1:
        raise ValueError("max_outputs must be >= 1, got %d" % int(max_outputs))
    with _SummaryScope(name, family) as (tag, scope):
        val = _summary_op("ImageSummary", [convert_to_tensor(tag, dtype=dtypes.string), tensor],
                          {"max_images": int(max_outputs), "bad_color": _BAD_COLOR}, scope)
    _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """Up to max_outputs clips of a [batch, frames] or [batch, frames, channels] float tensor
    (samples in [-1, 1]) as 16-bit WAV, tagged name/audio[/i]."""
    if int(max_outputs) < 1:
        raise ValueError("max_outputs must be >= 1, got %d" % int(max_outputs))
    with _SummaryScope(name, family) as (tag, scope):
        rate = convert_to_tensor(sample_rate, dtype=dtypes.float32)
        val = _summary_op("AudioSummaryV2", [convert_to_tensor(tag, dtype=dtypes.string), tensor, rate],
                          {"max_outputs": int(max_outputs)}, scope)
    _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def tensor_summary(name, tensor, summary_description=None, collections=None, summary_metadata=None,
                   family=None, display_name=None):
    """A Summary holding `tensor` itself (TensorSummaryV2), with its SummaryMetadata."""
    if summary_metadata is None:
        summary_metadata = SummaryMetadata()
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    serialized = summary_metadata.SerializeToString()
    with _SummaryScope(name, family) as (tag, scope):
        val = _summary_op("TensorSummaryV2", [convert_to_tensor(tag, dtype=dtypes.string), tensor,
                                              convert_to_tensor(serialized, dtype=dtypes.string)], None, scope)
    _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def text(name, tensor, collections=None):
    """A string tensor for TensorBoard's text plugin."""
    tensor = convert_to_tensor(tensor)
    if tensor.dtype != dtypes.string:
        raise ValueError("Expected tensor %s to have dtype string, got %s" % (tensor.name, tensor.dtype))
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name, tensor, summary_metadata=metadata, collections=collections)


def merge(inputs, collections=None, name=None):
    """One Summary with the values of every input; duplicate tags fail the step."""
    inputs = list(inputs)
    if not inputs:
        raise ValueError("tf.summary.merge needs at least one input")
    val = _op_output("MergeSummary", inputs, None, name or "Merge/MergeSummary")
    _collect(val, collections, [])
    return val


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """merge() of the collection `key` (optionally filtered by scope); None when it is empty."""
    summary_ops = get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, name=name)


def _as_serialized(value, message_class, what):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if hasattr(value, "SerializeToString"):
        return value.SerializeToString()
    if hasattr(value, "as_graph_def"):  # a Graph
        return _as_serialized(value.as_graph_def(), message_class, what)
    raise TypeError("%s must be a %s or its serialized bytes, got %r" % (what, message_class, type(value)))


class FileWriter:
    """Writes Event protos to logdir/events.out.tfevents.<time>.<host><suffix> (TF 1.x's
    tf.summary.FileWriter). Events are queued and written when more than max_queue wait,
    on flush(), and every flush_secs by a C++ background thread."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        if session is not None:
            raise NotImplementedError("FileWriter(session=...) (TF 2 summary writers) is not supported")
        self._logdir = str(logdir)
        self._max_queue = int(max_queue)
        self._flush_secs = float(flush_secs)
        self._suffix = filename_suffix or ""
        self._seen_summary_tags = set()
        self._writer = None
        self._open()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def _open(self):
        self._writer = _core.EventsWriter(self._logdir, self._suffix, self._max_queue, self._flush_secs)
        self._closed = False
        _open_writers.add(self)

    def get_logdir(self):
        return self._logdir

    @property
    def event_file(self):
        """The path of the current event file (tensorweave's addition)."""
        return self._writer.path

    def add_event(self, event):
        """Writes `event` (an Event or its bytes) as it is; ignored once closed, as TF."""
        if self._closed:
            return
        self._writer.write_event(_as_serialized(event, "Event", "event"))

    def _add_event(self, event, step):
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Adds a Summary (or the bytes a summary op returned) at `global_step`. Like TF, a
        tag's metadata is written only with its first value."""
        if isinstance(summary, (bytes, bytearray)):
            parsed = Summary()
            parsed.ParseFromString(bytes(summary))
            summary = parsed
        elif not isinstance(summary, Summary):
            summary_copy = Summary()
            summary_copy.ParseFromString(_as_serialized(summary, "Summary", "summary"))
            summary = summary_copy
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        event = Event()
        event.summary.CopyFrom(summary)
        self._add_event(event, global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Adds the GraphDef of `graph` (a Graph, GraphDef or its bytes) for TensorBoard's graph tab."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        source = graph if graph is not None else graph_def
        event = Event(graph_def=_as_serialized(source, "GraphDef", "graph"))
        self._add_event(event, global_step)

    def add_session_log(self, session_log, global_step=None):
        event = Event()
        event.session_log.CopyFrom(session_log)
        self._add_event(event, global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Adds a RunMetadata under `tag` (TensorBoard's per-step stats)."""
        from tensorweave.config import RunMetadata
        if isinstance(run_metadata, RunMetadata):
            data = run_metadata.SerializeToString()
        else:
            data = _as_serialized(run_metadata, "RunMetadata", "run_metadata")
        event = Event(tagged_run_metadata=TaggedRunMetadata(tag=tag, run_metadata=data))
        self._add_event(event, global_step)

    def flush(self):
        if not self._closed:
            self._writer.flush()

    def close(self):
        if not self._closed:
            self._closed = True
            self._writer.close()

    def reopen(self):
        """After close(): a new event file in the same logdir."""
        if self._closed:
            self._open()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


# Writers a program never closed still reach their files when it exits.
_open_writers = weakref.WeakSet()


@atexit.register
def _close_open_writers():
    for writer in list(_open_writers):
        try:
            writer.close()
        except Exception:  # noqa: BLE001 - exiting: one bad writer must not stop the others
            pass


def summary_iterator(path):
    """Yields each Event of an event file (tf.compat.v1.train.summary_iterator). A damaged or
    truncated record, or one that is not an Event, raises DataLossError naming the file."""
    from google.protobuf.message import DecodeError
    reader = _core.RecordReader(os.fspath(path), "")
    while True:
        try:
            record = reader.read()
        except errors.OutOfRangeError:
            return
        event = Event()
        try:
            event.ParseFromString(record)
        except DecodeError as e:
            raise errors.DataLossError(None, None, "%s: a record is not an Event (%s)" % (path, e))
        yield event
