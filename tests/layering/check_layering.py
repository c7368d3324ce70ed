#!/usr/bin/env python3
"""Fails on an #include in src/ (production code) that runs against the layer order.

The order is read from the "## Layers" table of docs/ARCHITECTURE.md (its `src/...` rows,
lowest first), so the map and the code cannot drift apart: a file may include headers of
its own layer and of the layers listed before it. `tensorweave/proto/*` (generated) and the
header-only public headers are below every layer; the other public headers count as the
layer that implements them (PUBLIC_HEADERS below), so a low layer cannot reach up through
include/tensorweave/.

Today's violations are listed one by one in ALLOWED (with why); an entry that no longer
occurs fails too, so the list can only shrink. Link-time edges (a lower layer declares a
function a higher layer defines) are not include lines: LINK_TIME lists them and the check
verifies each still exists, so fixing one forces its removal here.

usage: check_layering.py REPO_ROOT      (exit 0: clean; 1: violations, listed)
       check_layering.py --self-test    (checks the checker on a small made-up tree)
"""
import os
import re
import sys
import tempfile

# Public headers implemented by a layer (include/tensorweave/<name>.h -> src/<layer>).
# Header-only ones map to None (usable from any layer). Every public header must be here.
PUBLIC_HEADERS = {
    "status": None, "security": None, "resource_limits": None, "session_run_hook": None,
    "process": "core",
    "dtype": "tensor", "tensor_shape": "tensor", "tensor": "tensor",
    "graph": "client", "ops": "client", "variables": "client", "data_flow_ops": "client",
    "session": "client", "import_graph_def": "client",
    "collective_ops": "client",
    "gradients": "autodiff",
    "cluster_spec": "distributed", "cluster_resolver": "distributed",
    "server": "distributed/rpc", "health": "distributed/rpc",
    "basic_session_run_hooks": "train", "device_setter": "train", "monitored_session": "train",
    "optimizers": "train", "saver": "train", "sync_replicas": "train", "variable_scope": "train",
    "layers": "layers",
    "tensorweave": "savedmodel",  # pulls in the whole API
}

# (file under src/, included header): today's upward edges. Each says why it exists and
# what removes it (issue 15). Add nothing here: fix the include instead.
ALLOWED = {
    # kernels -> train: SaveTensors/RestoreTensors and SaveV2/RestoreV2 write and read the
    # checkpoint format, which lives in train/; it belongs in a storage layer below kernels.
    ("kernels/cpu/io_kernels.cc", "train/checkpoint_reader.h"),
    ("kernels/cpu/io_kernels.cc", "train/checkpoint_writer.h"),
    ("kernels/cpu/io_kernels.cc", "train/tensor_bundle.h"),
    ("kernels/cpu/save_restore_v2_kernels.cc", "train/checkpoint_reader.h"),
    ("kernels/cpu/save_restore_v2_kernels.cc", "train/tensor_bundle.h"),
    ("kernels/cpu/save_restore_v2_kernels.cc", "train/tensor_bundle_merge.h"),
    ("kernels/cpu/checkpoint_access.h", "train/tensor_bundle.h"),
    # distributed -> distributed/rpc: ProcessCluster (real `tw server` processes) waits for
    # each task with a MasterService stub; it belongs on the rpc or tools side.
    ("distributed/process_cluster.cc", "distributed/rpc/grpc_util.h"),
    # runtime -> client (public header): the one session configuration, SessionConfig, is
    # declared in include/tensorweave/session.h beside the client's Session; runtime uses
    # only the struct. Moving it to a header-only tensorweave/session_config.h removes this
    # (it edits a public header, so every file recompiles: left for the next such change).
    ("runtime/session.h", "tensorweave/session.h"),
}

# (header under src/ that declares, symbol, file under src/ that defines it): link-time
# edges from the header's layer up to the defining file's layer.
LINK_TIME = {
    # graph -> ops: OpRegistry::Global() calls RegisterAllOps, defined by the op schemas;
    # the op list should be handed to the registry instead.
    ("graph/op_registry.h", "RegisterAllOps", "ops/register_all.cc"),
    # kernels -> runtime: the Send/Recv kernels build rendezvous keys with a function the
    # runtime's local rendezvous defines.
    ("kernels/rendezvous.h", "KeyFromAttrs", "runtime/local_rendezvous.cc"),
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_layers(architecture_md):
    """The src/ layers in the order of the docs' Layers table, lowest first."""
    text = open(architecture_md, encoding="utf-8").read()
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    layers = re.findall(r"^\|\s*`src/([\w/]+?)/?`\s*\|", section, re.M)
    if len(layers) < 3:
        raise SystemExit(f"{architecture_md}: no layer table found under '## Layers'")
    return layers


def layer_of(path, layers):
    """The deepest layer whose folder holds `path` (relative to src/), or None."""
    best = None
    for layer in layers:
        if path == layer or path.startswith(layer + "/"):
            if best is None or len(layer) > len(best):
                best = layer
    return best


def is_production(rel):
    name = os.path.basename(rel)
    return rel.endswith((".cc", ".h")) and not name.endswith("_test.cc") and "test_util" not in name


def included_layer(include, layers):
    """(layer, known): the layer an include line depends on; None layer: below all."""
    if include.startswith("tensorweave/proto/"):
        return None, True
    m = re.fullmatch(r"tensorweave/(\w+)\.h", include)
    if m:
        return PUBLIC_HEADERS.get(m.group(1)), m.group(1) in PUBLIC_HEADERS
    return layer_of(include, layers), True


def check(root):
    """The list of problems (empty: the tree keeps the layer order)."""
    layers = read_layers(os.path.join(root, "docs", "ARCHITECTURE.md"))
    rank = {layer: i for i, layer in enumerate(layers)}
    problems, seen = [], set()
    for header in sorted(os.listdir(os.path.join(root, "include", "tensorweave"))):
        if header.endswith(".h") and header[:-2] not in PUBLIC_HEADERS:
            problems.append(f"include/tensorweave/{header}: not in PUBLIC_HEADERS (name the layer that implements it)")
    src = os.path.join(root, "src")
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, name), src)
            if not is_production(rel):
                continue
            own = layer_of(rel, layers)
            if own is None:
                problems.append(f"src/{rel}: in no layer of docs/ARCHITECTURE.md's table")
                continue
            text = open(os.path.join(dirpath, name), encoding="utf-8", errors="replace").read()
            for include in INCLUDE.findall(text):
                target, known = included_layer(include, layers)
                if not known:
                    problems.append(f"src/{rel}: includes {include}, a public header not in PUBLIC_HEADERS")
                elif target is not None and target not in rank:
                    problems.append(f"src/{rel}: includes {include}, of layer {target}, which is not in "
                                    "docs/ARCHITECTURE.md's table")
                elif target is not None and rank[target] > rank[own]:
                    if (rel, include) in ALLOWED:
                        seen.add((rel, include))
                    else:
                        problems.append(f"src/{rel} ({own}) includes {include} ({target}): "
                                        f"against the layer order of docs/ARCHITECTURE.md")
    for rel, include in sorted(ALLOWED - seen):
        problems.append(f"ALLOWED lists src/{rel} -> {include}, which no longer occurs: remove it")
    for header, symbol, definer in sorted(LINK_TIME):
        declared = re.search(rf"\b{symbol}\s*\(", _read(os.path.join(src, header)))
        defined = re.search(rf"\b{symbol}\s*\([^;]*\)\s*(const\s*)?\{{", _read(os.path.join(src, definer)))
        if not (declared and defined):
            problems.append(f"LINK_TIME lists {header}: {symbol} defined in {definer}, "
                            "which no longer holds: remove it")
    return problems


def _read(path):
    try:
        return open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return ""


def self_test():
    """The checker passes a clean made-up tree and fails each kind of violation."""
    def tree(files):
        root = tempfile.mkdtemp(prefix="layering_")
        base = {
            "docs/ARCHITECTURE.md": "# x\n## Layers\n| folder | holds |\n| --- | --- |\n"
                                    "| `src/core/` | a |\n| `src/graph/` | b |\n| `src/client/` | c |\n"
                                    "| `src/train/` | d |\n## Next\n",
            "include/tensorweave/status.h": "",
            "src/core/a.h": "", "src/graph/b.cc": '#include "core/a.h"\n#include "tensorweave/status.h"\n',
        }
        base.update(files)
        for rel, text in base.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        return root

    global ALLOWED, LINK_TIME
    saved = ALLOWED, LINK_TIME
    ALLOWED, LINK_TIME = set(), set()
    try:
        assert check(tree({})) == [], check(tree({}))
        up = check(tree({"src/core/c.cc": '#include "graph/b.h"\n'}))
        assert len(up) == 1 and "src/core/c.cc (core) includes graph/b.h (graph)" in up[0], up
        assert check(tree({"src/core/c_test.cc": '#include "train/x.h"\n'})) == []  # tests are not checked
        public = check(tree({"include/tensorweave/new.h": ""}))
        assert len(public) == 1 and "not in PUBLIC_HEADERS" in public[0], public
        via_public = check(tree({"include/tensorweave/graph.h": "", "src/core/d.cc": '#include "tensorweave/graph.h"\n'}))
        assert len(via_public) == 1 and "tensorweave/graph.h (client)" in via_public[0], via_public
        ALLOWED = {("core/gone.cc", "graph/b.h")}
        stale = check(tree({}))
        assert len(stale) == 1 and "no longer occurs" in stale[0], stale
    finally:
        ALLOWED, LINK_TIME = saved
    print("self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(argv[1])
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} layering problem(s); see docs/ARCHITECTURE.md 'Layers'")
        return 1
    print(f"layering: clean ({len(ALLOWED)} allowed include edges, {len(LINK_TIME)} link-time edges left to fix)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
