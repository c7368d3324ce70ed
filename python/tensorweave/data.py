"""tf.data and tf.compat.v1.data: the names of TF 1.x's module (implemented in
data_ops.py)."""
import types as _types

from tensorweave.data_ops import (AUTOTUNE, Dataset, FixedLengthRecordDataset, Iterator,  # noqa: F401
                                  TextLineDataset, TFRecordDataset, make_initializable_iterator,
                                  make_one_shot_iterator)

from tensorweave.iterator_saveable import make_saveable_from_iterator  # noqa: E402

experimental = _types.SimpleNamespace(AUTOTUNE=AUTOTUNE, make_saveable_from_iterator=make_saveable_from_iterator)


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes
