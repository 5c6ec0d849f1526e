#!/usr/bin/env bash
# The daemon's memory stays bounded whatever an update's size: `lu-host up`
# live-updates a busybox "Compose service" (the docker updater through
# lu-agent, default settings) with one update of FILES files of FILE_MIB MiB
# each (moved into the synced folder in one rename), and its peak RSS
# (VmHWM of /proc/PID/status) may grow by at most BOUND_MIB during it.
# A component that holds the whole archive grows by about its size.
# Usage: memory_bound_e2e.sh LU_HOST DOCKER_UPDATER_SO REPO_ROOT [FILES FILE_MIB BOUND_MIB]
set -euo pipefail
lu_host=$1 docker_updater=$2 repo=$3
files=${4:-24} file_mib=${5:-4} bound_mib=${6:-64}
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
export DOCKER_HOST=unix:///var/run/docker.sock

work=$(mktemp -d)
project=lu-mem-$$
container=$project-web-1
cleanup() {
  local status=$?
  stop_up || status=1
  docker rm -f "$container" >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

peak_kib() { awk '/^VmHWM:/ {print $2}' "/proc/$up_host_pid/status"; }

# wait_for_equal LOCAL CONTAINER_PATH: waits (120 s at most) until the container's file equals the local one.
wait_for_equal() {
  for _ in $(seq 1 1200); do
    cmp -s "$1" "$root$2" && return 0
    kill -0 "$up_host_pid" 2>/dev/null || fail "lu-host up exited"
    sleep 0.1
  done
  fail "$2 never became equal to $1"
}

mkdir -p "$work/sample/src" "$work/staging/big"
echo start >"$work/sample/src/index.html"
sed -e "s/\"compose-hello\"/\"$project\"/" -e '/"execs"/d' "$repo/samples/compose-hello/compose-hello.json" \
  >"$work/sample/compose-hello.json"
grep -q "\"$project\"" "$work/sample/compose-hello.json" || fail "could not rename the project"
COMPOSE_HELLO_PROJECT=$project COMPOSE_HELLO_CONTAINER=$container "$repo/samples/compose-hello/start.sh" >/dev/null
root=/proc/$(docker inspect -f '{{.State.Pid}}' "$container")/root
[ -d "$root/" ] || { echo "SKIP: cannot read the container's files through $root (not root?)"; exit 77; }

start_up "$lu_host" "$work/sample" --no-web --updater "docker=$docker_updater" \
  --control-socket "$work/control.sock" --debounce 20
wait_for_equal "$work/sample/src/index.html" /app/index.html

for i in $(seq 1 "$files"); do
  head -c "$((file_mib * 1024 * 1024))" /dev/urandom >"$work/staging/big/part-$i.bin"
done
before=$(peak_kib)
mv "$work/staging/big" "$work/sample/src/big"
for i in $(seq 1 "$files"); do wait_for_equal "$work/sample/src/big/part-$i.bin" "/app/big/part-$i.bin"; done
after=$(peak_kib)
grown_mib=$(((after - before) / 1024))
echo "peak RSS before ${before} KiB, after ${after} KiB: grew ${grown_mib} MiB during an update of $((files * file_mib)) MiB"
[ "$grown_mib" -le "$bound_mib" ] || fail "the daemon's peak RSS grew by ${grown_mib} MiB, more than ${bound_mib} MiB"
echo "memory bound e2e: passed"
