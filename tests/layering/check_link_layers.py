#!/usr/bin/env python3
"""Fails when a layer's library calls a function that only a higher layer defines.

Include lines do not show these edges (a function declared in a low header and defined
above it); static linking lets some through when the higher object happens to be linked
anyway. So this reads the symbols of the layer archives (src/CMakeLists.txt builds one
per row of docs/ARCHITECTURE.md's "Layers" table: src/<a>/<b>/ -> libtw_<b>.a) with nm:
every symbol a layer needs and does not define itself must not be defined (strongly:
not inline, not a template instance) only by a layer listed after it.

usage: check_link_layers.py REPO_ROOT ARCHIVE_DIR   (exit 0: clean; 1: violations, listed)
       check_link_layers.py --self-test            (two made-up layers, built with c++)
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layering import read_layers  # noqa: E402

STRONG = set("TDBRGS")  # text, data, bss, read-only, small data: one definition per program


def archive_of(layer, archive_dir):
    return os.path.join(archive_dir, f"libtw_{layer.rstrip('/').split('/')[-1]}.a")


def symbols(archive):
    """(strongly defined, undefined) external symbols of an archive."""
    out = subprocess.run(["nm", "-g", "-P", archive], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2 or line.endswith(":"):
            continue  # "archive[member.o]:" headers
        name, kind = parts[0], parts[1]
        if kind in STRONG:
            defined.add(name)
        elif kind == "U":
            undefined.add(name)
    return defined, undefined


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
        return out.stdout.splitlines() or names
    except OSError:
        return names


def check(root, archive_dir):
    layers = read_layers(os.path.join(root, "docs", "ARCHITECTURE.md"))
    problems, tables = [], []
    for layer in layers:
        path = archive_of(layer, archive_dir)
        if not os.path.exists(path):
            problems.append(f"{path}: no library for layer src/{layer}/ (src/CMakeLists.txt)")
            continue
        tables.append((layer, *symbols(path)))
    definer = {}
    for rank, (layer, defined, _) in enumerate(tables):
        for name in defined:
            definer.setdefault(name, (rank, layer))
    for rank, (layer, defined, undefined) in enumerate(tables):
        upward = sorted(n for n in undefined - defined if definer.get(n, (-1,))[0] > rank)
        for name, pretty in zip(upward, demangle(upward)):
            problems.append(f"src/{layer}/ uses {pretty}, defined in src/{definer[name][1]}/ "
                            "(a higher layer)")
    return problems


def self_test():
    """A low layer calling up is found; a high layer calling down is not."""
    scratch = tempfile.TemporaryDirectory(prefix="link_layers_")  # removed when the test ends
    root = scratch.name
    os.makedirs(os.path.join(root, "docs"))
    with open(os.path.join(root, "docs", "ARCHITECTURE.md"), "w") as f:
        f.write("## Layers\n| folder | holds |\n| --- | --- |\n| `src/core/` | a |\n"
                "| `src/graph/` | b |\n| `src/distributed/rpc/` | c |\n## Next\n")

    def archive(name, code):
        src, obj = os.path.join(root, name + ".cc"), os.path.join(root, name + ".o")
        with open(src, "w") as f:
            f.write(code)
        subprocess.run(["c++", "-c", src, "-o", obj], check=True)
        subprocess.run(["ar", "rcs", os.path.join(root, f"libtw_{name}.a"), obj], check=True)

    archive("core", "int Up(); int Low() { return 1; } int CallsUp() { return Up(); }\n")
    archive("graph", "int Low(); int Up() { return Low(); }\n")
    archive("rpc", "int Up(); int Rpc() { return Up(); }\n")
    problems = check(root, root)
    assert len(problems) == 1 and "src/core/ uses Up(), defined in src/graph/" in problems[0], problems
    print("self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(argv[1], argv[2])
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} link-time layering problem(s); see docs/ARCHITECTURE.md 'Layers'")
        return 1
    print("link layering: clean")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
