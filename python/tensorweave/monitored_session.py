"""tf.train.MonitoredTrainingSession and its hooks (StopAtStepHook, CheckpointSaverHook,
LoggingTensorHook, StepCounterHook, and SessionRunHook for your own) over the C++
tw::MonitoredTrainingSession: initialization or restore by the chief, waiting by the
others, checkpoints, hooks around each step, recovery when a task fails."""
import sys

from tensorweave import _core, iterator_saveable
from tensorweave.framework import Tensor, get_default_graph
from tensorweave.security import _security_to_core
from tensorweave.session import ConfigProto, _FetchPlan, _SessionView, _feed_arrays


def _core_fetches(graph, plan):
    return ([graph._core.tensor(n) for n in plan.tensor_names], [graph._core.operation(n) for n in plan.op_names])


# ---- hooks

class SessionRunArgs:
    """What a hook's before_run adds to the step: fetches (nested, as Session.run takes) and
    feeds (not supported: feeds come from the run's caller)."""

    def __init__(self, fetches, feed_dict=None, options=None):
        if feed_dict:
            raise NotImplementedError("SessionRunArgs(feed_dict=...) is not supported")
        self.fetches = fetches
        self.feed_dict = None
        self.options = options


class SessionRunContext:
    """The step being run, as a hook sees it: the session and request_stop()."""

    def __init__(self, core_context, session):
        self._core = core_context
        self._session = session

    @property
    def session(self):
        return self._session

    def request_stop(self):
        self._core.request_stop()

    @property
    def stop_requested(self):
        return self._core.stop_requested


class SessionRunValues:
    def __init__(self, results):
        self.results = results


class SessionRunHook:
    """Code run around each step of a MonitoredTrainingSession; override what you need."""

    def begin(self):
        pass

    def after_create_session(self, session, coord):
        pass

    def before_run(self, run_context):
        return None

    def after_run(self, run_context, run_values):
        pass

    def end(self, session):
        pass


class _HookAdapter:
    """What the C++ PythonHook calls: the Python hook's nested fetches as lists of core
    tensors and ops, and its results back in their structure."""

    def __init__(self, hook, graph, master):
        self._hook = hook
        self._graph = graph
        self._master = master
        self._plan = None
        self._session = None

    def _view(self, core_session):
        if self._session is None or self._session._core is not core_session:
            self._session = _SessionView(core_session, self._graph, self._master)
        return self._session

    def _begin(self):
        self._hook.begin()

    def _after_create_session(self, core_session):
        self._hook.after_create_session(self._view(core_session), None)

    def _before_run(self, core_context):
        args = self._hook.before_run(SessionRunContext(core_context, self._view(core_context.session)))
        self._plan = None if args is None or args.fetches is None else _FetchPlan(self._graph, args.fetches)
        return ([], []) if self._plan is None else _core_fetches(self._graph, self._plan)

    def _after_run(self, core_context, results):
        values = None if self._plan is None else self._plan.build(results)
        self._hook.after_run(SessionRunContext(core_context, self._view(core_context.session)),
                             SessionRunValues(values))

    def _end(self, core_session):
        self._hook.end(self._view(core_session))


def _core_hook(hook, graph, master):
    native = getattr(hook, "_core", None)
    if isinstance(native, _core.SessionRunHook):
        return native
    if not isinstance(hook, SessionRunHook):
        raise TypeError("hooks must be SessionRunHook instances, got %r" % (hook,))
    return _core.PythonHook(_HookAdapter(hook, graph, master))


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches last_step (or num_steps more steps)."""

    def __init__(self, num_steps=None, last_step=None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and num_steps < 0:
            raise ValueError("num_steps must be non-negative, got %d" % num_steps)
        self._core = (_core.StopAtStepHook.num_steps(int(num_steps)) if num_steps is not None
                      else _core.StopAtStepHook.last_step(int(last_step)))


class CheckpointSaverHook(SessionRunHook):
    """Saves "<checkpoint_dir>/model.ckpt-<global step>" every save_steps steps or save_secs
    seconds, when the session is created and at the end."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None):
        if (save_secs is None) == (save_steps is None):
            raise ValueError("exactly one of save_secs or save_steps should be set")
        if checkpoint_basename != "model.ckpt" or saver is not None or scaffold is not None or listeners:
            raise NotImplementedError("CheckpointSaverHook saves every global variable as model.ckpt-<step>; "
                                      "saver, scaffold, listeners and checkpoint_basename are not supported")
        max_to_keep = 5
        self._core = _core.CheckpointSaverHook(checkpoint_dir, int(save_steps or 0), float(save_secs or 0),
                                               max_to_keep)


class LoggingTensorHook(SessionRunHook):
    """Prints "name = value, ..." every every_n_iter runs (to stderr). tensors: a dict of
    names to tensors (or tensor names), or a list of tensors or names."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        if every_n_iter is None or every_n_secs is not None or formatter is not None or at_end:
            raise NotImplementedError("LoggingTensorHook supports every_n_iter only")
        graph = get_default_graph()
        items = tensors.items() if isinstance(tensors, dict) else [(t if isinstance(t, str) else t.name, t)
                                                                     for t in tensors]
        pairs = []
        for tag, t in items:
            tensor = graph.as_graph_element(t)
            if not isinstance(tensor, Tensor):
                raise TypeError("LoggingTensorHook: %r is not a tensor" % (t,))
            pairs.append((tag, tensor._core))
        self._core = _core.LoggingTensorHook(pairs, int(every_n_iter))


class StepCounterHook(SessionRunHook):
    """Prints "global_step/sec: X" every every_n_steps global steps (to stderr)."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if every_n_secs is not None:
            raise NotImplementedError("StepCounterHook supports every_n_steps only")
        self._core = _core.StepCounterHook(int(every_n_steps), 0)


# ---- the session

class _RawSession:
    """The session under a MonitoredTrainingSession, without its hooks: what queue runners run."""

    def __init__(self, monitored):
        self._monitored = monitored
        self.graph = monitored.graph

    def run(self, fetches, feed_dict=None):
        plan = _FetchPlan(self.graph, fetches)
        feeds = [(t._core, a) for t, a in _feed_arrays(self.graph, feed_dict)]
        tensors, ops = _core_fetches(self.graph, plan)
        return plan.build(self._monitored._core.run_without_hooks(feeds, tensors, ops))


class MonitoredTrainingSession:
    """A session for training loops (tf.train.MonitoredTrainingSession): the chief restores
    the latest checkpoint of checkpoint_dir or initializes the variables, saves checkpoints
    and runs the hooks; other workers wait until the variables are initialized."""

    def __init__(self, master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,
                 chief_only_hooks=None, save_checkpoint_secs=600, save_summaries_steps=100,
                 save_summaries_secs=None, config=None, stop_grace_period_secs=120, log_step_count_steps=100,
                 max_wait_secs=7200, save_checkpoint_steps=None, summary_dir=None, security=None):
        if scaffold is not None:
            raise NotImplementedError("MonitoredTrainingSession(scaffold=...) is not supported")
        self._graph = get_default_graph()
        master = master.decode() if isinstance(master, bytes) else master
        steps = int(save_checkpoint_steps or 0)
        secs = 0.0 if steps or save_checkpoint_secs is None else float(save_checkpoint_secs)
        core_config = (config or ConfigProto())._to_core()
        core_config.security = _security_to_core(security)  # Not in TensorFlow: see tw.Session.
        from tensorweave.summary_hook import summary_hooks_for_session
        chief_only_hooks = list(chief_only_hooks or []) + summary_hooks_for_session(
            is_chief, summary_dir or checkpoint_dir, save_summaries_steps, save_summaries_secs)
        self._core = _core.MonitoredTrainingSession(
            self._graph._core, master, bool(is_chief), checkpoint_dir or "", steps, secs,
            int(log_step_count_steps or 0), [_core_hook(h, self._graph, master) for h in hooks or []],
            [_core_hook(h, self._graph, master) for h in chief_only_hooks or []], core_config,
            float(max_wait_secs), iterator_saveable.to_core(iterator_saveable.in_collection(self._graph)))
        self._stop_grace_period_secs = stop_grace_period_secs
        self._start_input_pipeline()

    @property
    def graph(self):
        return self._graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """As Session.run, with the hooks around the step (and recovery from failed tasks)."""
        plan = _FetchPlan(self._graph, fetches)
        feeds = [(t._core, a) for t, a in _feed_arrays(self._graph, feed_dict)]
        tensors, ops = _core_fetches(self._graph, plan)
        return plan.build(self._core.run(feeds, tensors, ops))

    def should_stop(self):
        return self._core.should_stop() or self._coord.should_stop()

    def close(self):
        # As TensorFlow's coordinated session: stop the queue runners (their queues close,
        # freeing blocked threads), wait for them, then end the session.
        self._coord.request_stop()
        try:
            self._coord.join(self._queue_runner_threads, stop_grace_period_secs=self._stop_grace_period_secs)
        finally:
            self._core.close()

    def _start_input_pipeline(self):
        """TensorFlow's Scaffold and coordinated session: local variables (epoch counters)
        initialized, then the graph's queue runners started under a Coordinator."""
        from tensorweave.coordinator import Coordinator
        from tensorweave.queue_runner import start_queue_runners
        from tensorweave.variables import local_variables, local_variables_initializer
        self._coord = Coordinator()
        self._queue_runner_threads = []
        raw = _RawSession(self)
        if local_variables():
            raw.run(local_variables_initializer())
        self._queue_runner_threads = start_queue_runners(raw, coord=self._coord)

    def __enter__(self):
        self._graph_context = self._graph.as_default()
        self._graph_context.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._graph_context.__exit__(exc_type, exc, tb)
        # Ends quietly on the errors TF treats as the end of input (a closed queue).
        from tensorweave import errors
        if exc_type is None or issubclass(exc_type, errors.OutOfRangeError):
            self.close()
        if exc_type is not None and issubclass(exc_type, errors.OutOfRangeError):
            # Not silent (issue 14, item 11): a worker whose chief stopped (SyncReplicasOptimizer's
            # token queue closed) would otherwise just end, as if its training were done.
            print("MonitoredTrainingSession: training stopped by OutOfRangeError (its input ended or a queue it"
                  " reads was closed; with SyncReplicasOptimizer, the chief stopped): %s" % exc, file=sys.stderr,
                  flush=True)
            return True
        return False
