"""tf.distribute.cluster_resolver against TensorFlow's own (tf_side/cluster_resolver_cases.py):
the same environment gives the same cluster, task and master, and the same kind of error,
wherever TensorFlow's resolvers are defined. Where ours go further (host lists with several
bracket groups or suffixes, scontrol's errors for '[3-1]', Slurm's node order instead of TF's
string sort, SLURM_JOB_* besides SLURM_STEP_*) test_cluster_resolver.py covers them."""
import json
import os

import pytest

from tensorweave.distribute import cluster_resolver as cr
from tf_peer import require_tensorflow, run_tf_script

HOSTLISTS = ["n[1-2],m5,o[3-4,6,7-9]", "node[01-03,7],gpu-a[1-2]", "n[8-10]", "n[09-11]", "a,b", "n1,n1", "n[1-02]"]
BAD_HOSTLISTS = ["n[1-2", "n[a-b]", "a,,b", "n[1-2[3]]", "n]", "n[1--2]"]
TASKS = ["3(x2),2,1", "1", "2(x3)"]
BAD_TASKS = ["2(x", "x", "2(3)", ""]


def slurm_env(procid, nodes, tasks):
    return {"SLURM_PROCID": str(procid), "SLURM_STEP_NODELIST": nodes, "SLURM_STEP_TASKS_PER_NODE": tasks,
            "SLURM_STEP_NUM_TASKS": str(sum(cr.expand_tasks_per_node(tasks)))}


def cases():
    out = [{"kind": "hostlist", "text": t} for t in HOSTLISTS + BAD_HOSTLISTS]
    out += [{"kind": "tasks_per_node", "text": t} for t in TASKS + BAD_TASKS]
    for procid in range(4):
        out.append({"kind": "slurm", "jobs": {"ps": 1, "worker": 3}, "port_base": 9000,
                    "env": slurm_env(procid, "n[1-2]", "3,1"), "other": ["ps", 0]})
    for procid in range(3):  # TF sorts the jobs: chief takes rank 0
        out.append({"kind": "slurm", "jobs": {"worker": 2, "chief": 1}, "env": slurm_env(procid, "h[1-3]", "1(x3)"),
                    "other": ["worker", 1]})
    out.append({"kind": "slurm", "jobs": None, "env": slurm_env(2, "n[01-02]", "2(x2)")})  # all workers
    out.append({"kind": "slurm", "jobs": {"worker": 5}, "env": slurm_env(0, "n1", "2")})  # too many asked
    out.append({"kind": "slurm", "jobs": {"worker": 1}, "env": {}})  # not under Slurm
    out.append({"kind": "slurm", "jobs": {"worker": 1}, "env": slurm_env(0, "n[1-", "1")})
    config = {"cluster": {"ps": ["h:1"], "worker": ["h:2", "h:3"]}, "task": {"type": "worker", "index": 1}}
    out.append({"kind": "tf_config", "env": {"TF_CONFIG": json.dumps(config)}, "other": ["ps", 0]})
    out.append({"kind": "tf_config", "env": {"TF_CONFIG": json.dumps(dict(config, rpc_layer="grpc"))},
                "other": ["ps", 0]})
    out.append({"kind": "tf_config", "args": {"task_type": "ps", "task_id": 0, "rpc_layer": "grpc"},
                "env": {"TF_CONFIG": json.dumps(config)}})
    out.append({"kind": "tf_config", "env": {"TF_CONFIG": json.dumps({"cluster": config["cluster"]})},
                "other": ["worker", 0]})
    return out


def ours(case, monkeypatch):
    for name in [n for n in os.environ if n.startswith(("SLURM_", "TF_CONFIG", "OMPI_"))]:
        monkeypatch.delenv(name)
    for name, value in case.get("env", {}).items():
        monkeypatch.setenv(name, value)
    try:
        if case["kind"] == "hostlist":
            return {"value": cr.expand_hostlist(case["text"])}
        if case["kind"] == "tasks_per_node":
            return {"value": cr.expand_tasks_per_node(case["text"])}
        if case["kind"] == "slurm":
            r = cr.SlurmClusterResolver(case.get("jobs"), port_base=case.get("port_base", 8888))
        else:
            r = cr.TFConfigClusterResolver(**case.get("args", {}))
        return {"cluster": r.cluster_spec().as_dict(), "task_type": r.task_type, "task_id": r.task_id,
                "master": r.master(), "master_ps": r.master(*case["other"]) if case.get("other") else None}
    except (ValueError, RuntimeError) as e:
        return {"error": type(e).__name__}


def test_resolvers_agree_with_tensorflow(tmp_path, monkeypatch):
    python = require_tensorflow("test_resolvers_agree_with_tensorflow")
    all_cases = cases()
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(all_cases))
    theirs = json.loads(run_tf_script(python, "cluster_resolver_cases.py", str(path)))
    mismatches = []
    for case, tf_result in zip(all_cases, theirs):
        mine = ours(case, monkeypatch)
        if mine != tf_result:
            mismatches.append("%s\n  ours: %s\n  TF:   %s" % (json.dumps(case), mine, tf_result))
    print("compared %d cases with TensorFlow's resolvers" % len(all_cases))
    assert not mismatches, "\n".join(mismatches)
