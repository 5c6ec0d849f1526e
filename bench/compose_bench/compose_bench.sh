#!/usr/bin/env bash
# compose_bench: edit → content visible in the container, one file changed,
# through a real Compose project (docker-compose v1 starts it, `lu-host up`
# with default settings reads its develop.watch), median and p95 over N edits
# (default 20). The reference, measured in the same run on the same
# container: a raw `docker exec -i C sh -c 'cat > FILE'` of the same change.
# Visibility is read through /proc/<container pid>/root, polled from bash
# builtins (no process per poll), so both paths are timed the same way.
# Usage: compose_bench.sh LU_HOST [EDITS]   (as root, engine from scripts/dockerd.sh)
set -euo pipefail
lu_host=$1 edits=${2:-20}
export DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock}
project=lut12bench$$
work=$(mktemp -d)
shop=$work/shop
host_pid=""
compose_v1() { docker-compose -p "$project" -f "$work/compose.v1.yaml" --project-directory "$shop" "$@"; }
cleanup() {
  [ -n "$host_pid" ] && kill "$host_pid" 2>/dev/null && wait "$host_pid" 2>/dev/null
  compose_v1 down -t 0 >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$shop/src"
echo start >"$shop/src/page.txt"
cat >"$shop/compose.yaml" <<'YAML'
services:
  web:
    image: lu-busybox
    network_mode: none
    command: ["sh", "-c", "mkdir -p /app && exec sleep 1000000"]
    develop:
      watch:
        - {path: ./src, target: /app, action: sync}
YAML
grep -v -e 'develop:' -e 'watch:' -e '- {path' "$shop/compose.yaml" >"$work/compose.v1.yaml"
compose_v1 up -d >/dev/null 2>&1
container=$(docker ps -q --filter "label=com.docker.compose.project=$project" --filter label=com.docker.compose.service=web)
root=/proc/$(docker inspect -f '{{.State.Pid}}' "$container")/root
"$lu_host" up -p "$project" "$shop/compose.yaml" --control-socket "$work/control.sock" --state-dir "$work/state" >"$work/up.log" 2>&1 &
host_pid=$!

# Seconds (microsecond resolution) until $root$1 reads $2; 10 s at most.
now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }
wait_visible() {
  local file=$root$1 want=$2 line deadline=$(( $(now_us) + 10000000 ))
  while :; do
    line=""
    { read -r line <"$file"; } 2>/dev/null || true
    [ "$line" = "$want" ] && return 0
    [ "$(now_us)" -lt "$deadline" ] || { echo "never visible: $1 = $want" >&2; tail -20 "$work/up.log" >&2; exit 1; }
  done
}

# The first sync also waits for lu-host to start and find the container: not
# timed, written again until it shows.
for i in $(seq 1 60); do
  echo "warm-$i" >"$shop/src/page.txt"
  sleep 0.5
  line=""
  { read -r line <"$root/app/page.txt"; } 2>/dev/null || true
  [ "$line" = "warm-$i" ] && break
done
wait_visible /app/page.txt "warm-$i"

declare -a lu raw
for i in $(seq 1 "$edits"); do
  t0=$(now_us)
  echo "edit-$i" >"$shop/src/page.txt"
  wait_visible /app/page.txt "edit-$i"
  lu+=($(( $(now_us) - t0 )))
  sleep 0.3
  t0=$(now_us)
  echo "raw-$i" | docker exec -i "$container" sh -c 'cat > /app/raw.txt'
  wait_visible /app/raw.txt "raw-$i"
  raw+=($(( $(now_us) - t0 )))
  sleep 0.1
done

stats() {  # median p95 in ms of the microsecond values given
  printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    p = v[int(NR * 0.95 + 0.999)]
    printf "%.1f %.1f", m / 1000, p / 1000 }'
}
read -r lu_med lu_p95 <<<"$(stats "${lu[@]}")"
read -r raw_med raw_p95 <<<"$(stats "${raw[@]}")"
echo "compose_bench: $edits edits of one file, lu-host up compose.yaml (default settings) vs raw docker exec"
printf '  lu-host up      median %7.1f ms   p95 %7.1f ms\n' "$lu_med" "$lu_p95"
printf '  docker exec     median %7.1f ms   p95 %7.1f ms\n' "$raw_med" "$raw_p95"
awk -v a="$lu_med" -v b="$raw_med" -v c="$lu_p95" -v d="$raw_p95" \
  'BEGIN { printf "  ratio (lu-host / docker exec): median %.2f, p95 %.2f\n", a / b, c / d }'
