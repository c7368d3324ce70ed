"""tf.gfile on the local file system: values and TensorFlow's error types."""
import os

import pytest

import tensorweave as tf


def test_directories_files_and_listing(tmp_path):
    root = str(tmp_path / "a")
    tf.gfile.MakeDirs(os.path.join(root, "b", "c"))
    tf.gfile.MakeDirs(os.path.join(root, "b"))  # existing: fine
    assert tf.gfile.IsDirectory(os.path.join(root, "b")) and tf.gfile.Exists(root)
    with tf.gfile.GFile(os.path.join(root, "x.txt"), "w") as f:
        f.write("line 1\nline 2\n")
    with tf.gfile.Open(os.path.join(root, "y.bin"), "wb") as f:
        f.write(b"\x00\x01\x02")
    assert tf.gfile.ListDirectory(root) == ["b", "x.txt", "y.bin"]
    assert tf.gfile.Glob(os.path.join(root, "*.txt")) == [os.path.join(root, "x.txt")]
    assert tf.gfile.Stat(os.path.join(root, "y.bin")).length == 3
    with tf.gfile.GFile(os.path.join(root, "x.txt")) as f:
        assert f.size() == 14
        assert f.readline() == "line 1\n"
        assert list(f) == ["line 2\n"]
        f.seek(5)
        assert f.tell() == 5 and f.read() == "1\nline 2\n"
    with tf.gfile.FastGFile(os.path.join(root, "y.bin"), "rb") as f:
        assert f.read() == b"\x00\x01\x02"
    walked = list(tf.gfile.Walk(root))
    assert walked[0] == (root, ["b"], ["x.txt", "y.bin"])
    assert [w[0] for w in walked] == [root, os.path.join(root, "b"), os.path.join(root, "b", "c")]


def test_rename_copy_remove_and_their_errors(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    with tf.gfile.GFile(a, "w") as f:
        f.write("A")
    tf.gfile.Copy(a, b)
    with pytest.raises(tf.errors.AlreadyExistsError, match="File exists"):
        tf.gfile.Copy(a, b)
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.gfile.Rename(a, b)
    tf.gfile.Rename(a, b, overwrite=True)
    assert not tf.gfile.Exists(a) and open(b).read() == "A"
    tf.gfile.Remove(b)
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        tf.gfile.Remove(b)
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.GFile(str(tmp_path / "missing"))
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.ListDirectory(str(tmp_path / "missing"))
    d = str(tmp_path / "d")
    tf.gfile.MkDir(d)
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.gfile.MkDir(d)
    tf.gfile.MakeDirs(os.path.join(d, "e", "f"))
    tf.gfile.DeleteRecursively(d)
    assert not tf.gfile.Exists(d)
