#!/usr/bin/env bash
# deploy/: the Kubernetes manifests checked against the resolver, make_secrets.sh and the real
# tw binary, then read by kubectl in a client-side dry run (tests/deploy/check_manifests.py);
# with --build_image, the container image built from deploy/Containerfile with podman (it
# compiles tw inside, tens of minutes on 2 cores) and its `tw` run once. Prints
# "skipped: ..." for a part this machine cannot do (no kubectl, no podman, no registry to pull
# the Debian 12 base image from) and fails on a wrong result.
#   scripts/deploy_test.sh [--build_image] [--base IMAGE (default docker.io/library/debian:bookworm-slim)]
set -euo pipefail
cd "$(dirname "$0")/.."
build_image=0 base=docker.io/library/debian:bookworm-slim
while (($#)); do
  case "$1" in
    --build_image) build_image=1; shift ;;
    --base) [ $# -ge 2 ] || { echo "error: --base needs a value" >&2; exit 2; }; base=$2; shift 2 ;;
    *) sed -n 's/^#   //p' "$0" >&2; exit 2 ;;
  esac
done
py=/usr/bin/python3  # Debian's, with PyYAML (`python3` on PATH may be another)
"$py" -c 'import yaml' 2>/dev/null || {
  echo "== installing python3-yaml"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-yaml; } >/dev/null 2>&1 ||
    { echo "skipped: python3-yaml is missing and could not be installed"; exit 0; }
}
command -v kubectl >/dev/null || {
  echo "== installing kubernetes-client (kubectl)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubernetes-client; } >/dev/null 2>&1 ||
    echo "(kubernetes-client could not be installed: the kubectl part is skipped)"
}
scripts/setup.sh tw >/dev/null
echo "== deploy/kubernetes: consistency, the real tw, kubectl --dry-run=client"
"$py" tests/deploy/check_manifests.py "$PWD" "$PWD/build/tools/tw"

if ((!build_image)); then
  echo "skipped: the container image (give --build_image: it compiles tw inside the container)"
  exit 0
fi
command -v podman >/dev/null || { echo "skipped: the container image: podman is not installed"; exit 0; }
if ! podman image exists "$base"; then
  pulled=$(timeout 120 podman pull "$base" 2>&1) || {
    echo "skipped: the container image: the base image $base cannot be pulled here ($(tail -1 <<<"$pulled"))"
    exit 0
  }
fi
tag=localhost/tensorweave:test-$$
trap 'podman rmi -f "$tag" >/dev/null 2>&1 || true' EXIT
echo "== podman build -f deploy/Containerfile --build-arg BASE=$base -t $tag ."
start=$(date +%s)
podman build -f deploy/Containerfile --build-arg BASE="$base" -t "$tag" .
out=$(podman run --rm "$tag" health --help)
grep -q "usage: tw health ADDRESS" <<<"$out" || { echo "FAIL: the image's tw does not run: $out"; exit 1; }
echo "PASS: the image builds ($(($(date +%s) - start)) s) and its tw runs; $(podman image inspect "$tag" --format '{{.Size}}') bytes"
