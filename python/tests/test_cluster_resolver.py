"""tf.distribute.cluster_resolver (python/tensorweave/distribute.py over the C++ resolvers),
`tw server --cluster_resolver` and `tw health` through the real binary: three server
processes started as Slurm and Open MPI would start them (their environment variables set
by hand here; scripts/slurm_test.sh and scripts/mpi_test.sh run the real managers) resolve
one cluster, answer `tw health`, and run a graph across their tasks."""
import os
import signal
import subprocess
import time

import numpy as np
import pytest

import tensorweave as tf
from conftest import _bindable, free_port
from tensorweave.distribute import cluster_resolver as cr
from tf_peer import BUILD_DIR

TW = os.path.join(BUILD_DIR, "tools", "tw")

SLURM_VARS = ("SLURM_PROCID", "SLURM_LOCALID", "SLURM_JOB_NODELIST", "SLURM_STEP_NODELIST", "SLURM_TASKS_PER_NODE",
              "SLURM_STEP_TASKS_PER_NODE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
              "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "TF_CONFIG", "POD_NAMESPACE")


@pytest.fixture
def env(monkeypatch):
    for name in SLURM_VARS:
        monkeypatch.delenv(name, raising=False)

    def set_vars(**values):
        for name, value in values.items():
            monkeypatch.setenv(name, str(value))
    return set_vars


def test_expand_hostlist_as_scontrol():
    assert cr.expand_hostlist("node[01-03,7],gpu-a[1-2]") == ["node01", "node02", "node03", "node7", "gpu-a1",
                                                               "gpu-a2"]
    assert cr.expand_hostlist("r[1-2]n[1-2]") == ["r1n1", "r1n2", "r2n1", "r2n2"]
    assert cr.expand_hostlist("n[8-10]") == ["n8", "n9", "n10"]
    assert cr.expand_tasks_per_node("2(x3),1") == [2, 2, 2, 1]
    with pytest.raises(ValueError, match=r"host list 'n\[3-1\]' has the descending range '3-1' \(character 3\)"):
        cr.expand_hostlist("n[3-1]")
    with pytest.raises(ValueError, match=r"has a '\[' that is not closed"):
        cr.expand_hostlist("n[1-2")
    with pytest.raises(ValueError, match=r"tasks per node '2\(x0\)'"):
        cr.expand_tasks_per_node("2(x0)")


def test_slurm_resolver(env):
    env(SLURM_PROCID=3, SLURM_LOCALID=0, SLURM_JOB_NODELIST="n[1-2]", SLURM_TASKS_PER_NODE="3,1")
    r = cr.SlurmClusterResolver({"ps": 1, "worker": 3}, port_base=9000)
    assert r.cluster_spec().as_dict() == {"ps": ["n1:9000"], "worker": ["n1:9001", "n1:9002", "n2:9000"]}
    assert (r.task_type, r.task_id) == ("worker", 2)
    assert r.master() == "grpc://n2:9000"
    assert r.master("ps", 0, rpc_layer="") == "grpc://n1:9000"  # "" is no override, as in TF
    assert r.num_accelerators() == {}
    r.task_type, r.task_id = "ps", 0  # settable, as TF's
    assert r.master() == "grpc://n1:9000"
    # Without jobs, every task is a worker; tasks_per_node overrides Slurm's.
    default = cr.SlurmClusterResolver(port_base=9000)
    assert default.cluster_spec().as_dict() == {"worker": ["n1:9000", "n1:9001", "n1:9002", "n2:9000"]}
    env(SLURM_PROCID=1, SLURM_LOCALID=0)
    fixed = cr.SlurmClusterResolver(tasks_per_node=1, port_base=9000)
    assert fixed.cluster_spec().as_dict() == {"worker": ["n1:9000", "n2:9000"]}
    per_host = cr.SlurmClusterResolver(tasks_per_node={"n1": 1, "n2": 1})
    assert per_host.master() == "grpc://n2:8888"
    with pytest.raises(ValueError, match=r"tasks_per_node has no count for the nodes \['n2'\]"):
        cr.SlurmClusterResolver(tasks_per_node={"n1": 1}).cluster_spec()


def test_slurm_resolver_errors(env):
    with pytest.raises(RuntimeError, match=r"slurm resolver: SLURM_PROCID is not set \(start each task with srun\)"):
        cr.SlurmClusterResolver({"worker": 1}).cluster_spec()
    env(SLURM_PROCID=0, SLURM_JOB_NODELIST="n[1-", SLURM_TASKS_PER_NODE="1")
    with pytest.raises(ValueError, match=r"slurm resolver: SLURM_JOB_NODELIST: host list 'n\[1-' has a '\['"):
        cr.SlurmClusterResolver({"worker": 1}).cluster_spec()
    env(SLURM_JOB_NODELIST="n1")
    with pytest.raises(RuntimeError, match=r"the jobs \{'ps': 1, 'worker': 1\} need 2 tasks but Slurm started 1"):
        cr.SlurmClusterResolver({"ps": 1, "worker": 1}).cluster_spec()
    with pytest.raises(ValueError, match="jobs must be a non-empty dict"):
        cr.SlurmClusterResolver({})
    env(SLURM_TASKS_PER_NODE="3")
    with pytest.raises(RuntimeError, match=r"the jobs \{'ps': 1, 'worker': 1\} need 2 tasks but Slurm started 3"):
        cr.SlurmClusterResolver({"ps": 1, "worker": 1}).cluster_spec()
    # As TF: jobs in sorted order of their names.
    env(SLURM_PROCID=0)
    r = cr.SlurmClusterResolver({"worker": 2, "chief": 1})
    assert (r.task_type, r.task_id) == ("chief", 0)
    assert r.cluster_spec().as_dict() == {"chief": ["n1:8888"], "worker": ["n1:8889", "n1:8890"]}


def test_tf_config_resolver(env):
    env(TF_CONFIG='{"cluster": {"ps": ["h:1"], "worker": ["h:2", "h:3"]}, "task": {"type": "worker", "index": 1}, '
                  '"rpc_layer": "grpc"}')
    r = cr.TFConfigClusterResolver()
    assert r.cluster_spec().as_dict() == {"ps": ["h:1"], "worker": ["h:2", "h:3"]}
    assert (r.task_type, r.task_id) == ("worker", 1)
    assert r.master() == "grpc://h:3"
    assert cr.TFConfigClusterResolver(task_type="ps", task_id=0, rpc_layer="grpc").master() == "grpc://h:1"
    env(TF_CONFIG='{"cluster": {"worker": ["h:2"]}}')
    assert cr.TFConfigClusterResolver().master() == ""  # one task: TF's answer
    env(TF_CONFIG='{"cluster": {"worker": ["h:2", "h:3"]}}')
    assert cr.TFConfigClusterResolver().task_type is None
    assert cr.TFConfigClusterResolver().master("worker", 1) == "h:3"
    with pytest.raises(ValueError, match="TF_CONFIG names no task"):
        cr.TFConfigClusterResolver().master()


def test_mpi_resolver_one_host(env):
    env(OMPI_COMM_WORLD_RANK=1, OMPI_COMM_WORLD_SIZE=3, OMPI_COMM_WORLD_LOCAL_RANK=1, OMPI_COMM_WORLD_LOCAL_SIZE=3)
    r = cr.MPIClusterResolver({"ps": 1, "worker": 2}, port_base=7000, host="h")
    assert r.cluster_spec().as_dict() == {"ps": ["h:7000"], "worker": ["h:7001", "h:7002"]}
    assert (r.task_type, r.task_id, r.master()) == ("worker", 0, "grpc://h:7001")
    env(OMPI_COMM_WORLD_LOCAL_SIZE=1, OMPI_COMM_WORLD_LOCAL_RANK=0)
    with pytest.raises(RuntimeError, match="the ranks run on several hosts"):
        r.cluster_spec()


def test_kubernetes_resolver(env):
    env(POD_NAMESPACE="ml")
    r = cr.KubernetesClusterResolver({"ps": 1, "worker": 2}, port=2222, hostname="tw-worker-1")
    assert r.cluster_spec().as_dict() == {
        "ps": ["tw-ps-0.tw.ml.svc.cluster.local:2222"],
        "worker": ["tw-worker-0.tw.ml.svc.cluster.local:2222", "tw-worker-1.tw.ml.svc.cluster.local:2222"]}
    assert (r.task_type, r.task_id) == ("worker", 1)
    with pytest.raises(ValueError, match=r"pod web-0's StatefulSet 'web' is none of the jobs' \(tw-ps, tw-worker\)"):
        cr.KubernetesClusterResolver({"ps": 1, "worker": 2}, hostname="web-0").cluster_spec()


def _base_port():
    """A port P with P+1 and P+2 free too (the three tasks of one host)."""
    for _ in range(100):
        port = free_port()
        if _bindable(port + 1) and _bindable(port + 2):
            return port
    raise RuntimeError("no three consecutive free ports")


def _start(resolver, base_port, env_of_rank):
    procs = []
    for rank in range(3):
        env = {k: v for k, v in os.environ.items() if k not in SLURM_VARS}
        env.update({k: str(v) for k, v in env_of_rank(rank).items()})
        procs.append(subprocess.Popen(
            [TW, "server", "--cluster_resolver=" + resolver, "--resolver_jobs=ps:1,worker:2",
             "--base_port=%d" % base_port], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    return procs


def _stop(procs):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    return [p.communicate(timeout=10)[0] for p in procs]


@pytest.mark.parametrize("resolver", ["slurm", "mpi"])
def test_servers_resolve_one_cluster_and_run_a_graph(resolver):
    base = _base_port()
    host = "localhost"
    if resolver == "slurm":
        procs = _start("slurm", base, lambda rank: {"SLURM_PROCID": rank, "SLURM_LOCALID": rank,
                                                    "SLURM_JOB_NODELIST": host, "SLURM_TASKS_PER_NODE": 3})
    else:
        # Open MPI's variables; the host is this machine's name (without MPI in the build,
        # ranks on one host are resolved from the environment alone).
        host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
        if not _loopback(host):
            pytest.skip("this host's name %s is not a loopback address (the servers would need TLS)" % host)
        procs = _start("mpi", base, lambda rank: {"OMPI_COMM_WORLD_RANK": rank, "OMPI_COMM_WORLD_SIZE": 3,
                                                  "OMPI_COMM_WORLD_LOCAL_RANK": rank,
                                                  "OMPI_COMM_WORLD_LOCAL_SIZE": 3})
    if resolver == "mpi" and _tw_has_mpi():
        # MPI_Init outside mpirun makes a world of one rank: each task says so and stops.
        for out in _stop_when_done(procs):
            assert "tw server: mpi resolver: the address exchange (MPI_Allgather) gave 1 addresses for " \
                   "OMPI_COMM_WORLD_SIZE=3 (was this process started by mpirun?)" in out, out
        return
    try:
        spec = "ps|{h}:{0},worker|{h}:{1};{h}:{2}".format(base, base + 1, base + 2, h=host)
        for rank, port in enumerate(range(base, base + 3)):
            done = subprocess.run([TW, "health", "%s:%d" % (host, port), "--wait_seconds=20"], capture_output=True,
                                  text=True)
            assert done.returncode == 0, done.stderr + "".join(_stop(procs))
            job = "/job:ps/replica:0/task:0" if rank == 0 else "/job:worker/replica:0/task:%d" % (rank - 1)
            assert done.stdout.startswith("tw health: %s:%d is serving (%s/device:CPU:0; incarnation "
                                          % (host, port, job)), done.stdout
        assert tf.distribute.check_health("grpc://%s:%d" % (host, base), wait_seconds=5)["devices"] == [
            "/job:ps/replica:0/task:0/device:CPU:0"]
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
            with tf.device("/job:worker/task:0"):
                y = x * 2.0
            with tf.device("/job:worker/task:1"):
                z = tf.reduce_sum(y + 1.0)
            with tf.Session("grpc://%s:%d" % (host, base + 1)) as sess:
                assert sess.run(z) == pytest.approx(36.0)
    finally:
        outputs = _stop(procs)
    for rank, out in enumerate(outputs):
        job = "/job:ps/replica:0/task:0" if rank == 0 else "/job:worker/replica:0/task:%d" % (rank - 1)
        assert "tw server: cluster resolver %s: " % resolver in out, out
        assert "tw server: %s of cluster %s listening at" % (job, spec) in out, out


def _tw_has_mpi():
    try:
        with open(os.path.join(BUILD_DIR, "CMakeCache.txt")) as f:
            return "TW_HAVE_MPI:INTERNAL=ON" in f.read()
    except OSError:
        return False


def _stop_when_done(procs):
    return [p.communicate(timeout=30)[0] for p in procs]


def _loopback(host):
    import socket
    try:
        return all(info[4][0].startswith("127.") or info[4][0] == "::1" for info in socket.getaddrinfo(host, None))
    except OSError:
        return False


def test_tw_server_resolver_errors():
    def serve(*flags, **env):
        clean = {k: v for k, v in os.environ.items() if k not in SLURM_VARS}
        clean.update(env)
        return subprocess.run([TW, "server"] + list(flags), capture_output=True, text=True, env=clean, timeout=30)
    bad = serve("--cluster_resolver=k8s")
    assert bad.returncode == 2
    assert "tw server: --cluster_resolver must be tf_config, slurm, mpi or kubernetes, not 'k8s'" in bad.stderr
    assert "needs --resolver_jobs (e.g. ps:1,worker:2)" in serve("--cluster_resolver=slurm").stderr
    assert "--resolver_jobs: jobs 'ps:0'" in serve("--cluster_resolver=slurm", "--resolver_jobs=ps:0").stderr
    missing = serve("--cluster_resolver=slurm", "--resolver_jobs=ps:1")
    assert missing.returncode == 1
    assert "tw server: slurm resolver: SLURM_PROCID is not set (start each task with srun)" in missing.stderr
    malformed = serve("--cluster_resolver=slurm", "--resolver_jobs=ps:1", SLURM_PROCID="0",
                      SLURM_JOB_NODELIST="n[1-", SLURM_TASKS_PER_NODE="1")
    assert "SLURM_JOB_NODELIST: host list 'n[1-' has a '[' that is not closed (character 2)" in malformed.stderr
    both = serve("--cluster_resolver=slurm", "--cluster_spec=a|localhost:1")
    assert "give --cluster_spec or --cluster_resolver, not both" in both.stderr
    assert "mpi resolver: OMPI_COMM_WORLD_RANK is not set" in serve("--cluster_resolver=mpi",
                                                                   "--resolver_jobs=ps:1").stderr
    pod = serve("--cluster_resolver=kubernetes", "--resolver_jobs=ps:1", HOSTNAME="laptop")
    assert "kubernetes resolver: host name 'laptop' is not a StatefulSet pod's <statefulset>-<ordinal>" in pod.stderr


def test_tw_health_errors(tmp_path):
    port = free_port()
    down = subprocess.run([TW, "health", "localhost:%d" % port, "--wait_seconds=0.5"], capture_output=True, text=True)
    assert down.returncode == 1
    assert down.stderr.startswith("tw health: UNAVAILABLE: localhost:%d is not serving after " % port), down.stderr
    assert "Connection refused" in down.stderr
    usage = subprocess.run([TW, "health"], capture_output=True, text=True)
    assert usage.returncode == 2 and "give the task's ADDRESS (host:port) first" in usage.stderr
    bad = subprocess.run([TW, "health", "nohost"], capture_output=True, text=True)
    assert bad.returncode == 2 and "bad address 'nohost': expected host:port" in bad.stderr
    # A task that wants a token: refused at once, with what to give.
    token = tmp_path / "token"
    token.write_text("0123456789abcdef0123456789abcdef\n")
    server = subprocess.Popen([TW, "server", "--cluster_spec=local|localhost:%d" % port, "--job_name=local",
                               "--cluster_token_file=%s" % token], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    try:
        started = server.stdout.readline()
        assert "listening at grpc://localhost:%d" % port in started, started + "".join(_stop([server]))
        env = {k: v for k, v in os.environ.items() if not k.startswith("TW_CLUSTER_TOKEN")}
        refused = subprocess.run([TW, "health", "localhost:%d" % port, "--wait_seconds=20"], capture_output=True,
                                 text=True, env=env)
        assert refused.returncode == 1
        assert refused.stderr.startswith("tw health: UNAUTHENTICATED: localhost:%d is not serving after 1 tries" % port)
        assert "requires the cluster token" in refused.stderr, refused.stderr
        ok = subprocess.run([TW, "health", "localhost:%d" % port, "--cluster_token_file=%s" % token],
                            capture_output=True, text=True, env=env)
        assert ok.returncode == 0, ok.stderr
    finally:
        _stop([server])


def test_tw_health_waits_for_a_task_that_starts_later():
    # The probe starts first and meets a closed port; it must see the task once it serves.
    port = free_port()
    probe = subprocess.Popen([TW, "health", "localhost:%d" % port, "--wait_seconds=30"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    server = subprocess.Popen([TW, "server", "--cluster_spec=local|localhost:%d" % port, "--job_name=local"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, err = probe.communicate(timeout=40)
        assert probe.returncode == 0, err
        assert out.startswith("tw health: localhost:%d is serving (/job:local/replica:0/task:0/device:CPU:0;" % port)
    finally:
        _stop([server])
