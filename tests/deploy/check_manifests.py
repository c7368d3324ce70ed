#!/usr/bin/env python3
"""Checks deploy/kubernetes against what `tw server --cluster_resolver=kubernetes` and
deploy/make_secrets.sh expect, then has kubectl read them (client-side dry run).

1. Consistency (what a schema cannot see): the Service is headless and publishes not-ready
   pods; each StatefulSet is named <prefix><job>, runs under that Service, has as many
   replicas as its job has tasks in --resolver_jobs, selects its own pods; the TLS and token
   flags point into the Secrets make_secrets.sh writes (keys included); the probes run
   `tw health` on the served port; resources are requested.
2. The real binary: `tw server` with a pod's args (paths swapped for local files) resolves the
   cluster the manifests imply and gets as far as listening on its pod's DNS name.
3. kubectl: `kubectl apply --dry-run=client --validate=false` of the manifests and of the
   Secrets against a stand-in API server that answers discovery only (this machine has no
   cluster and kubectl cannot validate offline: its schemas come from the server).

usage: check_manifests.py REPO_ROOT TW_BINARY     (prints PASS/FAIL lines; exit 1 on a failure)
"""
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import yaml

FAILURES = []


def check(ok, what):
    print("%s: %s" % ("PASS" if ok else "FAIL", what))
    if not ok:
        FAILURES.append(what)
    return ok


def flag(args, name):
    for arg in args:
        if arg.startswith("--%s=" % name):
            return arg.split("=", 1)[1]
    return None


def load(root):
    docs = []
    directory = os.path.join(root, "deploy", "kubernetes")
    kustomization = yaml.safe_load(open(os.path.join(directory, "kustomization.yaml")))
    for name in kustomization["resources"]:
        docs.extend(d for d in yaml.safe_load_all(open(os.path.join(directory, name))) if d)
    return docs


def consistency(docs, secrets):
    services = [d for d in docs if d["kind"] == "Service"]
    sets = [d for d in docs if d["kind"] == "StatefulSet"]
    check(len(services) == 1 and len(sets) >= 1, "one Service and a StatefulSet per job")
    service = services[0]
    check(service["spec"].get("clusterIP") == "None", "the Service is headless (clusterIP: None)")
    check(service["spec"].get("publishNotReadyAddresses") is True,
          "the Service publishes pods before they are ready (tasks find each other while starting)")
    ports = {p["port"] for p in service["spec"]["ports"]}
    jobs_flags = set()
    for s in sets:
        name, spec = s["metadata"]["name"], s["spec"]
        pod = spec["template"]["spec"]
        labels = spec["template"]["metadata"]["labels"]
        container = pod["containers"][0]
        args = container["args"]
        check(args[0] == "server" and flag(args, "cluster_resolver") == "kubernetes",
              "%s runs tw server --cluster_resolver=kubernetes" % name)
        jobs = dict((j, int(n)) for j, n in (item.split(":") for item in flag(args, "resolver_jobs").split(",")))
        jobs_flags.add(flag(args, "resolver_jobs"))
        prefix = flag(args, "k8s_statefulset_prefix") or "tw-"
        job = name[len(prefix):] if name.startswith(prefix) else None
        check(job in jobs, "%s is named %s<job> for a job of --resolver_jobs %s" % (name, prefix, jobs))
        check(spec["replicas"] == jobs.get(job), "%s has as many replicas (%s) as job %s has tasks (%s)"
              % (name, spec["replicas"], job, jobs.get(job)))
        check(spec["serviceName"] == service["metadata"]["name"] == (flag(args, "k8s_service") or "tw"),
              "%s runs under the headless Service the resolver names (--k8s_service)" % name)
        check(all(labels.get(k) == v for k, v in spec["selector"]["matchLabels"].items()) and
              all(labels.get(k) == v for k, v in service["spec"]["selector"].items()),
              "%s's pods carry its selector's and the Service's labels" % name)
        port = int(flag(args, "base_port"))
        check(port in ports and any(p["containerPort"] == port for p in container["ports"]),
              "%s serves the Service's port %d" % (name, port))
        mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
        volumes = {v["name"]: v.get("secret", {}).get("secretName") for v in pod["volumes"]}
        for name_flag, env_name in (("tls_cert", "TW_TLS_CERT"), ("tls_key", "TW_TLS_KEY"), ("tls_ca", "TW_TLS_CA"),
                                    ("cluster_token_file", "TW_CLUSTER_TOKEN_FILE")):
            path = flag(args, name_flag)
            volume = next((v for v, m in mounts.items() if path and path.startswith(m + "/")), None)
            secret = volumes.get(volume)
            key = os.path.basename(path or "")
            check(secret in secrets and key in secrets[secret],
                  "%s: --%s=%s is key %s of Secret %s, which make_secrets.sh writes" % (name, name_flag, path, key,
                                                                                          secret))
            env = {e["name"]: e.get("value") for e in container["env"]}
            check(env.get(env_name) == path, "%s: the probes' tw health gets the same file (%s)" % (name, env_name))
        env_from = {e["name"]: e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") for e in container["env"]}
        check(env_from.get("POD_NAMESPACE") == "metadata.namespace", "%s: POD_NAMESPACE from the pod" % name)
        for probe in ("readinessProbe", "livenessProbe"):
            command = " ".join(container[probe]["exec"]["command"])
            check(re.search(r"tw health .*:%d" % port, command) is not None,
                  "%s: the %s runs tw health on port %d" % (name, probe, port))
        requests = container["resources"].get("requests", {})
        check("cpu" in requests and "memory" in requests, "%s requests CPU and memory" % name)
        security = pod.get("securityContext", {})
        check(security.get("runAsNonRoot") is True and security.get("fsGroup") is not None,
              "%s runs as a non-root user that can read the Secrets (fsGroup)" % name)
    check(len(jobs_flags) == 1, "every StatefulSet gives the same --resolver_jobs (%s)" % sorted(jobs_flags))
    return sets


def with_binary(sets, tw, secret_files):
    """A worker pod's args through the real tw server, Secrets' paths swapped for local files."""
    s = next(s for s in sets if s["spec"]["replicas"] > 1) if any(s["spec"]["replicas"] > 1 for s in sets) else sets[0]
    container = s["spec"]["template"]["spec"]["containers"][0]
    args = [a for a in container["args"] if not a.startswith("--file_access_root")]
    for i, arg in enumerate(args):
        for key, local in secret_files.items():
            if arg.endswith("/" + key):
                args[i] = arg.split("=", 1)[0] + "=" + local
    pod = "%s-%d" % (s["metadata"]["name"], s["spec"]["replicas"] - 1)
    env = dict(os.environ, HOSTNAME=pod, POD_NAMESPACE="team")
    done = subprocess.run([tw] + args, env=env, capture_output=True, text=True, timeout=60)
    out = done.stdout + done.stderr
    jobs = flag(args, "resolver_jobs")
    check("tw server: cluster resolver kubernetes: pod %s of StatefulSet %s, Service tw in namespace team" %
          (pod, s["metadata"]["name"]) in out, "tw server takes the pod's args and resolves pod %s (jobs %s)" %
          (pod, jobs) + ("" if "cluster resolver" in out else ": " + out.strip()))
    check("cannot listen on %s.tw.team.svc.cluster.local:%s" % (pod, flag(args, "base_port")) in out,
          "it then listens on its own DNS name (which does not resolve outside Kubernetes)" +
          ("" if "cannot listen" in out else ": " + out.strip()))


class Discovery(http.server.BaseHTTPRequestHandler):
    """API discovery for v1 and apps/v1; every object is absent (404), so apply says 'created'."""

    RESOURCES = {
        "/api/v1": ("v1", [("services", "Service", True), ("secrets", "Secret", True), ("namespaces", "Namespace", False)]),
        "/apis/apps/v1": ("apps/v1", [("statefulsets", "StatefulSet", True)]),
    }

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/api":
            body = {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        elif path == "/apis":
            body = {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                {"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
                 "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}]}
        elif path in self.RESOURCES:
            group_version, resources = self.RESOURCES[path]
            body = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": [
                {"name": n, "singularName": "", "namespaced": ns, "kind": k,
                 "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]} for n, k, ns in resources]}
        else:
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                         "reason": "NotFound", "code": 404}).encode())
            return
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def with_kubectl(root, secrets_yaml, work):
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        print("skipped: kubectl is not installed (Debian: kubernetes-client)")
        return
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Discovery)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        config = os.path.join(work, "kubeconfig")
        with open(config, "w") as f:
            yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "current-context": "offline",
                            "clusters": [{"name": "offline", "cluster": {"server": "http://127.0.0.1:%d" %
                                                                         server.server_address[1]}}],
                            "contexts": [{"name": "offline", "context": {"cluster": "offline", "user": "offline",
                                                                         "namespace": "default"}}],
                            "users": [{"name": "offline", "user": {}}]}, f)
        env = dict(os.environ, KUBECONFIG=config, HOME=work)
        version = subprocess.run([kubectl, "version", "--client"], capture_output=True, text=True, env=env)
        print("kubectl: %s" % version.stdout.strip().splitlines()[0] if version.stdout else "kubectl: ?")
        for what, args in (("the manifests", ["-k", os.path.join(root, "deploy", "kubernetes")]),
                           ("the Secrets", ["-f", secrets_yaml])):
            done = subprocess.run([kubectl, "apply", "--dry-run=client", "--validate=false"] + args,
                                  capture_output=True, text=True, env=env, timeout=60)
            out = done.stdout + done.stderr
            check(done.returncode == 0 and "created (dry run)" in out,
                  "kubectl apply --dry-run=client %s: %s" % (what, " / ".join(out.strip().splitlines())))
    finally:
        server.shutdown()


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root, tw = argv[1], argv[2]
    work = tempfile.mkdtemp(prefix="tw_deploy.")
    try:
        secret_dir = os.path.join(work, "secrets")
        secrets_yaml = os.path.join(work, "secrets.yaml")
        with open(secrets_yaml, "w") as out:
            made = subprocess.run([os.path.join(root, "deploy", "make_secrets.sh"), "--out", secret_dir], stdout=out,
                                  stderr=subprocess.PIPE, text=True)
        if not check(made.returncode == 0, "make_secrets.sh writes the Secrets" + (" " + made.stderr if
                                                                                   made.returncode else "")):
            return 1
        secrets = {d["metadata"]["name"]: set(d["data"]) for d in yaml.safe_load_all(open(secrets_yaml)) if d}
        docs = load(root)
        sets = consistency(docs, secrets)
        with_binary(sets, tw, {"tls.crt": os.path.join(secret_dir, "tls.crt"),
                               "tls.key": os.path.join(secret_dir, "tls.key"),
                               "ca.crt": os.path.join(secret_dir, "ca.crt"),
                               "token": os.path.join(secret_dir, "token")})
        with_kubectl(root, secrets_yaml, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        print("FAIL: %d check(s) failed" % len(FAILURES))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
