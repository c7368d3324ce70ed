"""Security settings and resource limits from Python: tw.train.TransportSecurity (cluster
token, TLS) given to tw.train.Server, tw.Session, MonitoredTrainingSession and
`python3 -m tensorweave.server`, and tw.train.ResourceLimits / ConfigProto(max_tensor_bytes)."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import tensorweave as tf

from conftest import ServerProcesses, free_port

TOKEN = "0123456789abcdef0123456789abcdef"
WRONG_TOKEN = "fedcba9876543210fedcba9876543210"


@pytest.fixture(autouse=True)
def no_security_environment(monkeypatch):
    """Clients take empty fields from these variables: none of the tests' own may leak in."""
    for name in ("TW_TLS_CERT", "TW_TLS_KEY", "TW_TLS_CA", "TW_CLUSTER_TOKEN_FILE", "TW_CLUSTER_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def one_task_server(**kwargs):
    cluster = tf.train.ClusterSpec({"local": ["localhost:%d" % free_port()]})
    return tf.train.Server(cluster, job_name="local", task_index=0, **kwargs)


@pytest.fixture
def token_server():
    server = one_task_server(security=tf.train.TransportSecurity(cluster_token=TOKEN))
    yield server
    server.stop()


def test_server_with_a_token_refuses_sessions_without_it(token_server):
    x = tf.placeholder(tf.float32, [2])
    y = x * 2
    with pytest.raises(tf.errors.UnauthenticatedError, match="this tensorweave server requires the cluster token"):
        with tf.Session(token_server.target) as sess:
            sess.run(y, {x: [1, 2]})
    wrong = tf.train.TransportSecurity(cluster_token=WRONG_TOKEN)
    with pytest.raises(tf.errors.UnauthenticatedError, match="wrong cluster token"):
        with tf.Session(token_server.target, security=wrong) as sess:
            sess.run(y, {x: [1, 2]})
    with tf.Session(token_server.target, security=tf.train.TransportSecurity(cluster_token=TOKEN)) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), [2, 4])


def test_token_file_and_the_environment(token_server, tmp_path, monkeypatch):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    y = tf.constant(20) + 3
    with tf.Session(token_server.target, security=tf.train.TransportSecurity(cluster_token_file=token_file)) as sess:
        assert sess.run(y) == 23
    monkeypatch.setenv("TW_CLUSTER_TOKEN_FILE", str(token_file))
    with tf.Session(token_server.target) as sess:
        assert sess.run(y) == 23


def test_monitored_training_session_presents_the_token(token_server):
    step = tf.train.get_or_create_global_step()
    inc = step.assign_add(1)
    with pytest.raises(tf.errors.UnauthenticatedError, match="requires the cluster token"):
        with tf.train.MonitoredTrainingSession(master=token_server.target) as sess:
            sess.run(inc)
    security = tf.train.TransportSecurity(cluster_token=TOKEN)
    with tf.train.MonitoredTrainingSession(master=token_server.target, security=security) as sess:
        assert sess.run(inc) == 1


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    """A CA, a server certificate for localhost signed by it, a client certificate signed by
    it, and a token file, made with the openssl CLI (as tests/testing/test_certificates.cc)."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make test certificates")
    d = tmp_path_factory.mktemp("tls")
    new_key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    openssl("req", "-x509", *new_key, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=tw-test-ca")
    for name, san in (("server", "DNS:localhost,IP:127.0.0.1"), ("client", "DNS:tensorweave-client")):
        (d / (name + ".ext")).write_text("basicConstraints=CA:FALSE\nsubjectAltName=%s\n" % san)
        openssl("req", *new_key, "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + name)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-out", name + ".pem", "-extfile", name + ".ext")
    (d / "token").write_text(TOKEN + "\n")
    return d


def test_server_process_with_mutual_tls_and_a_token(certificates):
    d = certificates
    spec = "local|localhost:%d" % free_port()
    servers = ServerProcesses(spec, "local", 1, flags=[
        "--tls_cert=%s" % (d / "server.pem"), "--tls_key=%s" % (d / "server.key"), "--tls_ca=%s" % (d / "ca.pem"),
        "--cluster_token_file=%s" % (d / "token"), "--max_tensor_bytes=4096"])
    try:
        target = "grpc://" + spec.split("|")[1]
        y = tf.constant([1.0, 2.0]) * 3
        client = tf.train.TransportSecurity(cluster_token_file=d / "token", tls_ca_file=d / "ca.pem",
                                            tls_cert_file=d / "client.pem", tls_key_file=d / "client.key")
        dims, filled = fill_graph()
        with tf.Session(target, security=client) as sess:
            np.testing.assert_array_equal(sess.run(y), [3, 6])
            with pytest.raises(tf.errors.ResourceExhaustedError, match="over the max_tensor_bytes limit of 4096"):
                sess.run(filled, {dims: [1025]})
        # Without a client certificate the server ends the TLS handshake.
        no_cert = tf.train.TransportSecurity(cluster_token_file=d / "token", tls_ca_file=d / "ca.pem")
        with pytest.raises(tf.errors.UnavailableError, match="over TLS: failed to connect"):
            with tf.Session(target, security=no_cert) as sess:
                sess.run(y)
        # TLS without the token gets through the handshake and is refused by the token check.
        no_token = tf.train.TransportSecurity(tls_ca_file=d / "ca.pem", tls_cert_file=d / "client.pem",
                                              tls_key_file=d / "client.key")
        with pytest.raises(tf.errors.UnauthenticatedError, match="requires the cluster token"):
            with tf.Session(target, security=no_token) as sess:
                sess.run(y)
    finally:
        [(code, _, err)] = servers.stop()
    assert code == 0, err


def test_local_server_with_tls(certificates):
    d = certificates
    security = tf.train.TransportSecurity(cluster_token_file=d / "token", tls_ca_file=d / "ca.pem",
                                          tls_cert_file=d / "server.pem", tls_key_file=d / "server.key")
    server = tf.train.Server.create_local_server(security=security)
    try:
        client = tf.train.TransportSecurity(cluster_token=TOKEN, tls_ca_file=d / "ca.pem",
                                            tls_cert_file=d / "client.pem", tls_key_file=d / "client.key")
        with tf.Session(server.target, security=client) as sess:
            assert sess.run(tf.constant(7) * 6) == 42
    finally:
        server.stop()


def test_non_loopback_address_needs_security_or_insecure_allow_remote():
    cluster = tf.train.ClusterSpec({"local": ["0.0.0.0:%d" % free_port()]})
    with pytest.raises(tf.errors.FailedPreconditionError, match="without TLS or a cluster token"):
        tf.train.Server(cluster, job_name="local", task_index=0)
    server = tf.train.Server(cluster, job_name="local", task_index=0, insecure_allow_remote=True)
    server.stop()


def fill_graph():
    dims = tf.placeholder(tf.int32, [None])
    return dims, tf.fill(dims, 1.0)


def test_server_limits_refuse_a_kernel_output_over_max_tensor_bytes():
    server = one_task_server(limits=tf.train.ResourceLimits(max_tensor_bytes=4096))
    try:
        dims, filled = fill_graph()
        with tf.Session(server.target) as sess:
            assert sess.run(filled, {dims: [1024]}).shape == (1024,)
            with pytest.raises(tf.errors.ResourceExhaustedError,
                               match=r"output 0: float32 \[1025\] tensor of 4100 bytes is over the "
                                     r"max_tensor_bytes limit of 4096"):
                sess.run(filled, {dims: [1025]})
            # A feed over the limit is refused too.
            x = tf.placeholder(tf.float32, [None])
            with pytest.raises(tf.errors.ResourceExhaustedError, match="feed .* tensor of 4100 bytes"):
                sess.run(x + 1, {x: np.zeros(1025, np.float32)})
    finally:
        server.stop()


def test_local_session_max_tensor_bytes():
    dims, filled = fill_graph()
    with tf.Session(config=tf.ConfigProto(max_tensor_bytes=400)) as sess:
        assert sess.run(filled, {dims: [10, 10]}).shape == (10, 10)
        with pytest.raises(tf.errors.ResourceExhaustedError,
                           match=r"\(Fill\): output 0: float32 \[10,11\] tensor of 440 bytes is over the "
                                 r"max_tensor_bytes limit of 400"):
            sess.run(filled, {dims: [10, 11]})


def test_settings_are_validated():
    with pytest.raises(TypeError, match="cluster_token must be a str"):
        tf.train.TransportSecurity(cluster_token=12345)
    with pytest.raises(TypeError, match="tls_ca_file must be a path"):
        tf.train.TransportSecurity(tls_ca_file=3)
    with pytest.raises(ValueError, match="max_graph_nodes must be a positive integer, not 0"):
        tf.train.ResourceLimits(max_graph_nodes=0)
    with pytest.raises(TypeError, match="security must be a tw.train.TransportSecurity"):
        one_task_server(security=TOKEN)
    with pytest.raises(ValueError, match="max_tensor_bytes must be a positive integer"):
        tf.Session(config=tf.ConfigProto(max_tensor_bytes=-1))
    limits = tf.train.ResourceLimits(max_concurrent_steps=8)
    assert (limits.max_concurrent_steps, limits.max_tensor_bytes) == (8, 4 << 30)
    # The token stays out of reprs (and so out of logs).
    assert TOKEN not in repr(tf.train.TransportSecurity(cluster_token=TOKEN, tls_ca_file="ca.pem"))
    assert "tls_ca_file='ca.pem'" in repr(tf.train.TransportSecurity(tls_ca_file=os.path.join("ca.pem")))
