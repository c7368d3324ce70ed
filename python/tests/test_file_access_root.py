"""A server's file_access_root (issue 14 item 13) from Python: tf.train.Server confines
Saver's files to it; a local session does not."""
import os

import pytest

import tensorweave as tf
from conftest import free_port


def test_server_file_access_root_confines_saver(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.symlink(outside, root / "escape")
    cluster = tf.train.ClusterSpec({"local": ["localhost:%d" % free_port()]})
    server = tf.train.Server(cluster, job_name="local", task_index=0, file_access_root=str(root))
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        saver = tf.train.Saver()
        with tf.Session(server.target) as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(root / "model"))
            assert os.path.exists(path + ".index")
            for prefix in (outside / "model", root / ".." / "outside" / "model", root / "escape" / "model"):
                with pytest.raises(tf.errors.PermissionDeniedError,
                                   match="is outside this server's file access root '%s'" % os.path.realpath(root)):
                    saver.save(sess, str(prefix))
            assert not os.listdir(outside)
            saver.restore(sess, path)
            assert list(sess.run(v)) == [1.0, 2.0]
        # A local session has no root.
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert os.path.exists(saver.save(sess, str(outside / "model")) + ".index")


def test_a_missing_root_is_refused(tmp_path):
    cluster = tf.train.ClusterSpec({"local": ["localhost:%d" % free_port()]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="is not an existing directory"):
        tf.train.Server(cluster, job_name="local", task_index=0, file_access_root=str(tmp_path / "none"))


def test_print_to_a_file_stays_inside_the_root(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    cluster = tf.train.ClusterSpec({"local": ["localhost:%d" % free_port()]})
    server = tf.train.Server(cluster, job_name="local", task_index=0, file_access_root=str(root))
    with tf.Graph().as_default():
        inside = tf.print("kept", output_stream="file://%s" % (root / "log.txt"))
        escape = tf.print("lost", output_stream="file://%s" % (outside / "log.txt"))
        with tf.Session(server.target) as sess:
            sess.run(inside)
            with pytest.raises(tf.errors.PermissionDeniedError, match="outside this server's file access root"):
                sess.run(escape)
    assert (root / "log.txt").read_text() == "kept\n"
    assert not os.listdir(outside)
