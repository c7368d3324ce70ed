"""tf.python_io: TFRecord files, TensorFlow's record container (read by tf.data.TFRecordDataset),
uncompressed or with TensorFlow's GZIP / ZLIB compression (TFRecordOptions)."""
from tensorweave import _core


class TFRecordCompressionType:
    NONE = 0
    ZLIB = 1
    GZIP = 2


_COMPRESSION_NAMES = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
                      TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """TF's options object; only the compression type matters here."""

    def __init__(self, compression_type=None, **kwargs):  # noqa: ARG002 - zlib tuning of TF's
        self.compression_type = compression_type

    @classmethod
    def get_compression_type_string(cls, options):
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            options = options.compression_type
        if options is None or isinstance(options, str):
            return options or ""
        if options in _COMPRESSION_NAMES:
            return _COMPRESSION_NAMES[options]
        raise ValueError(f"unknown TFRecord compression type {options!r}")


def _as_bytes(record):
    if isinstance(record, str):
        return record.encode("utf-8")
    return bytes(record)


class TFRecordWriter:
    """Writes records to a TFRecord file: write(record), flush(), close(); a context manager."""

    def __init__(self, path, options=None):
        self._writer = _core.RecordWriter(str(path), TFRecordOptions.get_compression_type_string(options))

    def write(self, record):
        self._writer.write(_as_bytes(record))

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def tf_record_iterator(path, options=None):
    """Yields each record of a TFRecord file as bytes; a damaged record raises DataLossError."""
    from tensorweave import errors
    reader = _core.RecordReader(str(path), TFRecordOptions.get_compression_type_string(options))
    while True:
        try:
            yield reader.read()
        except errors.OutOfRangeError:
            return
