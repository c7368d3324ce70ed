"""tf.train.Supervisor as TensorFlow 1.x had it: a training program's session made ready
(the chief restores the latest checkpoint of logdir or initializes; other tasks wait),
checkpoints every save_model_secs from a background thread, a Coordinator to stop the
loop, and managed_session() to put it together.

Differences from TensorFlow: summaries are not written (summary_op is accepted; a real op
gets a one-time warning), and the chief also saves a checkpoint when it stops, so a
restarted program resumes from the last step rather than the last timer tick."""
import contextlib
import os

from tensorweave import errors
from tensorweave import tf_logging as logging
from tensorweave.array_ops import group
from tensorweave.coordinator import Coordinator, LooperThread
from tensorweave.framework import GraphKeys, get_collection, get_default_graph
from tensorweave.session_manager import SessionManager, uninitialized_variables_report
from tensorweave.variables import global_variables, global_variables_initializer, local_variables_initializer

# Collections TF's Supervisor reads its defaults from (and stores the ones it makes in).
_READY_OP = "ready_op"
_READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
_INIT_OP = "init_op"
_LOCAL_INIT_OP = "local_init_op"
_SAVERS = "savers"
_SUMMARY_OP = "summary_op"

_warned = set()


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        logging.warning(message)


class Supervisor:
    """A training program's session, checkpoints and stop (tf.train.Supervisor)."""

    # Value of an argument meaning "make the usual one" (None means "none").
    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT, is_chief=True,
                 init_op=USE_DEFAULT, init_feed_dict=None, local_init_op=USE_DEFAULT, logdir=None,
                 summary_op=USE_DEFAULT, saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120, checkpoint_basename="model.ckpt",
                 session_manager=None, summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        self._graph = graph or get_default_graph()
        with self._graph.as_default():
            self._init_ready_op(ready_op, ready_for_local_init_op)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_summary_op(summary_op, summary_writer)
            self._init_global_step(global_step)
        self._is_chief = bool(is_chief)
        self._coord = Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        # As TF: only the chief writes to logdir; the others only read its variables.
        self._logdir = logdir if self._is_chief else None
        self._save_path = os.path.join(logdir, checkpoint_basename) if self._logdir else None
        if self._logdir:
            # TF's chief creates logdir at once (its graph.pbtxt and events go there): the
            # checkpoints must not fail on a directory nobody made.
            os.makedirs(self._logdir, exist_ok=True)
        self._save_model_secs = save_model_secs
        self._save_summaries_secs = save_summaries_secs
        self._started_threads = []
        self._queue_runners = []
        self._session_to_save = None  # The chief's, saved once more by stop().
        if session_manager is None:
            session_manager = SessionManager(local_init_op=self._local_init_op, ready_op=self._ready_op,
                                             ready_for_local_init_op=self._ready_for_local_init_op,
                                             graph=self._graph, recovery_wait_secs=self._recovery_wait_secs)
        self._session_manager = session_manager
        with self._graph.as_default():
            self._verify_setup()
        self._graph.finalize()

    # ---- defaults, as TF picks them: the graph's collection first, else a new op
    def _first_of(self, key):
        items = get_collection(key)
        return items[0] if items else None

    def _default(self, value, key, make):
        """`value`, or for USE_DEFAULT the first of collection `key`, else make()."""
        if value is not Supervisor.USE_DEFAULT:
            return value
        found = self._first_of(key)
        return make() if found is None else found

    def _init_ready_op(self, ready_op, ready_for_local_init_op):
        self._ready_op = self._default(ready_op, _READY_OP, uninitialized_variables_report)
        self._ready_for_local_init_op = self._default(ready_for_local_init_op, _READY_FOR_LOCAL_INIT_OP,
                                                      lambda: uninitialized_variables_report(global_variables()))

    def _init_init_op(self, init_op, init_feed_dict):
        self._init_op = self._default(init_op, _INIT_OP, global_variables_initializer)
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op):
        self._local_init_op = self._default(local_init_op, _LOCAL_INIT_OP,
                                            lambda: group(local_variables_initializer(), name="local_init_op"))

    def _init_saver(self, saver):
        if saver is Supervisor.USE_DEFAULT:
            saver = self._first_of(_SAVERS)
            if saver is None and global_variables():
                from tensorweave.train import Saver
                saver = Saver()
        self._saver = saver

    def _init_summary_op(self, summary_op, summary_writer):
        if summary_op is Supervisor.USE_DEFAULT:
            summary_op = self._first_of(_SUMMARY_OP)
        self._summary_op = summary_op
        if summary_op is not None and summary_writer in (None, Supervisor.USE_DEFAULT):
            _warn_once("summary_op", "Supervisor: summary_op %s is accepted but no summaries are written "
                                     "(tensorweave has no summary writer yet)" % getattr(summary_op, "name", summary_op))
        self._summary_writer = None

    def _init_global_step(self, global_step):
        if global_step is Supervisor.USE_DEFAULT:
            global_step = self._first_of(GraphKeys.GLOBAL_STEP)
            if global_step is None:
                try:
                    global_step = self._graph.as_graph_element("global_step:0")
                except (KeyError, ValueError, TypeError, errors.NotFoundError):
                    global_step = None
            if global_step is not None and global_step.dtype.name not in ("int32", "int64"):
                logging.warning("Found 'global_step' is not an int type: %s", global_step.dtype)
                global_step = None
        self._global_step = global_step

    def _verify_setup(self):
        """As TF: a non-chief's variables must be placed (on the parameter servers)."""
        if self._is_chief:
            return
        for v in global_variables():
            if not v.device:
                raise ValueError("When using replicas, all Variables must have their device set: %s" % v.op.name)

    # ---- properties
    @property
    def is_chief(self):
        return self._is_chief

    @property
    def session_manager(self):
        return self._session_manager

    @property
    def coord(self):
        return self._coord

    @property
    def init_op(self):
        return self._init_op

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        return self._ready_for_local_init_op

    @property
    def local_init_op(self):
        return self._local_init_op

    @property
    def summary_writer(self):
        return self._summary_writer

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def save_summaries_secs(self):
        return self._save_summaries_secs

    @property
    def global_step(self):
        return self._global_step

    @property
    def saver(self):
        return self._saver

    @property
    def save_model_secs(self):
        return self._save_model_secs

    @property
    def save_path(self):
        return self._save_path

    @property
    def logdir(self):
        return self._logdir

    # ---- sessions
    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False, max_wait_secs=7200,
                                    start_standard_services=True):
        """The chief: a session restored from logdir's latest checkpoint or initialized,
        with the checkpoint thread started. The others: a session once the chief made the
        model ready (checked every recovery_wait_secs)."""
        self._coord.clear_stop()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self._init_op, saver=self._saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config,
                init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            if start_standard_services:
                logging.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config, max_wait_secs=max_wait_secs)
        return sess

    def start_standard_services(self, sess):
        """Starts the checkpoint thread (the chief's, with a logdir and save_model_secs > 0)."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. "
                               "Because only chief supervisors can write events.")
        threads = []
        if self._saver is not None and self._save_path and self._save_model_secs and self._save_model_secs > 0:
            threads.append(_CheckpointThread(self, sess))
            self._session_to_save = sess
        for t in threads:
            t.start()
        self._started_threads.extend(threads)
        return threads

    def start_queue_runners(self, sess, queue_runners=None):
        """Starts the runners given (a SyncReplicasOptimizer's chief queue runner: its sync
        loop, stopped with the supervisor). tensorweave has no QueueRunner collection."""
        for runner in queue_runners or []:
            runner.start(sess.sess_str)
            self._queue_runners.append(runner)
        return []

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Calls target(*args, **kwargs) every timer_interval_secs in a thread until stop."""
        return LooperThread.loop(self._coord, timer_interval_secs, target, args=args, kwargs=kwargs)

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Requests the stop, waits for the threads, saves a last checkpoint (the chief,
        after the training loop's last step); re-raises the exception given to request_stop."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            self._started_threads = []
            runners, self._queue_runners = self._queue_runners, []
            for runner in runners:
                runner.stop()
            sess, self._session_to_save = self._session_to_save, None
            if sess is not None:
                self._save_at_stop(sess)

    def _save_at_stop(self, sess):
        try:
            path = self._saver.save(sess, self._save_path, global_step=self._global_step)
            logging.info("Saved checkpoint %s at the stop", path)
        except (errors.OpError, RuntimeError) as e:
            # The session may be what failed: the periodic checkpoints remain.
            logging.warning("Supervisor: the checkpoint at stop failed: %s", e)

    def request_stop(self, ex=None):
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        return self._coord.should_stop()

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
        _warn_once("summary_computed", "Supervisor.summary_computed: summaries are not written by tensorweave")

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True, close_summary_writer=True):
        """A session ready for training; on exit the supervisor stops (saving a checkpoint),
        the session closes, and an exception from the block is raised again
        (OutOfRangeError ends the block quietly, as the end of the input)."""
        sess = self.prepare_or_wait_for_session(master=master, config=config,
                                                start_standard_services=start_standard_services)
        try:
            yield sess
        except Exception as e:  # pylint: disable=broad-except - re-raised by stop() below.
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                try:
                    sess.close()
                except Exception:  # pylint: disable=broad-except - closing after a failure.
                    pass


class _CheckpointThread(LooperThread):
    """Saves <logdir>/<checkpoint_basename>-<global step> at start and every
    save_model_secs (TF's SVTimerCheckpointThread); Supervisor.stop saves the last one."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self.name = "SVTimerCheckpointThread"
        self._sv = sv
        self._sess = sess

    def run_loop(self):
        path = self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        logging.info("Saved checkpoint %s", path)

