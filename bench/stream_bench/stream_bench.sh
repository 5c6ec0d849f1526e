#!/usr/bin/env bash
# stream_bench: the daemon's memory and the first copy of a large file,
# through `lu-host up` with default settings (the docker updater through
# lu-agent) on a busybox "Compose service" (issue 23's bars):
# - peak RSS (VmHWM) above idle during the first copy of a FILE_MIB MiB file,
#   during a 1-byte change in its middle, and during the initial sync of
#   FILES small files (bar: 64 MiB each);
# - the first copy's time, from the rename into the synced folder to the
#   whole file in the container, against a raw `tar -c | docker exec -i C tar -x`
#   of the same file measured in the same run and the same way, its file's
#   size probed every 10 ms as ours is (bar: 1.0x). Timing the reference by
#   its exit instead let it run without the probe's CPU, which slowed a raw
#   copy by 23 % on average (5 pairs, -13 to +61 %) on the shared 2-core machine.
# The container's files are read through /proc/<container pid>/root.
# Usage: stream_bench.sh LU_HOST [FILE_MIB [FILES]]   (as root; defaults 200 and 100000;
#        a short run: stream_bench.sh build/bin/lu-host 32 5000)
set -euo pipefail
lu_host=$1 file_mib=${2:-200} files=${3:-100000}
export DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock}
work=$(mktemp -d)
project=lustream$$
host_pid=""
cleanup() {
  [ -n "$host_pid" ] && kill "$host_pid" 2>/dev/null && wait "$host_pid" 2>/dev/null
  for c in "$project-web-1" "${project}m-web-1"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  tail -30 "$work/up.log" >&2 || true
  exit 1
}

now_ns() { date +%s%N; }
peak_kib() { awk '/^VmHWM:/ {print $2}' "/proc/$host_pid/status"; }
mib_above() { echo $((($1 - $2) / 1024)); }

# start_service PROJECT: a busybox container with the labels `docker compose up` gives service web; prints its root.
start_service() {
  local name=$1-web-1
  docker rm -f "$name" >/dev/null 2>&1 || true
  docker run -d --network none --name "$name" --label com.docker.compose.project="$1" \
    --label com.docker.compose.service=web --label com.docker.compose.oneoff=False \
    --label com.docker.compose.container-number=1 lu-busybox:latest \
    sh -c 'mkdir -p /app /ref && exec sleep 1000000' >/dev/null
  echo "/proc/$(docker inspect -f '{{.State.Pid}}' "$name")/root"
}

# objects PROJECT FOLDER: the LiveUpdate of samples/compose-hello for PROJECT, syncing FOLDER/src to /app.
objects() {
  sed -e "s/\"compose-hello\"/\"$1\"/" -e '/"execs"/d' "$(dirname "$0")/../../samples/compose-hello/compose-hello.json" \
    >"$2/compose-hello.json"
}

start_host() {
  "$lu_host" up "$1" --no-web --control-socket "$work/control-$2.sock" --state-dir "$work/state" --debounce 20 >"$work/up.log" 2>&1 &
  host_pid=$!
}
stop_host() {
  kill "$host_pid" && wait "$host_pid" || true
  host_pid=""
}

# wait_for_size FILE SIZE: until FILE has SIZE bytes (600 s at most).
wait_for_size() {
  for _ in $(seq 1 60000); do
    [ "$(stat -c %s "$1" 2>/dev/null || echo -1)" = "$2" ] && return 0
    kill -0 "$host_pid" 2>/dev/null || fail "lu-host up exited"
    sleep 0.01
  done
  fail "$1 never reached $2 bytes"
}
wait_for_equal() {
  for _ in $(seq 1 6000); do
    cmp -s "$1" "$2" && return 0
    kill -0 "$host_pid" 2>/dev/null || fail "lu-host up exited"
    sleep 0.1
  done
  fail "$2 never became equal to $1"
}

# --- one large file: its first copy, then a 1-byte change in its middle ---
mkdir -p "$work/big/src" "$work/staging"
echo start >"$work/big/src/index.html"
objects "$project" "$work/big"
root=$(start_service "$project")
start_host "$work/big" big
wait_for_equal "$work/big/src/index.html" "$root/app/index.html"
bytes=$((file_mib * 1024 * 1024))
head -c "$bytes" /dev/urandom >"$work/staging/large.bin"
cat "$work/staging/large.bin" >/dev/null  # in the page cache, as for the reference
idle=$(peak_kib)
start=$(now_ns)
mv "$work/staging/large.bin" "$work/big/src/large.bin"
wait_for_size "$root/app/large.bin" "$bytes"
ours_ms=$((($(now_ns) - start) / 1000000))
wait_for_equal "$work/big/src/large.bin" "$root/app/large.bin"
first_copy_peak=$(peak_kib)

printf 'X' | dd of="$work/big/src/large.bin" bs=1 seek=$((bytes / 2)) conv=notrunc status=none
wait_for_equal "$work/big/src/large.bin" "$root/app/large.bin"
edit_peak=$(peak_kib)

start=$(now_ns)
tar -c -C "$work/big/src" large.bin | docker exec -i "$project-web-1" tar -x -C /ref &
raw_pid=$!
wait_for_size "$root/ref/large.bin" "$bytes"
raw_ms=$((($(now_ns) - start) / 1000000))
wait "$raw_pid" || fail "the raw exec failed"
cmp -s "$work/big/src/large.bin" "$root/ref/large.bin" || fail "the raw exec's copy differs"
stop_host

# --- FILES small files: the initial sync of a container found after lu-host up idles ---
mkdir -p "$work/many/src/tree"
for d in $(seq 1 $(((files + 999) / 1000))); do
  mkdir -p "$work/many/src/tree/d$d"
  (cd "$work/many/src/tree/d$d" && for f in $(seq 1 1000); do echo "file $d/$f" >"f$f.txt"; done)
done
find "$work/many/src/tree" -type f | tail -n +$((files + 1)) | xargs -r rm -f
echo start >"$work/many/src/index.html"
objects "${project}m" "$work/many"
start_host "$work/many" many
# lu-host watches the tree before the container appears: that is its idle, once its peak stops growing.
many_idle=$(peak_kib)
for _ in $(seq 1 120); do
  sleep 1
  [ "$(peak_kib)" = "$many_idle" ] && break
  many_idle=$(peak_kib)
done
mroot=$(start_service "${project}m")
last=$(find "$work/many/src/tree" -type f | sort | tail -1)
wait_for_equal "$last" "$mroot/app/${last#"$work/many/src/"}"
wait_for_equal "$work/many/src/index.html" "$mroot/app/index.html"
[ "$(find "$mroot/app/tree" -type f | wc -l)" -eq "$files" ] || fail "the initial sync did not copy $files files"
many_peak=$(peak_kib)
stop_host

echo "stream_bench: ${file_mib} MiB file, ${files} files"
echo "peak RSS above idle, first copy of the ${file_mib} MiB file: $(mib_above "$first_copy_peak" "$idle") MiB (bar 64)"
echo "peak RSS above idle, 1-byte change in its middle:           $(mib_above "$edit_peak" "$idle") MiB (bar 64)"
echo "peak RSS above idle, initial sync of ${files} files:        $(mib_above "$many_peak" "$many_idle") MiB (bar 64)"
echo "first copy: ours ${ours_ms} ms, raw tar | docker exec ${raw_ms} ms: $(awk "BEGIN {printf \"%.2f\", $ours_ms / $raw_ms}")x (bar 1.0)"
