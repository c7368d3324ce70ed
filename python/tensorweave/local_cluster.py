"""A cluster of in-process servers on free loopback ports, for examples and tests that are
given no addresses (not a TensorFlow API)."""
from tensorweave import _core, train


def start_local_cluster(job_name="local", num_tasks=2, jobs=None):
    """Starts `num_tasks` servers of job `job_name` in this process, or with jobs
    ({"ps": 1, "worker": 2}) every task of those jobs (servers in job name order, tasks
    ascending); returns (tf.train.ClusterSpec, [tf.train.Server]). Keep the servers
    referenced while in use."""
    if jobs is not None:
        core_cluster, core_servers = _core.start_in_process_jobs(dict(jobs))
    else:
        core_cluster, core_servers = _core.start_in_process_cluster(job_name, num_tasks)
    return train.ClusterSpec(core_cluster), [train.Server._from_core(core) for core in core_servers]
