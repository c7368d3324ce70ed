"""tf.train.SessionManager as TensorFlow 1.x: a new session's model made ready. The chief
restores the latest checkpoint or runs the init op (prepare_session); other tasks wait
until the chief has done so (wait_for_session); both then run the local init op."""
import time

import numpy as np

from tensorweave import errors
from tensorweave import tf_logging as logging
from tensorweave.framework import get_default_graph
from tensorweave.session import Session
from tensorweave.variables import global_variables, report_uninitialized_variables


def uninitialized_variables_report(var_list=None):
    """The readiness op the Supervisor and SessionManager use by default, as TensorFlow's:
    tf.report_uninitialized_variables(var_list). None without variables (always ready)."""
    var_list = global_variables() if var_list is None else list(var_list)
    if not var_list:
        return None
    return report_uninitialized_variables(var_list)


def _not_ready_message(value):
    """None when a ready op's value says ready, else the message naming what is not.
    As TF: no op, an int32 value (assert ops) or an empty one is ready; strings name the
    uninitialized variables."""
    if value is None:
        return None
    value = np.asarray(value)
    if value.dtype == np.int32 or value.size == 0:
        return None
    return "Variables not initialized: " + ", ".join(
        v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in value.reshape(-1))


def _maybe_name(obj):
    if obj is None:
        return None
    return getattr(obj, "name", None) or "<no name for %s>" % type(obj)


class SessionManager:
    """Creates sessions whose model is ready: restored or initialized by the chief
    (prepare_session), waited for by the others (wait_for_session)."""

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None, graph=None,
                 recovery_wait_secs=30, local_init_run_options=None, local_init_feed_dict=None):
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph or get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_feed_dict = local_init_feed_dict
        self._target = None
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError("If you pass a ready_for_local_init_op you must also pass a local_init_op , "
                             "ready_for_local_init_op [%s]" % ready_for_local_init_op)

    def _restore_checkpoint(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                            wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        from tensorweave.train import latest_checkpoint
        self._target = master
        sess = Session(self._target, graph=self._graph, config=config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and checkpoint_filename_with_path.")
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        wait_time = 0
        path = latest_checkpoint(checkpoint_dir)
        while not path:
            if wait_for_checkpoint and wait_time < max_wait_secs:
                logging.info("Waiting for checkpoint to be available.")
                time.sleep(self._recovery_wait_secs)
                wait_time += self._recovery_wait_secs
                path = latest_checkpoint(checkpoint_dir)
            else:
                return sess, False
        saver.restore(sess, path)
        logging.info("Restored model from %s", path)
        return sess, True

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        wait_for_checkpoint=False, max_wait_secs=7200, config=None, init_feed_dict=None,
                        init_fn=None):
        """A session whose model is restored from the latest checkpoint of checkpoint_dir
        (with a saver) or else initialized by init_op and init_fn; RuntimeError when it is
        still not ready."""
        sess, restored = self._restore_checkpoint(master, saver, checkpoint_dir, checkpoint_filename_with_path,
                                                  wait_for_checkpoint, max_wait_secs, config)
        if not restored:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was given")
            if init_op is not None:
                _run_once_tasks_serve(sess, init_op, init_feed_dict, max_wait_secs, self._recovery_wait_secs)
            if init_fn:
                init_fn(sess)
        ready_for_local, msg = self._try_run_local_init_op(sess)
        if not ready_for_local:
            raise RuntimeError("Init operations did not make model ready for local_init.  Init op: %s, init fn: %s, "
                               "error: %s" % (_maybe_name(init_op), init_fn, msg))
        ready, msg = self._model_ready(sess)
        if not ready:
            raise RuntimeError("Init operations did not make model ready.  Init op: %s, init fn: %s, local_init_op: %s, "
                               "error: %s" % (_maybe_name(init_op), init_fn, self._local_init_op, msg))
        return sess

    def recover_session(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        """(session, whether its model is ready): restored from a checkpoint when there is one."""
        sess, restored = self._restore_checkpoint(master, saver, checkpoint_dir, checkpoint_filename_with_path,
                                                  wait_for_checkpoint, max_wait_secs, config)
        ready_for_local, msg = self._try_run_local_init_op(sess)
        if not restored:
            return sess, False
        if not ready_for_local:
            logging.info("Restoring model from %s did not make model ready for local init: %s", checkpoint_dir, msg)
            return sess, False
        ready, msg = self._model_ready(sess)
        if not ready:
            logging.info("Restoring model from %s did not make model ready: %s", checkpoint_dir, msg)
            return sess, False
        return sess, True

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """A session once another task (the chief) has made the model ready, checked every
        recovery_wait_secs; DeadlineExceededError after max_wait_secs."""
        self._target = master
        if max_wait_secs is None:
            max_wait_secs = float("Inf")
        start = time.time()
        while True:
            sess = Session(self._target, graph=self._graph, config=config)
            ready, msg = self._try_run_local_init_op(sess)
            if ready:
                ready, msg = self._model_ready(sess)
                if ready:
                    return sess
            _safe_close(sess)
            remaining = max_wait_secs - (time.time() - start)
            if remaining < self._recovery_wait_secs:
                raise errors.DeadlineExceededError(None, None, "Session was not ready after waiting %d secs."
                                                   % (max_wait_secs,))
            logging.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, ready: %s", msg, msg)
            time.sleep(self._recovery_wait_secs)

    def _model_ready(self, sess):
        return _ready(self._ready_op, sess)

    def _try_run_local_init_op(self, sess):
        if self._local_init_op is None:
            return True, None
        ready, msg = _ready(self._ready_for_local_init_op, sess)
        if not ready:
            return False, msg
        logging.info("Running local_init_op.")
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict)
        logging.info("Done running local_init_op.")
        return True, None


def _run_once_tasks_serve(sess, op, feed_dict, max_wait_secs, poll_secs):
    """Runs op, retrying while a task of the cluster is not serving yet (UnavailableError),
    as TF's master waits at CreateSession for every task of the cluster; the error after
    max_wait_secs."""
    deadline = time.time() + max_wait_secs
    while True:
        try:
            return sess.run(op, feed_dict=feed_dict)
        except errors.UnavailableError as e:
            if time.time() + poll_secs > deadline:
                raise
            logging.info("Waiting for the cluster's tasks to serve: %s", e)
            time.sleep(min(poll_secs, 1.0))


def _ready(op, sess):
    """(ready, message): runs the readiness op; a FailedPreconditionError about
    uninitialized values means not ready, as TF; so does a task not serving yet
    (UnavailableError), which TF's master waits for when it creates the session."""
    if op is None:
        return True, None
    try:
        msg = _not_ready_message(sess.run(op))
    except errors.UnavailableError as e:
        return False, "a task is not serving yet: %s" % e
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e).lower():
            logging.warning("Model not ready raised: %s", str(e))
            raise
        return False, str(e)
    return msg is None, msg


def _safe_close(sess):
    try:
        sess.close()
    except Exception:  # pylint: disable=broad-except - the session is being abandoned.
        pass

