#!/usr/bin/env bash
# One change to three replicas of a Compose service through `lu-host up` on
# the real engine, updated concurrently: a replica whose run step fails is
# reported alone while the others are updated; a replica removed while its
# update runs (a run step that waits) does not keep the others from finishing.
# Usage: compose_replicas_e2e.sh LU_HOST DOCKER_UPDATER_SO REPO_ROOT
set -euo pipefail
lu_host=$1 docker_updater=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
export DOCKER_HOST=unix:///var/run/docker.sock

work=$(mktemp -d)
project=lu-replicas-$$
replicas=("$project-web-1" "$project-web-2" "$project-web-3")
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
# wait_for_status PYTHON_CONDITION: waits (30 s at most) until the LiveUpdate's status satisfies it (s: the status).
wait_for_status() {
  for _ in $(seq 1 300); do
    if status_of_web 2>/dev/null | python3 -c "
import json, sys
items = json.load(sys.stdin)
items = items.get('items', items) if isinstance(items, dict) else items
s = next((i.get('status', {}) for i in items if i.get('metadata', {}).get('name') == 'web'), {})
sys.exit(0 if ($1) else 1)"; then return 0; fi
    sleep 0.1
  done
  fail "the status never satisfied: $1 (is: $(status_of_web 2>&1 || true))"
}

mkdir -p "$work/src"
echo initial >"$work/src/index.html"
# The run step: it fails where /fail exists, and waits while /hold exists.
cat >"$work/objects.json" <<JSON
{"kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "src"}, "spec": {"watchedPaths": ["src"]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "DockerComposeService", "metadata": {"name": "web"},
  "spec": {"service": "web", "project": {"name": "$project", "projectPath": "."}}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "web", "annotations": {"tilt.dev/resource": "web"}},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}], "selector": {"dockerCompose": {"service": "web"}},
           "syncs": [{"localPath": "src", "containerPath": "/app"}], "initialSync": {},
           "execs": [{"args": ["sh", "-c", "touch /tmp/started; while [ -e /hold ]; do sleep 0.05; done; cp /app/index.html /tmp/ran; test ! -e /fail"]}]}}]}
JSON
for i in 1 2 3; do
  docker run -d --network none --name "${replicas[i - 1]}" --label "com.docker.compose.project=$project" \
    --label com.docker.compose.service=web --label com.docker.compose.oneoff=False \
    --label "com.docker.compose.container-number=$i" lu-busybox:latest sleep 100000 >/dev/null
done
docker exec "${replicas[1]}" touch /fail

start_up "$lu_host" --updater "docker=$docker_updater" --control-socket "$work/control.sock" --debounce 20 \
  "$work/objects.json"
for r in "${replicas[@]}"; do wait_in "$r" /app/index.html initial; done
echo "ok: initial sync of three replicas"

echo edited >"$work/src/index.html"
for r in "${replicas[@]}"; do wait_in "$r" /tmp/ran edited; done
wait_for_status "len(s.get('containers', [])) == 3 and 'failed' not in s and
  [bool(c.get('lastExecError')) for c in sorted(s['containers'], key=lambda c: c['containerName'])] == [False, True, False]"
echo "ok: the failing run step is reported for its replica alone; the others were updated"

docker exec "${replicas[1]}" rm /fail
for r in "${replicas[@]}"; do docker exec "$r" sh -c 'rm -f /tmp/started; touch /hold'; done
echo held >"$work/src/index.html"
for r in "${replicas[@]}"; do wait_for_file_content /tmp/started "" in_replica "$r"; done
docker rm -f "${replicas[1]}" >/dev/null
for r in "${replicas[0]}" "${replicas[2]}"; do docker exec "$r" rm /hold; done
for r in "${replicas[0]}" "${replicas[2]}"; do wait_in "$r" /tmp/ran held; done
echo "ok: the two remaining replicas finished their update"

# Once discovery saw the removal, the next change reaches the two that remain.
wait_for_status "len(s.get('containers', [])) == 2 or 'failed' in s"
echo again >"$work/src/index.html"
for r in "${replicas[0]}" "${replicas[2]}"; do wait_in "$r" /tmp/ran again; done
echo "ok: the next change reached the remaining replicas"

stop_up
echo "compose replicas e2e: all checks passed"
