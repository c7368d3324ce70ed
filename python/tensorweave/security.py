"""tw.train.TransportSecurity and tw.train.ResourceLimits: what a cluster demands of its
clients and what one request may make a server hold (C++ tensorweave/security.h and
tensorweave/resource_limits.h). TensorFlow 1.x had neither; they are keywords of
tw.train.Server, tw.Session and tw.train.MonitoredTrainingSession:

    security = tw.train.TransportSecurity(cluster_token_file="token", tls_ca_file="ca.pem",
                                          tls_cert_file="task.pem", tls_key_file="task.key")
    server = tw.train.Server(cluster, "worker", 0, security=security)
    with tw.Session(server.target, security=tw.train.TransportSecurity(cluster_token_file="token")):
        ...
"""
import os

from tensorweave import _core


def _path(name, value):
    if value is None:
        return ""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError("%s must be a path, not %r" % (name, value))
    value = os.fspath(value)
    return value.decode() if isinstance(value, bytes) else value


class TransportSecurity:
    """TLS from PEM files and the shared cluster token.

    tls_cert_file, tls_key_file: this side's certificate chain and key, both or neither. A
      server with them serves TLS only (and presents them to the other tasks); a client
      presents them for mutual TLS.
    tls_ca_file: CA certificates. A server requires every client to present a certificate
      they signed (mutual TLS); a client verifies the server against them (without it:
      against the system's roots). A client uses TLS when it has a CA or a certificate.
    cluster_token_file / cluster_token: the shared token (at least 16 printable characters),
      from a file or given directly; sent by clients and required by servers on every call.
    A client's empty fields are taken from TW_TLS_CERT, TW_TLS_KEY, TW_TLS_CA,
    TW_CLUSTER_TOKEN_FILE or TW_CLUSTER_TOKEN when set; a server's are not."""

    def __init__(self, cluster_token=None, cluster_token_file=None, tls_ca_file=None, tls_cert_file=None,
                 tls_key_file=None):
        if cluster_token is not None and not isinstance(cluster_token, str):
            raise TypeError("cluster_token must be a str, not %r" % type(cluster_token).__name__)
        self.cluster_token = cluster_token or ""
        self.cluster_token_file = _path("cluster_token_file", cluster_token_file)
        self.tls_ca_file = _path("tls_ca_file", tls_ca_file)
        self.tls_cert_file = _path("tls_cert_file", tls_cert_file)
        self.tls_key_file = _path("tls_key_file", tls_key_file)

    def __repr__(self):
        fields = ["%s=%r" % (k, v) for k, v in sorted(vars(self).items()) if v and k != "cluster_token"]
        if self.cluster_token:
            fields.append("cluster_token=<hidden>")  # A secret stays out of logs.
        return "TransportSecurity(%s)" % ", ".join(fields)

    def _to_core(self):
        core = _core.TransportSecurity()
        core.cluster_token = self.cluster_token
        core.cluster_token_file = self.cluster_token_file
        core.tls_ca_file = self.tls_ca_file
        core.tls_cert_file = self.tls_cert_file
        core.tls_key_file = self.tls_key_file
        return core


def _security_to_core(security):
    if security is None:
        return _core.TransportSecurity()
    if not isinstance(security, TransportSecurity):
        raise TypeError("security must be a tw.train.TransportSecurity, not %r" % type(security).__name__)
    return security._to_core()


def _positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError("%s must be a positive integer, not %r" % (name, value))
    return value


class ResourceLimits:
    """Caps on what one request may make a server hold; a request over one fails with
    ResourceExhaustedError naming the limit. None keeps the default.

    max_tensor_bytes: any one tensor fed, received from another task, decoded from a
      GraphDef constant or made by a kernel at run time (default 4 GiB).
    max_graph_nodes, max_graph_bytes: a GraphDef's size (defaults 2^20 nodes, 1 GiB).
    max_concurrent_steps: steps a server's master runs at once (default 1024)."""

    _FIELDS = ("max_tensor_bytes", "max_graph_nodes", "max_graph_bytes", "max_concurrent_steps")

    def __init__(self, max_tensor_bytes=None, max_graph_nodes=None, max_graph_bytes=None,
                 max_concurrent_steps=None):
        defaults = _core.ResourceLimits()
        given = dict(max_tensor_bytes=max_tensor_bytes, max_graph_nodes=max_graph_nodes,
                     max_graph_bytes=max_graph_bytes, max_concurrent_steps=max_concurrent_steps)
        for name in self._FIELDS:
            value = given[name]
            setattr(self, name, getattr(defaults, name) if value is None else _positive_int(name, value))

    def __repr__(self):
        return "ResourceLimits(%s)" % ", ".join("%s=%d" % (k, getattr(self, k)) for k in self._FIELDS)

    def _to_core(self):
        core = _core.ResourceLimits()
        for name in self._FIELDS:
            setattr(core, name, getattr(self, name))
        return core


def _limits_to_core(limits):
    if limits is None:
        return _core.ResourceLimits()
    if not isinstance(limits, ResourceLimits):
        raise TypeError("limits must be a tw.train.ResourceLimits, not %r" % type(limits).__name__)
    return limits._to_core()
