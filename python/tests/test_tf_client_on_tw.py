"""A real TensorFlow client — tf.compat.v1.Session("grpc://...") in TensorFlow's own python
(tf_side/seed_client.py) — runs the seed programs on a cluster of `tw server` tasks,
which serve TensorFlow's MasterService beside ours. Results equal TensorFlow's own
single-process runs and tensorweave's; what tensorweave refuses reaches TensorFlow's
client as TensorFlow's error classes with our messages."""
import json

import numpy as np
import pytest

import tensorweave as tw

from conftest import free_port
from tf_peer import require_tensorflow, run_tf_script
from tw_tasks import TensorweaveTasks


@pytest.fixture(scope="module")
def tf_python():
    return require_tensorflow("test_tf_client_on_tw")


def start_cluster(flags=()):
    """Two `tw server` tasks of job "local", as the seed's create_worker.py makes them."""
    addresses = ["localhost:%d" % free_port(), "localhost:%d" % free_port()]
    tasks = {("local", 0): addresses[0], ("local", 1): addresses[1]}
    return addresses, TensorweaveTasks("local|" + ";".join(addresses), tasks, flags)


@pytest.fixture
def two_tasks():
    addresses, servers = start_cluster()
    yield addresses
    servers.stop()


def run_seed_programs(tf_python, target, tmp_path, *programs):
    values = np.random.RandomState(7).random_sample(100).astype(np.float32)
    np.save(tmp_path / "values.npy", values)
    out = run_tf_script(tf_python, "seed_client.py", target, str(tmp_path / "values.npy"), *programs)
    return values, json.loads(out.strip().splitlines()[-1])


def tensorweave_single_process(values):
    """Seed 000's 238 graph and the mean of `values` in one tensorweave process."""
    x = tw.constant(2)
    y = (x + 300) + (x - 66)
    p = tw.placeholder(tw.float32, 100)
    mean = tw.reduce_mean(p)
    with tw.Session() as sess:
        return sess.run([y, mean], {p: values})


def test_seed_programs_from_a_tensorflow_client(tf_python, two_tasks, tmp_path):
    values, got = run_seed_programs(tf_python, "grpc://" + two_tasks[0], tmp_path, "hello", "mean",
                                    "distributed_238", "map_reduce_mean")
    hello_238, tw_mean = tensorweave_single_process(values)
    assert hello_238 == 238
    assert got["hello"] == {"remote": 238, "local": 238}
    assert got["distributed_238"] == {"remote": 238}
    # One float32 mean of the same 100 values: TensorFlow's and ours may sum in another order.
    assert got["mean"]["remote"] == pytest.approx(got["mean"]["local"], rel=1e-6)
    assert got["mean"]["remote"] == pytest.approx(float(tw_mean), rel=1e-6)
    halves = (values[:50].mean(dtype=np.float64) + values[50:].mean(dtype=np.float64)) / 2
    assert got["map_reduce_mean"]["remote"] == pytest.approx(halves, rel=1e-6)
    assert got["map_reduce_mean"]["remote"] == pytest.approx(got["mean"]["local"], rel=1e-6)


def test_extend_session_and_callables_from_a_tensorflow_client(tf_python, two_tasks, tmp_path):
    values, got = run_seed_programs(tf_python, "grpc://" + two_tasks[0], tmp_path, "extend_and_callable")
    total, biggest, called, devices = got["extend_and_callable"]["remote"]
    assert total == pytest.approx(values.sum(dtype=np.float64), rel=1e-6)
    assert biggest == float(values.max())
    assert called == pytest.approx(total, rel=1e-6)
    assert got["extend_and_callable"]["remote"][:3] == pytest.approx(got["extend_and_callable"]["local"][:3], rel=1e-6)
    assert devices == ["/job:local/replica:0/task:%d/device:CPU:0" % t for t in (0, 1)]


def test_string_feeds_and_fetches_from_a_tensorflow_client(tf_python, two_tasks, tmp_path):
    _, got = run_seed_programs(tf_python, "grpc://" + two_tasks[0], tmp_path, "strings")
    expected = ["\x00a-x", "b-" + ("\u00e9" * 300).encode("utf-8").decode("latin-1")]
    assert got["strings"] == {"remote": expected, "local": expected}


def test_an_op_tensorweave_lacks_is_refused_with_its_name(tf_python, two_tasks, tmp_path):
    _, got = run_seed_programs(tf_python, "grpc://" + two_tasks[0], tmp_path, "unsupported_op")
    result = got["unsupported_op"]
    assert "remote" not in result, result
    assert result["error"].startswith("InvalidArgumentError: "), result
    assert "unknown op 'UnicodeScript'" in result["error"], result
    assert len(result["local"]) == 3  # TensorFlow itself runs it.


def test_a_cluster_token_is_still_required_of_tensorflow_clients(tf_python, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text("a-cluster-token-of-32-characters\n")
    addresses, servers = start_cluster(["--cluster_token_file=" + str(token_file)])
    try:
        _, got = run_seed_programs(tf_python, "grpc://" + addresses[0], tmp_path, "hello")
    finally:
        servers.stop()
    result = got["hello"]
    assert "remote" not in result, result
    assert result["error"].startswith("UnauthenticatedError: "), result
    assert "this tensorweave server requires the cluster token" in result["error"], result


def test_seed_003_data_parallel_training_from_a_tensorflow_client(tf_python, tmp_path):
    """TensorFlow's own gradient and Adam nodes, the towers on two tensorweave tasks and the
    parameters on a third: the losses follow TensorFlow's single-process training."""
    ports = {job: "localhost:%d" % free_port() for job in ("master", "worker", "worker_")}
    spec = ",".join("%s|%s" % item for item in ports.items())
    tasks = TensorweaveTasks(spec, {(job, 0): address for job, address in ports.items()})
    try:
        _, got = run_seed_programs(tf_python, "grpc://" + ports["master"], tmp_path, "data_parallel")
    finally:
        tasks.stop()
    result = got["data_parallel"]
    assert "error" not in result, result
    remote, local = result["remote"], result["local"]
    assert len(remote) == len(local) == 30
    assert remote[-1] < remote[0] / 2  # It learns.
    # The halves' averaged gradient is the whole batch's, up to float32 rounding.
    np.testing.assert_allclose(remote, local, rtol=1e-4)
