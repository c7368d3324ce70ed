"""Reading checkpoints as TF1 does: tf.train.load_checkpoint / NewCheckpointReader (a
CheckpointReader: get_tensor, get_variable_to_shape_map, ...), tf.train.list_variables and
tf.train.load_variable, on TF's V2 checkpoints (a partitioned variable read whole, under its
full name) and tensorweave's TWCKPT01 files, with TF's error texts."""
import os

from tensorweave import _core, dtypes, errors


class CheckpointReader:
    """The tensors of one checkpoint (TF's pywrap CheckpointReader)."""

    def __init__(self, prefix):
        self._prefix = prefix
        self._file = _core.CheckpointFile(prefix)
        self._entries = {name: (dtype, list(dims)) for name, dtype, dims in self._file.entries()}

    def get_variable_to_shape_map(self):
        return {name: list(dims) for name, (_, dims) in self._entries.items()}

    def get_variable_to_dtype_map(self):
        return {name: dtypes.DType(dtype) for name, (dtype, _) in self._entries.items()}

    def has_tensor(self, tensor_str):
        return tensor_str in self._entries

    def get_tensor(self, tensor_str):
        """The tensor's value as a NumPy array."""
        if tensor_str not in self._entries:
            raise errors.NotFoundError(None, None, "Key %s not found in checkpoint" % tensor_str)
        return self._file.read(tensor_str)

    def debug_string(self):
        return "".join("%s (%s) %s\n" % (name, dtypes.DType(dtype).name, dims)
                       for name, (dtype, dims) in sorted(self._entries.items())).encode()


def NewCheckpointReader(filepattern):  # noqa: N802 - TensorFlow's name.
    prefix = os.fspath(filepattern)
    if not os.path.exists(prefix + ".index") and not os.path.isfile(prefix):  # V2, or a TWCKPT01 file
        raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                   "matching files for %s" % prefix)
    return CheckpointReader(prefix)


def _checkpoint_prefix(ckpt_dir_or_file):
    """A directory means its latest checkpoint (as TF's checkpoint_utils)."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = _core.latest_checkpoint(path)
        if not latest:
            raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory %s" % path)
        return latest
    return path


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader of the checkpoint, or of a directory's latest one."""
    return NewCheckpointReader(_checkpoint_prefix(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of every tensor in the checkpoint, by name."""
    return sorted(load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map().items())


def load_variable(ckpt_dir_or_file, name):
    """One tensor's value; a trailing ":0" of the name is dropped, as TF does."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
