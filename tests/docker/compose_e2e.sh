#!/usr/bin/env bash
# End to end: `lu-host up` on a copy of samples/compose-hello live-updates the
# service's container on the real engine: the initial sync, an edit, and a
# re-created container (found again through the engine's events), each
# container's lu-agent session counted in the status page's /metrics;
# describe and the status page say lu-agent was copied in.
# Usage: compose_e2e.sh LU_HOST DOCKER_UPDATER_SO REPO_ROOT
set -euo pipefail
lu_host=$1 docker_updater=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
export DOCKER_HOST=unix:///var/run/docker.sock

work=$(mktemp -d)
project=lu-e2e-$$
container=$project-web-1
cleanup() {
  local status=$?
  stop_up || status=1
  docker rm -f "$container" >/dev/null 2>&1 || true
  # LU_E2E_KEEP_LOG: where to keep the daemon's log (agent_place_e2e.sh reads it).
  if [ -n "${LU_E2E_KEEP_LOG:-}" ]; then cp "$work/up.log" "$LU_E2E_KEEP_LOG" || status=1; fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

wait_for_content() { wait_for_file_content "$1" "$2" docker exec "$container" cat; }

mkdir -p "$work/sample"
cp -r "$repo/samples/compose-hello/src" "$work/sample/"
sed "s/\"compose-hello\"/\"$project\"/" "$repo/samples/compose-hello/compose-hello.json" >"$work/sample/compose-hello.json"
grep -q "\"$project\"" "$work/sample/compose-hello.json" || fail "could not rename the project"

COMPOSE_HELLO_PROJECT=$project COMPOSE_HELLO_CONTAINER=$container "$repo/samples/compose-hello/start.sh" >/dev/null

start_up "$lu_host" "$work/sample" --updater "docker=$docker_updater" --control-socket "$work/control.sock" \
  --debounce 20 --web-port 0
up_status_page || fail "lu-host up printed no status page"

initial=$(cat "$work/sample/src/index.html")
wait_for_content /app/index.html "$initial"
echo "ok: initial sync"

printf '<h1>edited %s</h1>\n' "$$" >"$work/sample/src/index.html"
wait_for_content /app/index.html "<h1>edited $$</h1>"
wait_for_content /tmp/last-sync "synced $(wc -c <"$work/sample/src/index.html") bytes"
echo "ok: edit synced and the exec ran"
expect_agent "$lu_host" web copied no
echo "ok: describe and /api/status say lu-agent was copied in, no restart"

# A re-created container is a new container ID: discovery reports it and the
# reconciler syncs it from scratch.
old_id=$(docker inspect -f '{{.Id}}' "$container")
COMPOSE_HELLO_PROJECT=$project COMPOSE_HELLO_CONTAINER=$container "$repo/samples/compose-hello/start.sh" >/dev/null
[ "$(docker inspect -f '{{.Id}}' "$container")" != "$old_id" ] || fail "the container was not re-created"
wait_for_content /app/index.html "<h1>edited $$</h1>"
echo "ok: re-created container synced"

# One session in each container, neither a reconnect (the second container is a new one).
metrics=$(up_metrics) || fail "GET /metrics"
sessions=$(metric_sample "$metrics" 'lu_agent_sessions_total{updater="docker"}')
[ "$sessions" = 2 ] || fail "lu_agent_sessions_total is $sessions, not 2: $(grep lu_agent <<<"$metrics")"
reconnects=$(metric_sample "$metrics" 'lu_agent_reconnects_total{updater="docker"}')
[ "$reconnects" = 0 ] || fail "lu_agent_reconnects_total is $reconnects, not 0"
echo "ok: /metrics counts the 2 agent sessions"

stop_up
echo "compose e2e: all checks passed"
