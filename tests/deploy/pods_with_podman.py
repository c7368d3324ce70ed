#!/usr/bin/env python3
"""A Kubernetes-shaped run of deploy/kubernetes without Kubernetes (scripts/deploy_test.sh
--build_image): one container of IMAGE per pod the StatefulSets describe, each with the pod's
args and env from the manifests, its host name (tw-worker-1), an /etc/hosts that gives every
pod's DNS name (tw-worker-1.tw.default.svc.cluster.local) its own loopback address, and the
Secrets make_secrets.sh writes mounted where the manifests mount them. Then, as Kubernetes
would: each pod's readiness probe command from the manifest, run inside it; and a graph
placed on ps:0, worker:0 and worker:1, run with `tw run` from inside a pod over mutual TLS
with the cluster token. Prints PASS/FAIL lines; removes its containers on exit.

usage: pods_with_podman.py REPO_ROOT IMAGE [PODMAN_GLOBAL_ARGS...]
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

LIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"]
GRAPH = """node { name: "a" op: "Const" device: "/job:ps/task:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 1 float_val: 2 float_val: 3 } } } }
node { name: "two" op: "Const" device: "/job:worker/task:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "b" op: "Mul" input: "a" input: "two" device: "/job:worker/task:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "axis" op: "Const" device: "/job:worker/task:1"
  attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
node { name: "c" op: "Sum" input: "b" input: "axis" device: "/job:worker/task:1"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } }
  attr { key: "keep_dims" value { b: false } } }
"""


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root, image, podman = argv[1], argv[2], ["podman"] + argv[3:]
    directory = os.path.join(root, "deploy", "kubernetes")
    kustomization = yaml.safe_load(open(os.path.join(directory, "kustomization.yaml")))
    docs = [d for name in kustomization["resources"] for d in yaml.safe_load_all(open(os.path.join(directory, name)))
            if d]
    service = next(d for d in docs if d["kind"] == "Service")["metadata"]["name"]
    work = tempfile.mkdtemp(prefix="tw_pods.")
    names, failures = [], []
    try:
        secrets = os.path.join(work, "secrets")
        subprocess.run([os.path.join(root, "deploy", "make_secrets.sh"), "--out", secrets], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for f in os.listdir(secrets):
            os.chmod(os.path.join(secrets, f), 0o444)  # the pods' user reads them (fsGroup in Kubernetes)
        with open(os.path.join(work, "graph.pbtxt"), "w") as f:
            f.write(GRAPH)
        os.chmod(work, 0o755)  # mounted at /graphs for the pods' user
        pods = []
        for s in (d for d in docs if d["kind"] == "StatefulSet"):
            for i in range(s["spec"]["replicas"]):
                pods.append(("%s-%d" % (s["metadata"]["name"], i), s["spec"]["template"]["spec"]))
        fqdn = {pod: "%s.%s.default.svc.cluster.local" % (pod, service) for pod, _ in pods}
        hosts = os.path.join(work, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 localhost\n")
            for n, (pod, _) in enumerate(pods):
                f.write("127.0.0.%d %s %s\n" % (n + 2, fqdn[pod], pod))
        tag = "%d" % os.getpid()
        for pod, spec in pods:
            container = spec["containers"][0]
            mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
            run = podman + ["run", "-d", "--name", "twpod-%s-%s" % (tag, pod), "--network", "host", "--hostname", pod,
                            "--no-hosts", "-v", "%s:/etc/hosts:ro" % hosts] + LIMITS
            for volume in spec["volumes"]:
                if "secret" in volume:
                    keys = {"tw-tls": ["tls.crt", "tls.key", "ca.crt"], "tw-token": ["token"]}[
                        volume["secret"]["secretName"]]
                    for key in keys:
                        run += ["-v", "%s:%s/%s:ro" % (os.path.join(secrets, key), mounts[volume["name"]], key)]
            run += ["-v", "%s:/graphs:ro" % work]
            for e in container["env"]:
                value = e.get("value", "default" if e.get("valueFrom") else "")
                run += ["-e", "%s=%s" % (e["name"], value)]
            names.append("twpod-%s-%s" % (tag, pod))
            subprocess.run(run + [image] + container["args"], check=True, stdout=subprocess.DEVNULL)
        # Readiness as the kubelet checks it: the manifest's probe command inside each pod.
        for (pod, spec), name in zip(pods, names):
            command = spec["containers"][0]["readinessProbe"]["exec"]["command"]
            deadline, done = time.time() + 60, None
            while time.time() < deadline:
                done = subprocess.run(podman + ["exec", name] + command, capture_output=True, text=True)
                if done.returncode == 0:
                    break
                time.sleep(1)
            ok = done.returncode == 0 and ("tw health: %s:8888 is serving" % fqdn[pod]) in done.stdout
            print("%s: pod %s is ready (its readiness probe: %s)" % ("PASS" if ok else "FAIL", pod,
                                                                   (done.stdout + done.stderr).strip()))
            if not ok:
                failures.append(pod)
                print(subprocess.run(podman + ["logs", name], capture_output=True, text=True).stdout)
        worker = next(pod for pod, _ in pods if "worker" in pod)
        done = subprocess.run(podman + ["exec", names[0], "tw", "run", "--graph", "/graphs/graph.pbtxt", "--fetch", "c",
                                        "--target", "grpc://%s:8888" % fqdn[worker]], capture_output=True, text=True)
        ok = done.returncode == 0 and done.stdout.strip() == "c = float32 [] 12"  # (1 + 2 + 3) * 2
        print("%s: a graph on ps:0, worker:0 and worker:1 runs from pod %s through %s over mutual TLS and the "
              "token (%s)" % ("PASS" if ok else "FAIL", pods[0][0], worker, (done.stdout + done.stderr).strip()))
        if not ok:
            failures.append("graph")
        # Without the token the same call is refused: the Secret is what lets it in.
        done = subprocess.run(podman + ["exec", "-e", "TW_CLUSTER_TOKEN_FILE=", names[0], "tw", "run", "--graph",
                                        "/graphs/graph.pbtxt", "--fetch", "c", "--target",
                                        "grpc://%s:8888" % fqdn[worker]], capture_output=True, text=True)
        ok = done.returncode != 0 and "UNAUTHENTICATED" in done.stderr
        print("%s: without the token it is refused (%s)" % ("PASS" if ok else "FAIL", done.stderr.strip()[:160]))
        if not ok:
            failures.append("token")
    finally:
        for name in names:
            subprocess.run(podman + ["rm", "-f", "-t", "2", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
