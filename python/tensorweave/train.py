"""tf.train: optimizers, the global step, Saver, ClusterSpec and Server. Each wraps the C++
class of the same name."""
import atexit
import os
import weakref

from tensorweave import _core
from tensorweave.array_ops import identity, no_op
from tensorweave.framework import Operation, Tensor, convert_to_tensor, get_default_graph
from tensorweave.security import ResourceLimits, TransportSecurity, _limits_to_core, _security_to_core  # noqa: F401
from tensorweave.indexed_slices import IndexedSlices, as_sparse_gradient
from tensorweave.variables import Variable
from tensorweave import iterator_saveable


def _variables_module():
    from tensorweave import variables
    return variables


# ---- global step

def get_or_create_global_step(graph=None):
    graph = graph or get_default_graph()
    return Variable._from_core(graph, _core.get_or_create_global_step(graph._core))


create_global_step = get_or_create_global_step


def get_global_step(graph=None):
    graph = graph or get_default_graph()
    core = _core.get_global_step(graph._core)
    return None if core is None else Variable._from_core(graph, core)


# ---- optimizers

def _hyper(value):
    """A number or a scalar tensor (e.g. a decaying learning rate)."""
    if isinstance(value, (int, float)):
        return float(value)
    return convert_to_tensor(value)._core


def _core_var_list(var_list):
    return [] if var_list is None else [v._core for v in var_list]


class Optimizer:
    """The TensorFlow 1.x optimizer interface over a C++ tw::Optimizer."""

    def __init__(self, core):
        self._opt = core

    def get_name(self):
        return self._opt.name

    def compute_gradients(self, loss, var_list=None, **kwargs):
        """[(gradient or None, variable)] for var_list (the trainable variables when None)."""
        loss = convert_to_tensor(loss)
        graph = loss.graph
        if graph.__dict__.get("_while_loops"):
            # The C++ pass takes a tf.while_loop as a constant: Python's tf.gradients goes through it.
            from tensorweave.gradients import gradients
            from tensorweave.variables import trainable_variables
            var_list = list(var_list) if var_list is not None else trainable_variables()
            return list(zip(gradients(loss, var_list), var_list))
        pairs = [(None if g is None else Tensor(graph, g), Variable._from_core(graph, v))
                 for g, v in self._opt.compute_gradients(loss._core, _core_var_list(var_list))]
        # A gathered variable's gradient is IndexedSlices, as in TensorFlow.
        return [(as_sparse_gradient(g, v), v) for g, v in pairs]

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """One op applying every (gradient, variable) pair; increments global_step after."""
        grads_and_vars = list(grads_and_vars)
        graph = next((v.graph for _, v in grads_and_vars if isinstance(v, Variable)), None) or get_default_graph()
        if graph._has_control_dependencies():
            # Under tf.control_dependencies(update_ops): the slots must initialize without
            # them (TF's init_scope), so the update is built outside, on gradients passed
            # through identities made inside: it still runs after the dependencies.
            with graph.name_scope("control_dependency"):
                grads_and_vars = [(None if g is None else identity(g), v) for g, v in grads_and_vars]
            with graph._init_scope():
                return self._apply_gradients(grads_and_vars, global_step, name)
        return self._apply_gradients(grads_and_vars, global_step, name)

    # Whether this optimizer updates a variable from IndexedSlices by its rows (else the
    # gradient is made dense): minimize then takes the Python path, gradients as IndexedSlices.
    _sparse_updates = False

    def _apply_sparse(self, grad, var):
        """The update of `var` by the IndexedSlices `grad` touching only its rows."""
        raise NotImplementedError

    @staticmethod
    def _deduplicated(grad):
        """(rows, ids): grad's rows summed per distinct id (TF1's _deduplicate_indexed_slices)."""
        from tensorweave import math_ops
        from tensorweave.array_ops import size
        from tensorweave.partition_ops import unique
        ids, position = unique(grad.indices)
        return math_ops.unsorted_segment_sum(grad.values, position, size(ids, out_type=position.dtype)), ids

    @staticmethod
    def _as_dtype_tensor(value, dtype):
        from tensorweave.array_ops import cast
        return cast(value, dtype) if isinstance(value, Tensor) else convert_to_tensor(value, dtype=dtype)

    def _sparse_slot_update(self, op, grad, var, slot, before, after, attrs):
        """`op`(var, slot, *before, rows, ids, *after) on var's device, after making var's slots."""
        self._opt.create_slots([var._core])
        accum = self.get_slot(var, slot)
        with var.graph.colocate_with(var):
            rows, ids = self._deduplicated(grad)
            handles = [Tensor(var.graph, var._core.handle), Tensor(var.graph, accum._core.handle)]
            return var.graph.create_op(
                op, handles + [self._as_dtype_tensor(b, var.dtype) for b in before] + [rows, ids] +
                [self._as_dtype_tensor(a, var.dtype) for a in after], attrs,
                "update_" + var.op.name.replace("/", "_"))

    def _apply_gradients(self, grads_and_vars, global_step, name):
        pairs, sparse = [], []
        graph = None
        for g, v in grads_and_vars:
            if not isinstance(v, Variable):
                raise TypeError("apply_gradients: %r is not a tf.Variable" % (v,))
            graph = v.graph
            if isinstance(g, IndexedSlices) and self._sparse_updates:
                sparse.append((g, v))
            else:
                pairs.append((None if g is None else convert_to_tensor(g)._core, v._core))
        graph = graph or get_default_graph()
        sparse_updates = []
        if sparse:
            with graph.name_scope(name or self.get_name()):
                sparse_updates = [self._apply_sparse(g, v) for g, v in sparse]
        if not sparse_updates:
            op = self._opt.apply_gradients(pairs, None if global_step is None else global_step._core, name or "")
            return Operation(graph, op)
        # The sparse updates beside the dense ones; global_step counts the step after all of them.
        updates = list(sparse_updates)
        if pairs:
            updates.append(Operation(graph, self._opt.apply_gradients(pairs, None, name or "")))
        with graph.control_dependencies(updates):
            if global_step is None:
                return no_op(name=name or self.get_name())
            with graph.colocate_with(global_step):
                return global_step.assign_add(1, name=name or self.get_name(), read_value=False)

    @staticmethod
    def _gathers_variables(graph):
        """Whether some op gathers rows of a variable (its gradient will be IndexedSlices)."""
        return any((op.type in ("GatherV2", "Gather") and op.inputs[0].op.type == "ReadVariableOp")
                   or op.type == "ResourceGather" for op in graph.get_operations())

    def minimize(self, loss, global_step=None, var_list=None, name=None, **kwargs):
        loss = convert_to_tensor(loss)
        if self._sparse_updates and self._gathers_variables(loss.graph):
            return self.apply_gradients(self.compute_gradients(loss, var_list), global_step, name)
        if loss.graph._has_control_dependencies() or loss.graph.__dict__.get("_while_loops"):
            return self.apply_gradients(self.compute_gradients(loss, var_list), global_step, name)
        op = self._opt.minimize(loss._core, None if global_step is None else global_step._core,
                                _core_var_list(var_list), name or "")
        return Operation(loss.graph, op)

    def get_slot(self, var, name):
        return Variable._from_core(var.graph, self._opt.get_slot(var._core, name))

    def get_slot_names(self):
        return self._opt.get_slot_names()


class GradientDescentOptimizer(Optimizer):
    _sparse_updates = True

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(_core.GradientDescentOptimizer(_hyper(learning_rate), use_locking, name))
        self._learning_rate = learning_rate

    def _apply_sparse(self, grad, var):
        """var[ids] -= lr * (the rows of each id summed first): only the touched rows change,
        each by the dense kernel's formula, so the result is the dense update's bit for bit
        (ResourceSparseApplyProximalGradientDescent with l1 = l2 = 0)."""
        with var.graph.colocate_with(var):
            rows, ids = self._deduplicated(grad)
            lr = self._as_dtype_tensor(self._learning_rate, var.dtype)
            zero = convert_to_tensor(0, dtype=var.dtype)
            return var.graph.create_op("ResourceSparseApplyProximalGradientDescent",
                                       [Tensor(var.graph, var._core.handle), lr, zero, zero, rows, ids], {},
                                       "update_" + var.op.name.replace("/", "_"))


class MomentumOptimizer(Optimizer):
    _sparse_updates = True

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(_core.MomentumOptimizer(_hyper(learning_rate), _hyper(momentum), use_nesterov,
                                                 use_locking, name))
        self._sparse_args = (learning_rate, momentum, use_nesterov)

    def _apply_sparse(self, grad, var):
        """The rows' momentum and variable only (TF1's: untouched rows' momentum does not decay)."""
        lr, momentum, nesterov = self._sparse_args
        return self._sparse_slot_update("ResourceSparseApplyMomentum", grad, var, "momentum", [lr], [momentum],
                                        {"use_nesterov": bool(nesterov)})


class AdagradOptimizer(Optimizer):
    _sparse_updates = True

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        super().__init__(_core.AdagradOptimizer(_hyper(learning_rate), float(initial_accumulator_value),
                                                use_locking, name))
        self._learning_rate = learning_rate

    def _apply_sparse(self, grad, var):
        """The rows' accumulator and variable only."""
        return self._sparse_slot_update("ResourceSparseApplyAdagrad", grad, var, "accumulator",
                                        [self._learning_rate], [], {})


class RMSPropOptimizer(Optimizer):
    _sparse_updates = True

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, name="RMSProp"):
        if centered:
            raise ValueError("RMSPropOptimizer(centered=True) is not supported")
        super().__init__(_core.RMSPropOptimizer(_hyper(learning_rate), _hyper(decay), _hyper(momentum),
                                                _hyper(epsilon), use_locking, name))
        self._sparse_args = (learning_rate, decay, momentum, epsilon)

    def _apply_sparse(self, grad, var):
        """The rows' ms, momentum and variable only."""
        self._opt.create_slots([var._core])
        ms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        with var.graph.colocate_with(var):
            rows, ids = self._deduplicated(grad)
            handles = [Tensor(var.graph, v._core.handle) for v in (var, ms, mom)]
            hypers = [self._as_dtype_tensor(h, var.dtype) for h in self._sparse_args]
            return var.graph.create_op("ResourceSparseApplyRMSProp", handles + hypers + [rows, ids], {},
                                       "update_" + var.op.name.replace("/", "_"))


class AdamOptimizer(Optimizer):
    _sparse_updates = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, use_locking=False, name="Adam"):
        super().__init__(_core.AdamOptimizer(_hyper(learning_rate), _hyper(beta1), _hyper(beta2), _hyper(epsilon),
                                             use_locking, name))
        self._hypers = (learning_rate, beta1, beta2, epsilon)

    def _get_beta_accumulators(self, graph):
        b1, b2 = self._opt.get_beta_accumulators(graph._core)
        return Variable._from_core(graph, b1), Variable._from_core(graph, b2)

    def _apply_gradients(self, grads_and_vars, global_step, name):
        """With an IndexedSlices among the gradients, the whole step is built here, as TF1's
        AdamOptimizer: dense gradients by ResourceApplyAdam, sparse ones by its sparse rule
        (the moments decayed everywhere, the new rows' terms added by scatter, the variable
        updated from them), then the beta powers advanced after every update."""
        grads_and_vars = [(g, v) for g, v in grads_and_vars]
        if not any(isinstance(g, IndexedSlices) for g, _ in grads_and_vars):
            return super()._apply_gradients(grads_and_vars, global_step, name)
        live = [(g, v) for g, v in grads_and_vars if g is not None]
        graph = live[0][1].graph
        self._opt.create_slots([v._core for _, v in live])
        beta1_power, beta2_power = self._get_beta_accumulators(graph)
        updates = []
        with graph.name_scope(name or self.get_name()):
            for g, v in live:
                with graph.colocate_with(v):
                    lr, beta1, beta2, eps = (self._as_dtype_tensor(h, v.dtype) for h in self._hypers)
                    b1p = self._as_dtype_tensor(beta1_power.value(), v.dtype)
                    b2p = self._as_dtype_tensor(beta2_power.value(), v.dtype)
                    m, vv = self.get_slot(v, "m"), self.get_slot(v, "v")
                    if isinstance(g, IndexedSlices):
                        updates.append(self._sparse_adam(g, v, m, vv, lr, beta1, beta2, eps, b1p, b2p))
                    else:
                        handles = [Tensor(graph, x._core.handle) for x in (v, m, vv)]
                        updates.append(graph.create_op(
                            "ResourceApplyAdam", handles + [b1p, b2p, lr, beta1, beta2, eps, convert_to_tensor(g)],
                            {"use_nesterov": False}, "update_" + v.op.name.replace("/", "_")))
            with graph.control_dependencies(updates):
                with graph.colocate_with(beta1_power):
                    advance = [beta1_power.assign(beta1_power * self._as_dtype_tensor(self._hypers[1], beta1_power.dtype),
                                                  name="update_beta1", read_value=False),
                               beta2_power.assign(beta2_power * self._as_dtype_tensor(self._hypers[2], beta2_power.dtype),
                                                  name="update_beta2", read_value=False)]
        with graph.control_dependencies(updates + advance):
            if global_step is None:
                return no_op(name=name or self.get_name())
            with graph.colocate_with(global_step):
                return global_step.assign_add(1, name=name or self.get_name(), read_value=False)

    def _sparse_adam(self, grad, var, m, v, lr, beta1, beta2, eps, beta1_power, beta2_power):
        """TF1's AdamOptimizer._apply_sparse_shared on the deduplicated rows."""
        from tensorweave import math_ops
        graph = var.graph
        rows, ids = self._deduplicated(grad)
        one = convert_to_tensor(1, dtype=var.dtype)
        step = lr * math_ops.sqrt(one - beta2_power) / (one - beta1_power)
        decayed_m = m.assign(m * beta1, read_value=False)
        with graph.control_dependencies([decayed_m]):
            add_m = graph.create_op("ResourceScatterAdd", [Tensor(graph, m._core.handle), ids, rows * (one - beta1)], {})
        decayed_v = v.assign(v * beta2, read_value=False)
        with graph.control_dependencies([decayed_v]):
            add_v = graph.create_op("ResourceScatterAdd", [Tensor(graph, v._core.handle), ids,
                                                           (rows * rows) * (one - beta2)], {})
        with graph.control_dependencies([add_m, add_v]):
            m_t, v_t = m.read_value(), v.read_value()
        return var.assign_sub(step * m_t / (math_ops.sqrt(v_t) + eps), read_value=False)


class LazyAdamOptimizer(AdamOptimizer):
    """tf.contrib.opt.LazyAdamOptimizer: Adam whose sparse update touches only the rows
    looked up -- their moments and values -- leaving the other rows' moments undecayed
    (dense gradients as Adam)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, use_locking=False,
                 name="LazyAdam"):
        super().__init__(learning_rate, beta1, beta2, epsilon, use_locking, name)

    def _sparse_adam(self, grad, var, m, v, lr, beta1, beta2, eps, beta1_power, beta2_power):
        from tensorweave import math_ops
        graph = var.graph
        rows, ids = self._deduplicated(grad)
        one = convert_to_tensor(1, dtype=var.dtype)
        step = lr * math_ops.sqrt(one - beta2_power) / (one - beta1_power)

        def gather(slot):
            return graph.create_op("ResourceGather", [slot.handle, ids], {"dtype": var.dtype}).outputs[0]
        m_rows = beta1 * gather(m) + (one - beta1) * rows
        v_rows = beta2 * gather(v) + (one - beta2) * (rows * rows)
        updates = [graph.create_op("ResourceScatterUpdate", [slot.handle, ids, new], {})
                   for slot, new in ((m, m_rows), (v, v_rows))]
        with graph.control_dependencies(updates):
            return graph.create_op("ResourceScatterSub",
                                   [var.handle, ids, step * m_rows / (math_ops.sqrt(v_rows) + eps)], {},
                                   "update_" + var.op.name.replace("/", "_"))


# ---- checkpoints

class Saver:
    """Saves and restores variables: all global variables that exist now, a list (each
    under its own name) or a dict of checkpoint names to variables."""

    def __init__(self, var_list=None, max_to_keep=5, **kwargs):
        self._graph = get_default_graph()
        self._saveables = self._take_saveables(var_list)
        if isinstance(var_list, dict):
            var_list = {k: v for k, v in var_list.items() if not iterator_saveable.is_saveable(v)}
        elif var_list is not None:
            var_list = [v for v in var_list if not iterator_saveable.is_saveable(v)]
        if self._saveables and not (var_list if var_list is not None else _variables_module().global_variables()):
            # Only saveables: the C++ Saver takes an empty variable list beside them.
            core = iterator_saveable.to_core(self._saveables)
            self._named, self._specs = [], []
            self._core = _core.Saver(self._graph._core, [], core, int(max_to_keep))
            return
        self._init_variables(var_list, max_to_keep)
        for saveable in iterator_saveable.to_core(self._saveables):
            self._core.add_saveable(saveable)

    def _take_saveables(self, var_list):
        """The saveables (tf.data iterators' positions) among var_list, or in
        SAVEABLE_OBJECTS when var_list is None (as TF 1.x's Saver)."""
        if var_list is None:
            return iterator_saveable.in_collection(self._graph)
        if isinstance(var_list, dict):
            return [v for v in var_list.values() if iterator_saveable.is_saveable(v)]
        return [v for v in var_list if iterator_saveable.is_saveable(v)]

    def _init_variables(self, var_list, max_to_keep):
        if isinstance(var_list, dict):
            named = []
            for name, v in sorted(var_list.items()):
                if not isinstance(v, Variable):
                    raise TypeError("Saver: the value for %r is not a tf.Variable: %r" % (name, v))
                named.append((name, v._core))
            self._named = [(name, v) for name, v in sorted(var_list.items())]
            self._specs = [""] * len(named)
            self._core = _core.Saver(self._graph._core, named, int(max_to_keep))
            return
        from tensorweave import variables as _variables
        if var_list is not None:  # a PartitionedVariable stands for its shards
            var_list = [s for v in var_list
                        for s in (v._get_variable_list() if hasattr(v, "_get_variable_list") else [v])]
        listed = _variables.global_variables() if var_list is None else list(var_list)
        # A shard of a partitioned variable is saved as its slice of the whole, as TF does.
        infos = [v._save_slice_info for v in listed]
        self._named = [(info.full_name if info else v._core.name, v) for v, info in zip(listed, infos)]
        self._specs = [info.spec if info else "" for info in infos]
        if any(self._specs):
            self._core = _core.Saver(self._graph._core, [(n, v._core) for n, v in self._named], int(max_to_keep),
                                     self._specs)
            return
        core_list = None if var_list is None else [v._core for v in var_list]
        self._core = _core.Saver(self._graph._core, core_list, int(max_to_keep))

    def _named_variables(self):
        """[(checkpoint name, Variable, slice spec)]: what a MetaGraph's saver subgraph saves."""
        return [(name, v, spec) for (name, v), spec in zip(self._named, self._specs)]

    def as_saver_def(self):
        """The SaverDef of the TF-style saver subgraph this Saver's MetaGraphs carry (its names
        are those export_meta_graph writes for it into a graph holding no other saver)."""
        from tensorweave import meta_graph
        saver_def = meta_graph.build_meta_graph_def(self._graph, self, collection_list=[]).saver_def
        self._graph.__dict__.setdefault("_tw_savers", {})[saver_def.restore_op_name] = self
        return saver_def

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False, clear_devices=False, **kwargs):
        from tensorweave import meta_graph
        return meta_graph.export_meta_graph(filename=filename, collection_list=collection_list, as_text=as_text,
                                            graph=self._graph, clear_devices=clear_devices, saver=self)

    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, **kwargs):
        """Writes "<save_path>-<global_step>" (or save_path) and returns that path; with
        write_meta_graph, also the graph's MetaGraph as "<that path>.meta" (as TF1)."""
        if global_step is None:
            step = -1
        elif isinstance(global_step, (int,)):
            step = global_step
        else:
            step = int(sess.run(global_step))
        kept_before = set(self._core.last_checkpoints)
        path = self._core.save(sess._core, save_path, step)
        if write_meta_graph:
            self.export_meta_graph(path + "." + meta_graph_suffix)
        # The checkpoints max_to_keep dropped take their MetaGraphs with them, as in TF.
        for dropped in kept_before - set(self._core.last_checkpoints):
            try:
                os.remove(dropped + "." + meta_graph_suffix)
            except OSError:
                pass
        return path

    def restore(self, sess, save_path):
        if not save_path:
            raise ValueError("Can't load save_path when it is None.")
        self._core.restore(sess._core, save_path)

    @property
    def last_checkpoints(self):
        return list(self._core.last_checkpoints)


def export_meta_graph(*args, **kwargs):
    from tensorweave import meta_graph
    return meta_graph.export_meta_graph(*args, **kwargs)


def import_meta_graph(*args, **kwargs):
    from tensorweave import meta_graph
    return meta_graph.import_meta_graph(*args, **kwargs)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The newest checkpoint recorded in checkpoint_dir, or None."""
    return _core.latest_checkpoint(checkpoint_dir) or None


# ---- clusters

class ClusterSpec:
    """The jobs of a cluster: {"job": ["host:port", ...]} or {"job": {index: "host:port"}}."""

    def __init__(self, cluster):
        # Jobs given with no task (TF accepts {"ps": [], ...}): listed here, not in C++.
        self._empty_jobs = []
        if isinstance(cluster, ClusterSpec):
            self._core = cluster._core
            self._empty_jobs = list(cluster._empty_jobs)
        elif isinstance(cluster, _core.ClusterSpec):
            self._core = cluster
        elif isinstance(cluster, dict):
            self._empty_jobs = sorted(job for job, tasks in cluster.items() if isinstance(tasks, (list, tuple, dict))
                                      and len(tasks) == 0)
            cluster = {job: tasks for job, tasks in cluster.items() if job not in self._empty_jobs}
            if any(isinstance(tasks, dict) for tasks in cluster.values()):
                sparse = {job: (dict(tasks) if isinstance(tasks, dict) else dict(enumerate(tasks)))
                          for job, tasks in cluster.items()}
                self._core = _core.ClusterSpec.from_sparse_jobs(sparse)
            else:
                self._core = _core.ClusterSpec.from_jobs({job: list(tasks) for job, tasks in cluster.items()})
        elif isinstance(cluster, str):
            self._core = _core.ClusterSpec.parse(cluster)
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists "
                            "of network addresses, or a ClusterSpec")

    @property
    def jobs(self):
        return sorted(list(self._core.jobs) + self._empty_jobs)

    def num_tasks(self, job_name):
        return 0 if job_name in self._empty_jobs else self._core.num_tasks(job_name)

    def task_indices(self, job_name):
        return [] if job_name in self._empty_jobs else list(self._core.task_indices(job_name))

    def task_address(self, job_name, task_index):
        return self._core.address(job_name, task_index)

    def job_tasks(self, job_name):
        if job_name in self._empty_jobs:
            return []
        tasks = self._core.job_tasks.get(job_name)
        if tasks is None:
            raise ValueError("No such job in cluster: %r" % job_name)
        return [tasks.get(i) for i in range(max(tasks) + 1)] if tasks else []

    def as_dict(self):
        result = {job: [] for job in self._empty_jobs}
        for job, tasks in self._core.job_tasks.items():
            dense = sorted(tasks) == list(range(len(tasks)))
            result[job] = [tasks[i] for i in sorted(tasks)] if dense else dict(tasks)
        return result

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._core == other._core and self._empty_jobs == other._empty_jobs

    def __repr__(self):
        return "ClusterSpec(%r)" % self.as_dict()


# Servers still alive when the interpreter exits, stopped and released first: a gRPC server
# left to the C++ static destructors at exit() would abort the process.
_live_servers = weakref.WeakSet()


@atexit.register
def _release_live_servers():
    for server in list(_live_servers):
        server._release()


class Server:
    """One task of a cluster (tf.train.Server), serving sessions at target.

    tensorweave's keywords: security (a TransportSecurity: TLS and the cluster token this
    task demands of its clients and presents to the other tasks; without TLS or a token a
    task only serves a loopback address unless insecure_allow_remote), limits (a
    ResourceLimits), rpc_timeout_ms (the deadline of calls between tasks) and
    file_access_root (the directory the graphs may read and write files in; None: anywhere,
    as TensorFlow; `tw server` defaults it to its working directory)."""

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None,
                 start=True, rpc_timeout_ms=0, security=None, insecure_allow_remote=False, limits=None,
                 file_access_root=None):
        if protocol not in (None, "grpc"):
            raise ValueError("Unsupported protocol %r (only grpc)" % protocol)
        cluster = ClusterSpec(server_or_cluster_def)
        if job_name is None:
            if len(cluster.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name` for a cluster of several jobs.")
            job_name = cluster.jobs[0]
        if task_index is None:
            indices = cluster.task_indices(job_name)
            if len(indices) != 1:
                raise ValueError("Must specify an explicit `task_index` for a job of several tasks.")
            task_index = indices[0]
        self._core = _core.Server.create(cluster._core, job_name, int(task_index), int(rpc_timeout_ms),
                                         _security_to_core(security), bool(insecure_allow_remote),
                                         _limits_to_core(limits), str(file_access_root or ""))
        self._cluster = cluster
        _live_servers.add(self)
        if start:
            self.start()

    @staticmethod
    def create_local_server(config=None, start=True, security=None, limits=None):
        """A one-task cluster on a free loopback port, started."""
        return Server._from_core(_core.Server.create_local(_security_to_core(security), _limits_to_core(limits)))

    @classmethod
    def _from_core(cls, core):
        server = cls.__new__(cls)
        server._core = core
        server._cluster = None
        _live_servers.add(server)
        return server

    def _release(self):
        core, self._core = self._core, None
        if core is not None:
            core.stop()

    @property
    def target(self):
        return self._core.target

    @property
    def server_def(self):
        return self._cluster

    def start(self):
        self._core.start()

    def join(self):
        """Blocks until the server stops; Ctrl-C stops it and raises KeyboardInterrupt."""
        self._core.join()

    def stop(self):
        """Stops serving (not in TensorFlow 1.x, where servers live until the process ends)."""
        self._core.stop()

    @staticmethod
    def wire_byte_counts():
        """tensorweave's: the step payload bytes this process's tasks sent and received so far,
        {tensor_bytes_sent, tensor_bytes_received} (RecvTensors streams, served and pulled) and
        {run_graph_bytes_sent, run_graph_bytes_received} (RunGraph requests and replies); the
        difference around a step is what that step moved. Calls within the process are free."""
        return dict(_core.wire_byte_counts())


# ---- distributed training (at the end: these modules import the names above)
from tensorweave.device_setter import replica_device_setter  # noqa: E402,F401
from tensorweave.monitored_session import (CheckpointSaverHook, LoggingTensorHook,  # noqa: E402,F401
                                           MonitoredTrainingSession, SessionRunArgs, SessionRunContext,
                                           SessionRunHook, SessionRunValues, StepCounterHook, StopAtStepHook)
from tensorweave.sync_replicas import SyncReplicasOptimizer  # noqa: E402,F401
from tensorweave.coordinator import Coordinator, LooperThread  # noqa: E402,F401
from tensorweave.session_manager import SessionManager  # noqa: E402,F401
from tensorweave.supervisor import Supervisor  # noqa: E402,F401
# tf.train.Example and friends: the generated message classes (TensorFlow's field numbers).
from tensorweave.proto.example_pb2 import Example, SequenceExample  # noqa: E402,F401
from tensorweave.proto.feature_pb2 import (BytesList, Feature, FeatureList, FeatureLists, Features,  # noqa: E402,F401
                                           FloatList, Int64List)


# ---- learning-rate schedules
from tensorweave.learning_rate_decay import exponential_decay, piecewise_constant, polynomial_decay  # noqa: E402,F401

# ---- reading checkpoints
from tensorweave.checkpoint_utils import (NewCheckpointReader, list_variables, load_checkpoint,  # noqa: E402,F401
                                         load_variable)


# ---- TF 1.x queue-based input pipelines (input.py, queue_runner.py)
from tensorweave.input import (batch, batch_join, input_producer, limit_epochs, range_input_producer,  # noqa: E402,F401
                               shuffle_batch, shuffle_batch_join, slice_input_producer, string_input_producer)
from tensorweave.queue_runner import QueueRunner, add_queue_runner, start_queue_runners  # noqa: E402,F401
