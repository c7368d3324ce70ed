"""tf.train.SummarySaverHook and tf.summary.FileWriterCache: summaries written every N global
steps (or seconds) of a MonitoredTrainingSession, as TF 1.x's hook writes them."""
import threading
import time

from tensorweave.framework import GraphKeys, get_collection, get_default_graph
from tensorweave.monitored_session import SessionRunArgs, SessionRunHook
from tensorweave.summary import FileWriter, SessionLog, merge_all


class FileWriterCache:
    """One FileWriter per logdir, shared by the hooks that write there (TF's cache)."""
    _writers = {}
    _lock = threading.Lock()

    @staticmethod
    def get(logdir):
        with FileWriterCache._lock:
            writer = FileWriterCache._writers.get(logdir)
            if writer is None:
                writer = FileWriterCache._writers[logdir] = FileWriter(logdir, graph=get_default_graph())
            return writer

    @staticmethod
    def clear():
        with FileWriterCache._lock:
            for writer in FileWriterCache._writers.values():
                writer.close()
            FileWriterCache._writers.clear()


class _StepOrSecondTimer:
    """TF's SecondOrStepTimer: triggers on the first step, then every `steps` global steps or
    `secs` seconds."""

    def __init__(self, steps, secs):
        self._steps, self._secs = steps, secs
        self._last_step = self._last_time = None

    def should_trigger_for_step(self, step):
        if self._last_step is None:
            return True
        if self._last_step == step:
            return False
        if self._secs is not None:
            return time.time() >= self._last_time + self._secs
        return step >= self._last_step + self._steps

    def update_last_triggered_step(self, step):
        self._last_step, self._last_time = step, time.time()


class SummarySaverHook(SessionRunHook):
    """Runs summary_op (a tensor or a list) every save_steps global steps or
    save_secs seconds and adds the result to the writer of output_dir at the global step;
    a SessionLog START goes first. Needs a global step."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None, scaffold=None,
                 summary_op=None):
        if scaffold is not None:
            raise NotImplementedError("SummarySaverHook(scaffold=...) is not supported")
        if summary_op is None:
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        if (save_steps is None) == (save_secs is None):
            raise ValueError("exactly one of save_steps and save_secs should be provided.")
        if summary_writer is None and output_dir is None:
            raise ValueError("one of summary_writer and output_dir should be provided.")
        self._timer = _StepOrSecondTimer(save_steps, save_secs)
        self._output_dir = output_dir
        self._summary_writer = summary_writer
        self._summary_op = summary_op

    def begin(self):
        from tensorweave import train
        if self._summary_writer is None:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step = train.get_global_step()
        if self._global_step is None:
            raise RuntimeError("Global step should be created to use SummarySaverHook.")
        ops = self._summary_op if isinstance(self._summary_op, (list, tuple)) else [self._summary_op]
        self._summary_ops = [op for op in ops if op is not None]

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(self._next_step)
        fetches = {}
        if self._request_summary and self._summary_ops:
            fetches["summary"] = self._summary_ops
        return SessionRunArgs(fetches)

    def after_run(self, run_context, run_values):
        results = run_values.results
        # The step the train op just made, read after it: the value fetched with the step
        # may be from before or after the increment (TF assumes before and adds 1).
        global_step = int(run_context.session.run(self._global_step))
        if self._next_step is None:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in results.get("summary", []):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer is not None:
            self._summary_writer.flush()


def summary_hooks_for_session(is_chief, summary_dir, save_summaries_steps, save_summaries_secs):
    """The hook MonitoredTrainingSession adds for the chief (TF's rule: summary_dir defaults
    to checkpoint_dir; seconds win over steps). Unlike TF, none when the graph has no
    summaries: TF would still write an event file holding only a SessionLog."""
    if not is_chief or not summary_dir or not get_collection(GraphKeys.SUMMARIES):
        return []
    if save_summaries_secs is not None and save_summaries_secs > 0:
        return [SummarySaverHook(save_secs=save_summaries_secs, output_dir=summary_dir, summary_op=merge_all())]
    if save_summaries_steps is not None and save_summaries_steps > 0:
        return [SummarySaverHook(save_steps=save_summaries_steps, output_dir=summary_dir, summary_op=merge_all())]
    return []
