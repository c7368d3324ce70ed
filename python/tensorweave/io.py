"""tf.io: Example parsing and TFRecord files (the TF 1.13+ names)."""
from tensorweave.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature,  # noqa: F401
                                     decode_csv, parse_example, parse_single_example)
from tensorweave.python_io import TFRecordWriter, tf_record_iterator  # noqa: F401
from tensorweave.string_ops import decode_raw  # noqa: F401,E402
