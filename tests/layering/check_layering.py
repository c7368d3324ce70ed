#!/usr/bin/env python3
"""Fails on an #include in src/ that runs against the layer order.

The order is read from the "## Layers" table of docs/ARCHITECTURE.md (its `src/...` rows,
lowest first), so the map and the code cannot drift apart: a file may include headers of
its own layer and of the layers listed before it. `tensorweave/proto/*` (generated) and the
header-only public headers are below every layer; the other public headers count as the
layer that implements them (PUBLIC_HEADERS below), so a low layer cannot reach up through
include/tensorweave/. There are no exceptions: each layer is its own static library
(src/CMakeLists.txt), and check_link_layers.py checks the calls the include lines cannot
show (a function declared low and defined high).

Tests beside their sources (`*_test.cc`) keep the order too, except that they may include
any public header and the helpers of tests/testing/ (`testing/...`), which may use anything.

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
    "session_config": None,
    "process": "core",
    "dtype": "tensor", "tensor_shape": "tensor", "tensor": "tensor",
    "graph": "client", "ops": "client", "variables": "client", "data_flow_ops": "client",
    "session": "client", "import_graph_def": "client",
    "collective_ops": "client",
    "gen_ops": "client",  # generated into the build tree (tools/op_gen), compiled into client
    "gradients": "autodiff",
    "cluster_spec": "distributed", "cluster_resolver": "distributed",
    "server": "distributed/rpc", "health": "distributed/rpc",
    "basic_session_run_hooks": "train", "device_setter": "train", "monitored_session": "train",
    "optimizers": "train", "saver": "train", "sync_replicas": "train", "variable_scope": "train",
    "layers": "layers",
    "tensorweave": "savedmodel",  # pulls in the whole API
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


def is_test(rel):
    return rel.endswith("_test.cc")


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
    problems = []
    for header in sorted(os.listdir(os.path.join(root, "include", "tensorweave"))):
        if header.endswith(".h") and header[:-2] not in PUBLIC_HEADERS:
            problems.append(f"include/tensorweave/{header}: not in PUBLIC_HEADERS (name the layer that implements it)")
    src = os.path.join(root, "src")
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, name), src)
            if not rel.endswith((".cc", ".h")):
                continue
            own = layer_of(rel, layers)
            if own is None:
                problems.append(f"src/{rel}: in no layer of docs/ARCHITECTURE.md's table")
                continue
            test = is_test(rel)
            text = open(os.path.join(dirpath, name), encoding="utf-8", errors="replace").read()
            for include in INCLUDE.findall(text):
                if test and (include.startswith("testing/") or re.fullmatch(r"tensorweave/\w+\.h", include)):
                    continue  # a test may use the whole public API and the test helpers
                target, known = included_layer(include, layers)
                if not known:
                    problems.append(f"src/{rel}: includes {include}, a public header not in PUBLIC_HEADERS")
                elif target is not None and target not in rank:
                    problems.append(f"src/{rel}: includes {include}, of layer {target}, which is not in "
                                    "docs/ARCHITECTURE.md's table")
                elif target is not None and rank[target] > rank[own]:
                    problems.append(f"src/{rel} ({own}) includes {include} ({target}): "
                                    f"against the layer order of docs/ARCHITECTURE.md")
    return problems


def self_test():
    """The checker passes a clean made-up tree and fails each kind of violation."""
    scratch = tempfile.TemporaryDirectory(prefix="layering_")  # removed when the test ends

    def tree(files):
        root = tempfile.mkdtemp(dir=scratch.name)
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

    assert check(tree({})) == [], check(tree({}))
    up = check(tree({"src/core/c.cc": '#include "graph/b.h"\n'}))
    assert len(up) == 1 and "src/core/c.cc (core) includes graph/b.h (graph)" in up[0], up
    up_test = check(tree({"src/core/c_test.cc": '#include "train/x.h"\n'}))
    assert len(up_test) == 1 and "src/core/c_test.cc (core) includes train/x.h" in up_test[0], up_test
    helpers = '#include "testing/test_util.h"\n#include "tensorweave/graph.h"\n#include "core/a.h"\n'
    assert check(tree({"src/core/c_test.cc": helpers})) == []  # helpers, public API, own layer
    public = check(tree({"include/tensorweave/new.h": ""}))
    assert len(public) == 1 and "not in PUBLIC_HEADERS" in public[0], public
    via_public = check(tree({"include/tensorweave/graph.h": "", "src/core/d.cc": '#include "tensorweave/graph.h"\n'}))
    assert len(via_public) == 1 and "tensorweave/graph.h (client)" in via_public[0], via_public
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
    print("layering: clean")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
