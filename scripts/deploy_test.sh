#!/usr/bin/env bash
# deploy/: the Kubernetes manifests checked against the resolver, make_secrets.sh and the real
# tw binary, then read by kubectl in a client-side dry run (tests/deploy/check_manifests.py);
# with --build_image, the container image built from deploy/Containerfile with podman, its
# `tw server` probed, and the manifests' pods run as its containers
# (tests/deploy/pods_with_podman.py). Prints "skipped: ..." for a part this machine cannot do (no kubectl, no
# podman, no base image) and fails on a wrong result.
#   scripts/deploy_test.sh [--build_image] [--base IMAGE] [--march ARCH]
#     --base   the Debian 12 base (default docker.io/library/debian:bookworm-slim); when it
#              cannot be pulled and debootstrap is installed, one is made with debootstrap
#              from the Debian mirror (localhost/tw-debian12:base, kept for later runs)
#     --march  TW_MARCH of the image (default native: the compile lines are scripts/setup.sh's,
#              so the host's ccache, mounted into the build, serves them; x86-64-v3 for an
#              image that runs on other machines)
set -euo pipefail
cd "$(dirname "$0")/.."
build_image=0 base=docker.io/library/debian:bookworm-slim march=native
while (($#)); do
  case "$1" in
    --build_image) build_image=1; shift ;;
    --base|--march) [ $# -ge 2 ] || { echo "error: $1 needs a value" >&2; exit 2; }; declare "${1#--}=$2"; shift 2 ;;
    *) sed -n 's/^#   \{0,1\}//p' "$0" >&2; exit 2 ;;
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
  if ! pulled=$(timeout 120 podman pull "$base" 2>&1); then
    local_base=localhost/tw-debian12:base
    if ! podman image exists "$local_base"; then
      command -v debootstrap >/dev/null || {
        echo "skipped: the container image: the base image $base cannot be pulled here ($(tail -1 <<<"$pulled")) and debootstrap is not installed to make one"
        exit 0
      }
      echo "== $base cannot be pulled here ($(tail -1 <<<"$pulled")): making $local_base with debootstrap"
      rootfs=$(mktemp -d /tmp/tw_debian12.XXXXXX)
      trap 'rm -rf "$rootfs"' EXIT
      debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >/dev/null ||
        { echo "skipped: the container image: debootstrap could not make a Debian 12 base"; exit 0; }
      rm -rf "$rootfs"/var/cache/apt/archives/*.deb
      tar -C "$rootfs" -c . | podman import - "$local_base" >/dev/null
      rm -rf "$rootfs"
    fi
    base=$local_base
  fi
fi
# This kind of machine: crun refuses hybrid cgroups (runc does not), and raising the
# container's file and process limits is not allowed.
podman_args=() limits=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
if ! podman run --rm "${limits[@]}" "$base" true 2>/dev/null; then
  if command -v runc >/dev/null && podman --runtime runc run --rm "${limits[@]}" "$base" true 2>/dev/null; then
    podman_args=(--runtime runc)
  else
    echo "skipped: the container image: podman cannot run a container here ($(podman run --rm "${limits[@]}" "$base" true 2>&1 | tail -1))"
    exit 0
  fi
fi
tag=localhost/tensorweave:test-$$
trap 'podman rmi -f "$tag" >/dev/null 2>&1 || true' EXIT
cache=$(ccache -k cache_dir 2>/dev/null || true)
mounts=()
[ -n "$cache" ] && [ -d "$cache" ] && mounts=(-v "$cache:/root/.cache/ccache")
echo "== podman ${podman_args[*]} build -f deploy/Containerfile --build-arg BASE=$base --build-arg TW_MARCH=$march ${mounts[*]}"
start=$(date +%s)
podman "${podman_args[@]}" build -f deploy/Containerfile "${limits[@]}" "${mounts[@]}" --build-arg BASE="$base" \
  --build-arg TW_MARCH="$march" -t "$tag" .
echo "PASS: the image builds in $(($(date +%s) - start)) s; $(podman image inspect "$tag" --format '{{.Size}}') bytes"
# The build stage's image (~900 MB, untagged) goes; ccache keeps the next build short.
podman image prune -f --filter label=tensorweave.stage=build >/dev/null || true
# The image's tw serves (as its non-root user) on the host's network: the host's tw health
# and the probe's command inside the container both see it.
port=$("$py" -c 'import random, socket
while True:
    p = random.randrange(12000, 28000)
    try:
        socket.create_server(("127.0.0.1", p)).close(); print(p); break
    except OSError:
        pass')
name=tw-deploy-test-$$
trap 'podman rm -f "$name" >/dev/null 2>&1; podman rmi -f "$tag" >/dev/null 2>&1 || true' EXIT
podman "${podman_args[@]}" run -d --name "$name" "${limits[@]}" --network host "$tag" \
  server --cluster_spec="local|localhost:$port" --job_name=local >/dev/null
build/tools/tw health "localhost:$port" --wait_seconds=30 ||
  { echo "FAIL: the image's tw server does not serve"; podman logs "$name"; exit 1; }
probe=$(podman "${podman_args[@]}" exec "$name" /bin/sh -c "exec tw health localhost:$port --timeout_ms=2000") ||
  { echo "FAIL: tw health inside the container: $probe"; exit 1; }
user=$(podman "${podman_args[@]}" exec "$name" id -u)
[ "$user" = 10001 ] || { echo "FAIL: the container runs as uid $user, not 10001"; exit 1; }
echo "PASS: the image's tw server serves as uid $user; tw health answers from the host and inside the container"
echo "== the manifests' pods as containers of the image (a Kubernetes-shaped run without Kubernetes)"
"$py" tests/deploy/pods_with_podman.py "$PWD" "$tag" "${podman_args[@]}"
