"""TensorFlow's side of test_cluster_resolver_tf.py: runs each case of CASES_JSON with TF's
cluster resolvers and prints the results as JSON (one object per case, in order).
usage: python cluster_resolver_cases.py CASES_JSON"""
import json
import os
import sys

from tensorflow.python.distribute.cluster_resolver import slurm_cluster_resolver as slurm
from tensorflow.python.distribute.cluster_resolver import tfconfig_cluster_resolver as tfconfig

SCRUB = ("SLURM_", "TF_CONFIG", "CUDA_VISIBLE_DEVICES")


def run(case):
    for name in [n for n in os.environ if n.startswith(SCRUB)]:
        del os.environ[name]
    os.environ.update(case.get("env", {}))
    try:
        kind = case["kind"]
        if kind == "hostlist":
            return {"value": slurm.expand_hostlist(case["text"])}
        if kind == "tasks_per_node":
            return {"value": slurm.expand_tasks_per_node(case["text"])}
        if kind == "slurm":
            # No GPUs here: gpus_per_node and auto_set_gpu keep TF off nvidia-smi and
            # CUDA_VISIBLE_DEVICES.
            r = slurm.SlurmClusterResolver(case.get("jobs"), port_base=case.get("port_base", 8888), gpus_per_node=8,
                                           gpus_per_task=1, auto_set_gpu=False)
        else:
            r = tfconfig.TFConfigClusterResolver(**case.get("args", {}))
        spec = r.cluster_spec().as_dict()
        return {"cluster": spec, "task_type": r.task_type, "task_id": r.task_id, "master": r.master(),
                "master_ps": r.master(*case["other"]) if case.get("other") else None}
    except (ValueError, RuntimeError) as e:
        return {"error": type(e).__name__}


print(json.dumps([run(c) for c in json.load(open(sys.argv[1]))]))
