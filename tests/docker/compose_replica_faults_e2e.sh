#!/usr/bin/env bash
# Four replicas of a Compose service through `lu-host up` on the real engine,
# one of them with a read-only target (/app a read-only tmpfs): that one is
# held alone, the status saying so, while the others get every change (C10).
# Then one is killed while its update's run step is in flight: it counts as
# not running, as one stopped before (C07), and later changes still reach the
# two healthy replicas.
# Usage: compose_replica_faults_e2e.sh LU_HOST DOCKER_UPDATER_SO REPO_ROOT
set -euo pipefail
lu_host=$1 docker_updater=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
export DOCKER_HOST=unix:///var/run/docker.sock

work=$(mktemp -d)
project=lu-faults-$$
replicas=("$project-web-1" "$project-web-2" "$project-web-3" "$project-web-4")
killed=${replicas[2]} read_only=${replicas[3]}
cleanup() {
  local status=$?
  stop_up || status=1
  docker rm -f "${replicas[@]}" >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

in_replica() { docker exec "$1" cat "$2"; }
wait_in() { wait_for_file_content "$2" "$3" in_replica "$1"; }

status_of_web() { "$lu_host" get liveupdates -o json --control-socket "$work/control.sock"; }
# wait_for_status PYTHON_CONDITION: waits (30 s at most) until the LiveUpdate's status satisfies it
# (s: the status; c: its containers by name).
wait_for_status() {
  for _ in $(seq 1 300); do
    if status_of_web 2>/dev/null | python3 -c "
import json, sys
items = json.load(sys.stdin)
items = items.get('items', items) if isinstance(items, dict) else items
s = next((i.get('status', {}) for i in items if i.get('metadata', {}).get('name') == 'web'), {})
c = {x.get('containerName'): x for x in s.get('containers', [])}
sys.exit(0 if ($1) else 1)"; then return 0; fi
    sleep 0.1
  done
  fail "the status never satisfied: $1 (is: $(status_of_web 2>&1 || true))"
}

mkdir -p "$work/src"
echo initial >"$work/src/index.html"
# The run step waits while /hold exists.
cat >"$work/objects.json" <<JSON
{"kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "src"}, "spec": {"watchedPaths": ["src"]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "DockerComposeService", "metadata": {"name": "web"},
  "spec": {"service": "web", "project": {"name": "$project", "projectPath": "."}}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "web", "annotations": {"tilt.dev/resource": "web"}},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}], "selector": {"dockerCompose": {"service": "web"}},
           "syncs": [{"localPath": "src", "containerPath": "/app"}], "initialSync": {},
           "execs": [{"args": ["sh", "-c", "touch /tmp/started; while [ -e /hold ]; do sleep 0.05; done; cp /app/index.html /tmp/ran"]}]}}]}
JSON
for i in 1 2 3 4; do
  extra=()
  [ "$i" -eq 4 ] && extra=(--tmpfs /app:ro)
  docker run -d --network none --name "${replicas[i - 1]}" --label "com.docker.compose.project=$project" \
    --label com.docker.compose.service=web --label com.docker.compose.oneoff=False \
    --label "com.docker.compose.container-number=$i" "${extra[@]}" lu-busybox:latest sleep 100000 >/dev/null
done

start_up "$lu_host" --updater "docker=$docker_updater" --control-socket "$work/control.sock" --debounce 20 \
  "$work/objects.json"
for r in "${replicas[@]:0:3}"; do wait_in "$r" /tmp/ran initial; done
held="c.get('$read_only', {}).get('waiting', {})"
wait_for_status "'failed' not in s and len(c) == 4 and $held.get('reason') == 'UpdateFailed' and
  'read-only' in $held.get('message', '').lower() and 'held' in $held.get('message', '')"
echo "ok: the read-only replica is held alone, the status says so; the initial sync reached the other three"

echo edited >"$work/src/index.html"
for r in "${replicas[@]:0:3}"; do wait_in "$r" /tmp/ran edited; done
wait_for_status "'failed' not in s and $held.get('reason') == 'UpdateFailed' and
  all(not c[r].get('waiting') for r in ['${replicas[0]}', '${replicas[1]}', '$killed'])"
echo "ok: a later change reached the three others, the read-only one still held"

for r in "${replicas[@]:0:3}"; do docker exec "$r" sh -c 'rm -f /tmp/started; touch /hold'; done
echo killed >"$work/src/index.html"
for r in "${replicas[@]:0:3}"; do wait_for_file_content /tmp/started "" in_replica "$r"; done
docker kill "$killed" >/dev/null
for r in "${replicas[@]:0:2}"; do docker exec "$r" rm /hold; done
for r in "${replicas[@]:0:2}"; do wait_in "$r" /tmp/ran killed; done
for _ in $(seq 1 100); do grep -q "$killed is not running" "$work/up.log" && break; sleep 0.1; done
grep -q "Container $killed is not running (container $killed.*stopped during the update" "$work/up.log" ||
  fail "the log does not say the killed replica is not running"
wait_for_status "'failed' not in s and '$killed' not in c and $held.get('reason') == 'UpdateFailed'"
echo "ok: the replica killed mid-update counts as not running; the status holds only the read-only one"

echo after >"$work/src/index.html"
for r in "${replicas[@]:0:2}"; do wait_in "$r" /tmp/ran after; done
wait_for_status "'failed' not in s and len(c) == 3 and all(not c[r].get('waiting') for r in ['${replicas[0]}', '${replicas[1]}'])"
if grep -q "UpdateFailed: .*$killed" "$work/up.log"; then fail "the killed replica was taken for a failure"; fi
echo "ok: later changes reach the two healthy replicas"

stop_up
echo "compose replica faults e2e: all checks passed"
