#!/usr/bin/env bash
# The daemon's memory stays bounded whatever an update's size: `lu-host up`
# live-updates a busybox "Compose service" (the docker updater through
# lu-agent, default settings) with one update of FILES files of FILE_MIB MiB
# each (moved into the synced folder in one rename), and its peak RSS
# (VmHWM of /proc/PID/status) may grow by at most BOUND_MIB during it.
# A component that holds the whole archive grows by about its size.
# Then the initial sync of SMALL_FILES empty files into a container found
# after the daemon idles may grow it by at most SMALL_BOUND_MIB: issue 23's
# 64 MiB for 100,000 files, scaled down to 12 (what it holds per path grows
# with their count: 20,000 grew it by 16-19 MiB when the plan, the step and
# the archive held each path several times, 9 MiB since).
# Usage: memory_bound_e2e.sh LU_HOST DOCKER_UPDATER_SO REPO_ROOT [FILES FILE_MIB BOUND_MIB SMALL_FILES SMALL_BOUND_MIB]
set -euo pipefail
lu_host=$1 docker_updater=$2 repo=$3
files=${4:-24} file_mib=${5:-4} bound_mib=${6:-64} small_files=${7:-20000} small_bound_mib=${8:-12}
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
export DOCKER_HOST=unix:///var/run/docker.sock

work=$(mktemp -d)
project=lu-mem-$$
container=$project-web-1
many_project=lu-mem-many-$$
many_container=$many_project-web-1
cleanup() {
  local status=$?
  stop_up || status=1
  docker rm -f "$container" "$many_container" >/dev/null 2>&1 || true
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

# objects PROJECT FOLDER: the sample's objects for PROJECT, syncing FOLDER/src to /app, without its exec.
objects() {
  sed -e "s/\"compose-hello\"/\"$1\"/" -e '/"execs"/d' "$repo/samples/compose-hello/compose-hello.json" \
    >"$2/compose-hello.json"
  grep -q "\"$1\"" "$2/compose-hello.json" || fail "could not rename the project"
}

mkdir -p "$work/sample/src" "$work/staging/big"
echo start >"$work/sample/src/index.html"
objects "$project" "$work/sample"
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
stop_up || fail "lu-host up did not stop cleanly"

# --- the initial sync of SMALL_FILES files ---
mkdir -p "$work/many/src/tree"
for d in $(seq 1 $(((small_files + 999) / 1000))); do
  mkdir "$work/many/src/tree/d$d"
  (cd "$work/many/src/tree/d$d" && seq -f 'f%g.txt' 1 1000 | xargs touch)
done
find "$work/many/src/tree" -type f | sort | tail -n +$((small_files + 1)) | xargs -r rm -f
echo start >"$work/many/src/index.html"
objects "$many_project" "$work/many"
start_up "$lu_host" "$work/many" --no-web --updater "docker=$docker_updater" \
  --control-socket "$work/control-many.sock" --debounce 20
# Its watchers are ready and its LiveUpdate reconciled without a container: that is its idle.
for _ in $(seq 1 1200); do
  grep -q "no running container for service web of project $many_project" "$work/up.log" && break
  kill -0 "$up_host_pid" 2>/dev/null || fail "lu-host up exited"
  sleep 0.1
done
grep -q "no running container" "$work/up.log" || fail "the LiveUpdate was never reconciled"
before=$(peak_kib)
COMPOSE_HELLO_PROJECT=$many_project COMPOSE_HELLO_CONTAINER=$many_container \
  "$repo/samples/compose-hello/start.sh" >/dev/null
root=/proc/$(docker inspect -f '{{.State.Pid}}' "$many_container")/root
last=$(find "$work/many/src/tree" -type f | sort | tail -1)
wait_for_equal "$last" "/app/${last#"$work/many/src/"}"
wait_for_equal "$work/many/src/index.html" /app/index.html
synced=$(find "$root/app/tree" -type f | wc -l)
[ "$synced" -eq "$small_files" ] || fail "the initial sync copied $synced files, not $small_files"
after=$(peak_kib)
grown_mib=$(((after - before) / 1024))
echo "peak RSS before ${before} KiB, after ${after} KiB: grew ${grown_mib} MiB during an initial sync of $small_files files"
[ "$grown_mib" -le "$small_bound_mib" ] ||
  fail "the daemon's peak RSS grew by ${grown_mib} MiB during the initial sync, more than ${small_bound_mib} MiB"
echo "memory bound e2e: passed"
