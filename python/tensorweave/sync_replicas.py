"""tf.train.SyncReplicasOptimizer over the C++ one: each worker's gradients go to one
accumulator per variable; the chief's sync loop averages replicas_to_aggregate of them,
applies them once and hands out tokens that let the workers take their next step."""
from tensorweave import _core
from tensorweave.accumulators import SparseConditionalAccumulator
from tensorweave.framework import Operation, Tensor, convert_to_tensor, get_default_graph
from tensorweave.indexed_slices import IndexedSlices
from tensorweave.monitored_session import SessionRunHook
from tensorweave.variables import Variable


class SyncReplicasOptimizer:
    """Synchronous data-parallel training (between-graph replicas). Use
    make_session_run_hook(is_chief) with a MonitoredTrainingSession on a cluster."""

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None, variable_averages=None,
                 variables_to_average=None, use_locking=False, name="sync_replicas", replica_id=None):
        # replica_id: TF 0.x's argument (programs of that time pass it); the worker's index
        # is not needed here, so it is accepted and unused.
        if variable_averages is not None or variables_to_average is not None:
            raise NotImplementedError("SyncReplicasOptimizer(variable_averages=...) is not supported")
        self._wrapped = opt
        self._graph = get_default_graph()
        self._core = _core.SyncReplicasOptimizer(opt._opt, int(replicas_to_aggregate),
                                                 -1 if total_num_replicas is None else int(total_num_replicas), name)
        self._gradients_applied = False

    def compute_gradients(self, *args, **kwargs):
        return self._wrapped.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The worker's train op: gradients to the accumulators, then wait for a token.
        IndexedSlices gradients (embedding lookups) go to SparseConditionalAccumulators and
        are applied by the wrapped optimizer's sparse update, when it has one."""
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        sparse_updates = getattr(self._wrapped, "_sparse_updates", False)
        pairs, sparse = [], []
        for g, v in grads_and_vars:
            if isinstance(g, IndexedSlices) and sparse_updates:
                sparse.append((g, v))
            else:
                pairs.append((None if g is None else convert_to_tensor(g)._core, v._core))
        op = self._core.apply_gradients(pairs, global_step._core, *self._sparse_parts(sparse))
        self._gradients_applied = True
        return Operation(self._graph, op)

    def _sparse_parts(self, sparse):
        """(send, apply, init) for the C++ optimizer: builders of the sparse gradients' ops
        (as TF1's: an accumulator per variable, colocated with it, named <var>/grad_accum)."""
        if not sparse:
            return None, None, None
        graph, replicas, accumulators = self._graph, self._core.replicas_to_aggregate, []

        def send(local_step):
            ops = []
            for grad, var in sparse:
                with graph.colocate_with(var):
                    acc = SparseConditionalAccumulator(grad.dtype, shape=var.shape,
                                                       shared_name=var.op.name + "/grad_accum")
                    ops.append(acc.apply_indexed_slices_grad(grad, local_step=Tensor(graph, local_step))._core)
                accumulators.append((acc, var))
            return ops

        def apply():
            updates = []
            for acc, var in accumulators:
                with graph.colocate_with(var):
                    updates.append(self._wrapped._apply_sparse(acc.take_indexed_slices_grad(replicas), var)._core)
            return updates

        def init(global_step):
            ops = []
            for acc, var in accumulators:
                with graph.colocate_with(var):
                    ops.append(acc.set_global_step(Tensor(graph, global_step), name="SetGlobalStep")._core)
            return ops
        return send, apply, init

    def minimize(self, loss, global_step=None, var_list=None, name=None, **kwargs):
        return self.apply_gradients(self.compute_gradients(loss, var_list=var_list), global_step, name)

    def _op(self, core):
        return Operation(self._graph, core)

    @property
    def chief_init_op(self):
        return self._op(self._core.chief_init_op())

    @property
    def local_step_init_op(self):
        return self._op(self._core.local_step_init_op())

    @property
    def ready_for_local_init_op(self):
        """Ready once the global variables are initialized (what a Supervisor's
        ready_for_local_init_op waits for before the local step init)."""
        if getattr(self, "_ready_for_local_init_op", None) is None:
            from tensorweave.session_manager import uninitialized_variables_report
            with self._graph.as_default():
                self._ready_for_local_init_op = uninitialized_variables_report()
        return self._ready_for_local_init_op

    def get_init_tokens_op(self, num_tokens=-1):
        return self._op(self._core.get_init_tokens_op(int(num_tokens)))

    def get_chief_queue_runner(self):
        """The chief's sync loop: start(target) runs it on a thread with its own session."""
        return _ChiefRunner(self)

    def close_token_queue_op(self):
        return self._op(self._core.close_token_queue_op())

    @property
    def local_step(self):
        return Variable._from_core(self._graph, self._core.local_step())

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """The hook that initializes the chief's or a worker's sync state once its session
        exists and (chief) runs the sync loop until the session closes."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _ChiefRunner:
    def __init__(self, sync):
        self._sync = sync
        self._core = None

    def start(self, target):
        if not target.startswith("grpc://"):
            raise ValueError("the sync loop runs on a cluster: target must be grpc://host:port, got %r" % target)
        self._core = _core.SyncReplicasChiefRunner(self._sync._graph._core, target, self._sync._core)
        self._core.start()

    def stop(self):
        if self._core is not None:
            core, self._core = self._core, None
            core.stop()


class _SyncReplicasOptimizerHook(SessionRunHook):
    def __init__(self, sync, is_chief, num_tokens):
        self._sync = sync
        self._is_chief = is_chief
        self._num_tokens = num_tokens
        self._runner = None

    def begin(self):
        if not self._sync._gradients_applied:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before using the hook.")
        graph = self._sync._graph
        self._local_init_op = Operation(graph, _core.local_variables_initializer(graph._core, "sync_local_init"))
        if self._is_chief:
            self._init_ops = [self._local_init_op, self._sync.chief_init_op,
                              self._sync.get_init_tokens_op(self._num_tokens)]
            self._runner = self._sync.get_chief_queue_runner()
        else:
            self._init_ops = [self._local_init_op, self._sync.local_step_init_op]

    def after_create_session(self, session, coord):
        for op in self._init_ops:
            session.run(op)
        if self._runner is not None:
            self._runner.stop()  # A recovery: the loop starts again with the new session.
            self._runner.start(session.sess_str)

    def end(self, session):
        if self._runner is not None:
            self._runner.stop()  # Closes the token queue: the other workers' steps end.
