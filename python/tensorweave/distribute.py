"""tf.distribute.cluster_resolver: the cluster spec and this task's job and index from what a
cluster manager puts in the environment (TF_CONFIG, Slurm, Open MPI, a Kubernetes
StatefulSet), resolved by the C++ resolvers (include/tensorweave/cluster_resolver.h).

    resolver = tf.distribute.cluster_resolver.SlurmClusterResolver({"ps": 1, "worker": 2}, port_base=8888)
    server = tf.train.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                             task_index=resolver.task_id)

Errors as TensorFlow's: RuntimeError when the cluster manager's variables are missing (not
started by it), ValueError when they or the arguments are malformed; the message names the
variable. Differences from TensorFlow: KubernetesClusterResolver reads the pod's StatefulSet
ordinal and builds the headless Service's DNS names (no Kubernetes API client, no
job_to_label_mapping); MPIClusterResolver (not in TensorFlow) reads Open MPI's variables and,
without MPI in Python, resolves ranks on one host only (`tw server --cluster_resolver=mpi`
exchanges addresses across hosts). There are no GPUs: num_accelerators() is {}.
"""
import json
import os
import sys
import types

from tensorweave import _core, errors, train

_ERRORS = {errors.FAILED_PRECONDITION: RuntimeError, errors.INVALID_ARGUMENT: ValueError}


def _call(fn, *args):
    try:
        return fn(*args)
    except errors.OpError as e:
        raise _ERRORS.get(e.error_code, RuntimeError)(e.message) from None


def expand_hostlist(hostlist):
    """Slurm's compressed host list as `scontrol show hostnames` expands it (ValueError when malformed)."""
    return list(_call(_core.expand_hostlist, hostlist))


def expand_tasks_per_node(tasks_per_node):
    """Slurm's tasks per node: '2(x3),1' -> [2, 2, 2, 1] (ValueError when malformed)."""
    return list(_call(_core.expand_tasks_per_node, tasks_per_node))


def format_master_url(master, rpc_layer=None):
    return "%s://%s" % (rpc_layer, master) if rpc_layer else master


def _job_counts(jobs):
    if not isinstance(jobs, dict) or not jobs:
        raise ValueError("jobs must be a non-empty dict of job name -> number of tasks, not %r" % (jobs,))
    return [(str(job), int(n)) for job, n in jobs.items()]


class ClusterResolver:
    """The base of the resolvers: cluster_spec(), master(), task_type, task_id."""

    def __init__(self, rpc_layer=None):
        self.rpc_layer = rpc_layer
        self._task_type = None
        self._task_id = None

    def cluster_spec(self):
        raise NotImplementedError

    def _own_task(self):
        return None, None

    @property
    def task_type(self):
        return self._task_type if self._task_type is not None else self._own_task()[0]

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        return self._task_id if self._task_id is not None else self._own_task()[1]

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def environment(self):
        return ""

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of (task_type, task_id), each defaulting to this task's; '' when unknown."""
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        if task_type is None or task_id is None:
            return ""
        address = self.cluster_spec().task_address(task_type, task_id)
        return format_master_url(address, rpc_layer or self.rpc_layer)

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return {}


class SimpleClusterResolver(ClusterResolver):
    """A given ClusterSpec (or dict), task and master."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="", rpc_layer=None):
        super().__init__(rpc_layer)
        self._cluster = train.ClusterSpec(cluster_spec)
        self._master, self._environment = master, environment
        self._task_type, self._task_id = task_type, task_id

    def cluster_spec(self):
        return self._cluster

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is not None and task_id is not None:
            return super().master(task_type, task_id, rpc_layer)
        return format_master_url(self._master, rpc_layer or self.rpc_layer) if self._master else ""

    @property
    def environment(self):
        return self._environment


class _EnvironmentResolver(ClusterResolver):
    """Resolved by the C++ resolver `_kind` from os.environ, at each call (as TF reads it)."""

    _kind = None

    def __init__(self, jobs, port, rpc_layer, options=None):
        super().__init__(rpc_layer)
        self._jobs, self._port, self._options = jobs, port, dict(options or {})

    def _environ(self):
        return dict(os.environ)

    def _resolve(self):
        jobs = self._jobs if self._jobs is not None else self._default_jobs()
        core_cluster, task_type, task_id, _ = _call(_core.resolve_cluster, self._kind, jobs, self._port,
                                                    self._environ(), self._options)
        return train.ClusterSpec(core_cluster), task_type, task_id

    def _default_jobs(self):
        return []

    def cluster_spec(self):
        return self._resolve()[0]

    def _own_task(self):
        _, task_type, task_id = self._resolve()
        return (task_type, task_id) if task_type else (None, None)  # TF_CONFIG without a task


class TFConfigClusterResolver(_EnvironmentResolver):
    """The cluster and task of the TF_CONFIG environment variable."""

    _kind = "tf_config"

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        super().__init__([], 0, rpc_layer)
        self._task_type, self._task_id, self._environment = task_type, task_id, environment

    def _config(self):
        try:
            return json.loads(os.environ.get("TF_CONFIG", "{}") or "{}")
        except ValueError:
            return {}

    @property
    def environment(self):
        return self._environment if self._environment is not None else self._config().get("environment", "")

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        # TF's rules: session_master as given; '' for a cluster of one task; else the task's
        # address (ValueError when TF_CONFIG names no task and none is given).
        if self._config().get("session_master") is not None:
            return self._config()["session_master"]
        cluster = self.cluster_spec()
        if not cluster.jobs or (len(cluster.jobs) == 1 and cluster.num_tasks(cluster.jobs[0]) == 1):
            return ""
        task_type = task_type if task_type is not None else self.task_type
        task_id = task_id if task_id is not None else self.task_id
        if task_type is None or task_id is None:
            raise ValueError("TF_CONFIG names no task: give master() a task_type and a task_id")
        rpc_layer = rpc_layer if rpc_layer is not None else (self.rpc_layer or self._config().get("rpc_layer"))
        return format_master_url(cluster.task_address(task_type, task_id), rpc_layer)


class SlurmClusterResolver(_EnvironmentResolver):
    """Tasks of a Slurm job step: SLURM_PROCID, SLURM_STEP_NODELIST (or SLURM_JOB_NODELIST) and
    SLURM_STEP_TASKS_PER_NODE (or SLURM_TASKS_PER_NODE). As TF's: the jobs, sorted by name,
    take the ranks in turn and must use them all; a task's port is port_base + its index on
    its node. Unlike TF's, nodes keep Slurm's order (TF sorts their names as strings, so n10
    comes before n2, against the ranks Slurm gave) and host lists may have several bracket
    groups, as scontrol expands them."""

    _kind = "slurm"

    def __init__(self, jobs=None, port_base=8888, gpus_per_node=None, gpus_per_task=None, tasks_per_node=None,
                 auto_set_gpu=True, rpc_layer="grpc"):
        # As TF: the jobs in sorted order of their names take the ranks in turn.
        super().__init__(None if jobs is None else sorted(_job_counts(jobs)), int(port_base), rpc_layer)
        self._tasks_per_node = tasks_per_node  # None: from Slurm; an int; or {host: n}

    def _resolve(self):
        # TF refuses jobs that do not use every task Slurm started (`tw server` lets extra
        # ranks fail alone).
        if self._jobs is not None:
            try:
                started = self._default_jobs()[0][1]
            except (RuntimeError, ValueError):
                started = None  # the C++ resolver says what is missing or malformed
            wanted = sum(n for _, n in self._jobs)
            if started is not None and wanted != started:
                raise RuntimeError("slurm resolver: the jobs %s need %d tasks but Slurm started %d (TF's resolver "
                                   "wants them all used)" % (dict(self._jobs), wanted, started))
        return super()._resolve()

    def _environ(self):
        env = dict(os.environ)
        if self._tasks_per_node is None:
            return env
        hosts = expand_hostlist(env.get("SLURM_STEP_NODELIST") or env.get("SLURM_JOB_NODELIST") or "")
        if isinstance(self._tasks_per_node, dict):
            missing = [h for h in hosts if h not in self._tasks_per_node]
            if missing:
                raise ValueError("tasks_per_node has no count for the nodes %s" % missing)
            counts = [str(int(self._tasks_per_node[h])) for h in hosts]
        else:
            counts = [str(int(self._tasks_per_node))] * len(hosts)
        env["SLURM_STEP_TASKS_PER_NODE"] = ",".join(counts)
        return env

    def _default_jobs(self):
        env = self._environ()
        tasks = env.get("SLURM_STEP_TASKS_PER_NODE") or env.get("SLURM_TASKS_PER_NODE")
        if not tasks:
            raise RuntimeError("slurm resolver: SLURM_STEP_TASKS_PER_NODE or SLURM_TASKS_PER_NODE are not set "
                               "(start each task with srun)")
        return [("worker", sum(int(n) for n in expand_tasks_per_node(tasks)))]


class MPIClusterResolver(_EnvironmentResolver):
    """Ranks of an Open MPI job (OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE), all on
    this host (host:port_base+rank); across hosts use `tw server --cluster_resolver=mpi`."""

    _kind = "mpi"

    def __init__(self, jobs=None, port_base=8888, rpc_layer="grpc", host=None):
        super().__init__(None if jobs is None else _job_counts(jobs), int(port_base), rpc_layer,
                         {"host": host} if host else None)

    def _default_jobs(self):
        size = os.environ.get("OMPI_COMM_WORLD_SIZE")
        if not size:
            raise RuntimeError("mpi resolver: OMPI_COMM_WORLD_SIZE is not set (start each task with Open MPI's mpirun)")
        return [("worker", int(size))]


class KubernetesClusterResolver(_EnvironmentResolver):
    """Pods of one StatefulSet per job (named statefulset_prefix + job) behind one headless
    Service: this pod's job and index from its host name <statefulset>-<ordinal>, the peers as
    <statefulset>-<i>.<service>.<namespace>.svc.<cluster_domain>:<port>. The namespace
    defaults to POD_NAMESPACE, else the service account's, else "default"."""

    _kind = "kubernetes"

    def __init__(self, jobs, port=8888, service="tw", namespace=None, statefulset_prefix="tw-",
                 cluster_domain="cluster.local", rpc_layer="grpc", hostname=None):
        options = {"service": service, "statefulset_prefix": statefulset_prefix, "cluster_domain": cluster_domain}
        if namespace:
            options["namespace"] = namespace
        if hostname:
            options["hostname"] = hostname
        super().__init__(_job_counts(jobs), int(port), rpc_layer, options)


def check_health(address, wait_seconds=0.0, timeout_ms=2000):
    """{'devices', 'incarnation', 'active_steps'} of the task at host:port, as `tw health`;
    tf.errors.UnavailableError (or the call's other error) when it does not answer in time."""
    devices, incarnation, active_steps = _core.check_health(address.replace("grpc://", "", 1), float(wait_seconds),
                                                            int(timeout_ms))
    return {"devices": list(devices), "incarnation": incarnation, "active_steps": active_steps}


# tf.distribute.cluster_resolver, importable as a module too.
cluster_resolver = types.ModuleType(__name__ + ".cluster_resolver", "tf.distribute.cluster_resolver")
for _name in ("ClusterResolver", "SimpleClusterResolver", "TFConfigClusterResolver", "SlurmClusterResolver",
              "MPIClusterResolver", "KubernetesClusterResolver", "expand_hostlist", "expand_tasks_per_node",
              "format_master_url"):
    setattr(cluster_resolver, _name, globals()[_name])
sys.modules[cluster_resolver.__name__] = cluster_resolver
