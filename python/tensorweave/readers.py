"""TF 1.x readers (tf.TFRecordReader, tf.TextLineReader, tf.FixedLengthRecordReader,
tf.WholeFileReader): read(queue) takes file names from a queue of strings (e.g.
tf.train.string_input_producer) and returns a (key, value) pair of scalar strings;
read_up_to(queue, n) up to n of them as vectors."""
from tensorweave import dtypes
from tensorweave.framework import _op, convert_to_tensor


def _queue_ref(queue):
    return queue.queue_ref if hasattr(queue, "queue_ref") else queue


class ReaderBase:
    def __init__(self, op_type, attrs, name):
        self._reader_ref = _op(op_type, [], attrs, name).outputs[0]

    reader_ref = property(lambda self: self._reader_ref)
    supports_serialize = False

    def _name(self, name, suffix):
        return name or self._reader_ref.op.name.split("/")[-1] + suffix

    def read(self, queue, name=None):
        op = _op("ReaderReadV2", [self._reader_ref, _queue_ref(queue)], {}, self._name(name, "_ReaderReadV2"))
        return op.outputs[0], op.outputs[1]

    def read_up_to(self, queue, num_records, name=None):
        op = _op("ReaderReadUpToV2", [self._reader_ref, _queue_ref(queue),
                                      convert_to_tensor(num_records, dtype=dtypes.int64)], {},
                 self._name(name, "_ReaderReadUpToV2"))
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name=None):
        return _op("ReaderNumRecordsProducedV2", [self._reader_ref], {},
                   self._name(name, "_ReaderNumRecordsProducedV2")).outputs[0]

    def num_work_units_completed(self, name=None):
        return _op("ReaderNumWorkUnitsCompletedV2", [self._reader_ref], {},
                   self._name(name, "_ReaderNumWorkUnitsCompletedV2")).outputs[0]

    def reset(self, name=None):
        return _op("ReaderResetV2", [self._reader_ref], {}, self._name(name, "_ReaderResetV2"))


def _compression(options):
    if options is None:
        return ""
    if isinstance(options, str):
        return options
    kind = getattr(options, "compression_type", "")
    names = {0: "", 1: "ZLIB", 2: "GZIP"}
    return names.get(kind, kind) if not isinstance(kind, str) else kind


class TFRecordReader(ReaderBase):
    def __init__(self, name=None, options=None):
        super().__init__("TFRecordReaderV2", {"compression_type": _compression(options)}, name or "TFRecordReaderV2")


class TextLineReader(ReaderBase):
    def __init__(self, skip_header_lines=None, name=None):
        super().__init__("TextLineReaderV2", {"skip_header_lines": int(skip_header_lines or 0)},
                         name or "TextLineReaderV2")


class FixedLengthRecordReader(ReaderBase):
    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None, name=None, encoding=None):
        super().__init__("FixedLengthRecordReaderV2",
                         {"record_bytes": int(record_bytes), "header_bytes": int(header_bytes or 0),
                          "footer_bytes": int(footer_bytes or 0), "hop_bytes": int(hop_bytes or 0),
                          "encoding": encoding or ""}, name or "FixedLengthRecordReaderV2")


class WholeFileReader(ReaderBase):
    def __init__(self, name=None):
        super().__init__("WholeFileReaderV2", {}, name or "WholeFileReaderV2")
