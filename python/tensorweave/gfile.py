"""tf.gfile: TensorFlow 1.x's file API on the local file system (os, shutil, glob), raising
TensorFlow's errors: NotFoundError for a missing path, AlreadyExistsError where TF's
would, PermissionDeniedError, FailedPreconditionError for a directory given as a file."""
import errno as _errno
import glob as _glob
import os as _os
import shutil as _shutil

from tensorweave import errors as _errors

__all__ = ["Exists", "IsDirectory", "MakeDirs", "MkDir", "Remove", "DeleteRecursively", "Rename", "Copy",
           "Glob", "ListDirectory", "Stat", "Walk", "GFile", "Open", "FastGFile"]


def _raise(e, path):
    if isinstance(e, FileNotFoundError):
        raise _errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    if isinstance(e, FileExistsError):
        raise _errors.AlreadyExistsError(None, None, f"{path}; File exists") from None
    if isinstance(e, PermissionError):
        raise _errors.PermissionDeniedError(None, None, f"{path}; Permission denied") from None
    if isinstance(e, (IsADirectoryError, NotADirectoryError)) or getattr(e, "errno", None) == _errno.ENOTEMPTY:
        raise _errors.FailedPreconditionError(None, None, f"{path}; {e.strerror}") from None
    raise _errors.UnknownError(None, None, f"{path}; {e}") from None


def Exists(filename):  # noqa: N802 - TF1's names
    return _os.path.exists(filename)


def IsDirectory(dirname):  # noqa: N802
    return _os.path.isdir(dirname)


def MakeDirs(dirname):  # noqa: N802
    """Creates the directory and its parents; an existing directory is fine."""
    try:
        _os.makedirs(dirname, exist_ok=True)
    except OSError as e:
        _raise(e, dirname)


def MkDir(dirname):  # noqa: N802
    try:
        _os.mkdir(dirname)
    except OSError as e:
        _raise(e, dirname)


def Remove(filename):  # noqa: N802
    try:
        _os.remove(filename)
    except OSError as e:
        _raise(e, filename)


def DeleteRecursively(dirname):  # noqa: N802
    try:
        if _os.path.isdir(dirname) and not _os.path.islink(dirname):
            _shutil.rmtree(dirname)
        else:
            _os.remove(dirname)
    except OSError as e:
        _raise(e, dirname)


def Rename(oldname, newname, overwrite=False):  # noqa: N802
    if not overwrite and _os.path.exists(newname):
        raise _errors.AlreadyExistsError(None, None, f"{newname}; File exists")
    try:
        _os.replace(oldname, newname)
    except OSError as e:
        _raise(e, oldname)


def Copy(oldpath, newpath, overwrite=False):  # noqa: N802
    if not overwrite and _os.path.exists(newpath):
        raise _errors.AlreadyExistsError(None, None, f"{newpath}; File exists")
    try:
        _shutil.copyfile(oldpath, newpath)
    except OSError as e:
        _raise(e, oldpath)


def Glob(filename):  # noqa: N802
    return sorted(_glob.glob(filename))


def ListDirectory(dirname):  # noqa: N802
    """The entries' names (not paths), without "." and ".."."""
    try:
        return sorted(_os.listdir(dirname))
    except OSError as e:
        _raise(e, dirname)


class FileStatistics:
    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


def Stat(filename):  # noqa: N802
    try:
        st = _os.stat(filename)
    except OSError as e:
        _raise(e, filename)
    return FileStatistics(st.st_size, st.st_mtime_ns, _os.path.isdir(filename))


def Walk(top, in_order=True):  # noqa: N802
    """(dirname, subdirectory names, file names) for top and each directory below it."""
    for dirname, subdirs, files in _os.walk(top, topdown=in_order):
        yield dirname, sorted(subdirs), sorted(files)


class GFile:
    """A file object: read/readline/readlines/iteration/write/seek/tell/size/flush/close, a
    context manager. Text unless the mode has 'b' (then bytes), as TF's."""

    def __init__(self, name, mode="r"):
        self.name, self.mode = name, mode
        try:
            self._f = open(name, mode, encoding=None if "b" in mode else "utf-8")
        except OSError as e:
            _raise(e, name)

    def read(self, n=-1):
        return self._f.read(n)

    def readline(self):
        return self._f.readline()

    def readlines(self):
        return self._f.readlines()

    def write(self, data):
        if "b" not in self.mode and isinstance(data, bytes):
            data = data.decode("utf-8")
        self._f.write(data)

    def seek(self, offset=None, whence=0, position=None):
        self._f.seek(position if offset is None else offset, whence)

    def tell(self):
        return self._f.tell()

    def size(self):
        return _os.fstat(self._f.fileno()).st_size

    def flush(self):
        self._f.flush()

    def close(self):
        self._f.close()

    def __iter__(self):
        return iter(self._f)

    def __next__(self):
        return next(self._f)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


Open = GFile
FastGFile = GFile
