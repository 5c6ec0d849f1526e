#!/usr/bin/env bash
# Makes the agent image that `lu-host webhook --agent-image` injects from, and
# imports it into the test cluster's containerd (no registry there). It holds
# /lu-agent (static, from the build) and a static busybox as /bin/cp: the
# injected init container runs `cp /lu-agent /.lu-agent/injected/lu-agent`.
#
# usage: build-image.sh BUILD_DIR [IMAGE] [K8S_DIR]
#   IMAGE    default localhost/lu-agent:dev
#   K8S_DIR  ../shared/k8s (its lib/mkimage.py builds the OCI archive); the
#            cluster must be started; $LU_K8S_STATE as cluster.sh reads it
# For another cluster: build the archive the same way and load it with the
# cluster's own tool (kind load image-archive, ctr import, a registry push).
set -euo pipefail
build=$(cd "$1" && pwd)
image=${2:-localhost/lu-agent:dev}
k8s_dir=${3:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/k8s}
state=${LU_K8S_STATE:-/tmp/lu-k8s}
busybox=$(command -v busybox || true)
for f in "$build/bin/lu-agent" "$k8s_dir/lib/mkimage.py" "$busybox"; do
  [ -n "$f" ] && [ -e "$f" ] || { echo "build-image.sh: ${f:-busybox} not found" >&2; exit 1; }
done
# Both run in any image's user space: they must not need a library.
for f in "$build/bin/lu-agent" "$busybox"; do
  file -L "$f" | grep -q 'statically linked' || { echo "build-image.sh: $f is not static" >&2; exit 1; }
done
rootfs=$(mktemp -d)
archive=$(mktemp --suffix=.tar)
trap 'rm -rf "$rootfs" "$archive"' EXIT
mkdir -p "$rootfs/bin"
strip --strip-debug -o "$rootfs/lu-agent" "$build/bin/lu-agent"
chmod 0755 "$rootfs/lu-agent"
cp -L "$busybox" "$rootfs/bin/busybox"
ln -s busybox "$rootfs/bin/cp"
python3 "$k8s_dir/lib/mkimage.py" "$rootfs" "$image" "$archive" /lu-agent --help >/dev/null
ctr -a "$state/containerd/containerd.sock" -n k8s.io images import --all-platforms "$archive" >/dev/null
echo "$image"
