"""Reading checkpoints by variable name (tf.train.NewCheckpointReader, list_variables,
load_variable, load_checkpoint): TensorFlow's V2 format, through the C++ bundle reader."""
import os

from tensorweave import _core, dtypes, errors


def _prefix(ckpt_dir_or_file):
    """A directory means its latest checkpoint (as TF's checkpoint_utils)."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = _core.latest_checkpoint(path)
        if not latest:
            raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory %s" % path)
        return latest
    return path


class CheckpointReader:
    """The tensors of one checkpoint, by name."""

    def __init__(self, prefix):
        self._prefix = prefix
        self._entries = {name: (dtype, list(dims)) for name, dtype, dims in _core.checkpoint_entries(prefix)}

    def get_variable_to_shape_map(self):
        return {name: list(shape) for name, (_, shape) in self._entries.items()}

    def get_variable_to_dtype_map(self):
        return {name: dtypes.as_dtype(dtype) for name, (dtype, _) in self._entries.items()}

    def has_tensor(self, name):
        return name in self._entries

    def get_tensor(self, name):
        if name not in self._entries:
            raise errors.NotFoundError(None, None, "Key %s not found in checkpoint" % name)
        return _core.checkpoint_tensor(self._prefix, name)


def NewCheckpointReader(filepattern):  # noqa: N802 - TensorFlow's name
    if not os.path.exists(os.fspath(filepattern) + ".index"):
        raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                   "matching files for %s" % os.fspath(filepattern))
    return CheckpointReader(os.fspath(filepattern))


def load_checkpoint(ckpt_dir_or_file):
    return NewCheckpointReader(_prefix(ckpt_dir_or_file))


def load_variable(ckpt_dir_or_file, name):
    """The value of `name` ("v:0" is read as "v", as TF does)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """[(name, shape)], sorted by name."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return sorted(reader.get_variable_to_shape_map().items())
