#!/usr/bin/env python3
"""Which names of TensorFlow's TF1 API tensorweave has: reads the pinned list of
tests/data/tf_api_names/tf1_api_names.txt (written by TensorFlow, see its generate.py),
leaves out the areas outside this project (OUT_OF_SCOPE), and looks each remaining dotted
name up in `import tensorweave as tf`. Prints, per namespace, how many exist, and the
missing names (all of them with --missing, else the first few).

    PYTHONPATH=build/python /usr/bin/python3 tools/api_coverage.py [--missing] [--json FILE]
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = os.path.join(HERE, "..", "tests", "data", "tf_api_names", "tf1_api_names.txt")

# Top-level names outside this project (issue 24's count leaves them out): other runtimes and
# front ends, the op-by-op and compatibility modules, and the eager-mode switches.
OUT_OF_SCOPE = {
    "lite", "tpu", "xla", "autograph", "compat", "raw_ops", "estimator", "keras",
    "enable_eager_execution", "disable_eager_execution", "executing_eagerly", "executing_eagerly_outside_functions",
    "enable_v2_behavior", "disable_v2_behavior", "enable_v2_tensorshape", "disable_v2_tensorshape",
    "enable_control_flow_v2", "disable_control_flow_v2", "control_flow_v2_enabled", "enable_resource_variables",
    "disable_resource_variables", "resource_variables_enabled", "enable_tensor_equality", "disable_tensor_equality",
}


def in_scope(name):
    parts = name.split(".")
    return len(parts) >= 2 and parts[1] not in OUT_OF_SCOPE


def exists(module, name):
    value = module
    for part in name.split(".")[1:]:
        if not hasattr(value, part):
            return False
        value = getattr(value, part)
    return True


def coverage(names, module):
    """{namespace: {"present": [...], "missing": [...]}}; the namespace of "tf.math.sin" is
    "tf.math", of "tf.sin" (and of the module name "tf.math" itself) "tf"."""
    result = {}
    for name in names:
        if not in_scope(name):
            continue
        namespace = name.rsplit(".", 1)[0]
        entry = result.setdefault(namespace, {"present": [], "missing": []})
        entry["present" if exists(module, name) else "missing"].append(name)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", default=NAMES, help="the list of TF1 API names")
    parser.add_argument("--missing", action="store_true", help="list every missing name")
    parser.add_argument("--json", help="also write the result as JSON to this file")
    args = parser.parse_args(argv)
    with open(args.names) as f:
        names = [line.strip() for line in f if line.strip()]
    import tensorweave
    result = coverage(names, tensorweave)
    total_present = sum(len(e["present"]) for e in result.values())
    total = sum(len(e["present"]) + len(e["missing"]) for e in result.values())
    print(f"TF1 API names in scope: {total_present} of {total} exist in tensorweave "
          f"({100.0 * total_present / max(total, 1):.1f}%)")
    for namespace in sorted(result, key=lambda n: (n != "tf", n)):
        entry = result[namespace]
        n = len(entry["present"]) + len(entry["missing"])
        missing = entry["missing"] if args.missing else entry["missing"][:8]
        more = "" if len(missing) == len(entry["missing"]) else f" ... and {len(entry['missing']) - len(missing)} more"
        print(f"{namespace}: {len(entry['present'])} of {n}; missing: {', '.join(missing) or '-'}{more}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
