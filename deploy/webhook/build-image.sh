#!/usr/bin/env bash
# Makes a container image of lu-host and the liveupdate plugin from a build
# and imports it into the test cluster's containerd (no registry there).
# The image holds /opt/lu/bin/lu-host, /opt/lu/lib/libliveupdate.so (where
# lu-host looks for it) and the shared libraries both need, found with ldd.
#
# usage: build-image.sh BUILD_DIR [IMAGE] [K8S_DIR]
#   IMAGE    default localhost/lu-host-webhook:dev
#   K8S_DIR  ../shared/k8s (its lib/mkimage.py builds the OCI archive); the
#            cluster must be started; $LU_K8S_STATE as cluster.sh reads it
# For another cluster: build the archive the same way and load it with the
# cluster's own tool (kind load image-archive, ctr import, a registry push).
set -euo pipefail
build=$(cd "$1" && pwd)
image=${2:-localhost/lu-host-webhook:dev}
k8s_dir=${3:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/k8s}
state=${LU_K8S_STATE:-/tmp/lu-k8s}
for f in "$build/bin/lu-host" "$build/lib/libliveupdate.so" "$k8s_dir/lib/mkimage.py"; do
  [ -e "$f" ] || { echo "build-image.sh: $f not found" >&2; exit 1; }
done
rootfs=$(mktemp -d)
archive=$(mktemp --suffix=.tar)
trap 'rm -rf "$rootfs" "$archive"' EXIT
mkdir -p "$rootfs/opt/lu/bin" "$rootfs/opt/lu/lib" "$rootfs/tmp" "$rootfs/etc"
chmod 1777 "$rootfs/tmp"
# Without debug information: a RelWithDebInfo lu-host is ~95 MB, ~10 MB stripped.
strip --strip-debug -o "$rootfs/opt/lu/bin/lu-host" "$build/bin/lu-host"
strip --strip-debug -o "$rootfs/opt/lu/lib/libliveupdate.so" "$build/lib/libliveupdate.so"
# Every library either binary loads, at the path the loader looks for it.
for lib in $( (ldd "$build/bin/lu-host"; ldd "$build/lib/libliveupdate.so") | awk '/=> \//{print $3} /^[ \t]*\//{print $1}' | sort -u); do
  mkdir -p "$rootfs$(dirname "$lib")"
  cp -L "$lib" "$rootfs$lib"
done
echo "nobody:x:65534:65534:nobody:/:/sbin/nologin" >"$rootfs/etc/passwd"
python3 "$k8s_dir/lib/mkimage.py" "$rootfs" "$image" "$archive" /opt/lu/bin/lu-host webhook >/dev/null
ctr -a "$state/containerd/containerd.sock" -n k8s.io images import --all-platforms "$archive" >/dev/null
echo "$image"
