#!/bin/sh
# Builds archive_bench and compares the host's archive step with GNU tar on a
# 10,000-file tree and on 20 files of 10 MiB, in the same run.
# usage: bench/archive_bench/run.sh [BUILD_DIR] [archive_bench options...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-"$here/../../build"}
[ $# -gt 0 ] && shift
cmake --build "$build" --target archive_bench -j2 >/dev/null
exec "$build/bin/archive_bench" "$@"
