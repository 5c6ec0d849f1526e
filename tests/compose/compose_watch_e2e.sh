#!/usr/bin/env bash
# End to end: `lu-host up compose.yaml` reads a real Compose project's
# develop.watch and live-updates the containers Debian's docker-compose (v1)
# created. v1 refuses `develop:`, so the project is started from a copy of the
# file without it (same project name); lu-host reads the real file.
# Covers: sync with ignore, include + initial_sync, sync+restart, restart,
# sync+exec, scaled replicas, a container re-created by --force-recreate, a
# service started after lu-host up, compose-file edits while running, and the
# bad inputs (unknown action, sync without target, path outside the project,
# malformed YAML, variable without a value) while the rest keeps serving.
# Usage: compose_watch_e2e.sh LU_HOST DOCKER_UPDATER_SO
set -euo pipefail
lu_host=$1 docker_updater=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=compose_test_lib.sh
. "$here/compose_test_lib.sh"
compose_e2e_start lut12e2e$$ --rmi local

mkdir -p "$shop/src" "$shop/conf" "$shop/hooks" "$shop/hooks2" "$shop/kick" "$shop/inc/sub" "$shop/api" "$shop/app"
printf 'FROM lu-busybox\nCOPY stamp /stamp\nCMD ["sleep", "1000000"]\n' >"$shop/app/Dockerfile"
echo build-1 >"$shop/app/stamp"
echo one >"$shop/src/index.html"
echo conf-1 >"$shop/conf/app.conf"
echo hello >"$shop/inc/a.txt"
echo skipped >"$shop/inc/b.log"
echo api-1 >"$shop/api/api.txt"
echo "TARGET_ROOT=/srv" >"$shop/.env"
cat >"$shop/compose.yaml" <<'YAML'
services:
  web:
    image: lu-busybox
    network_mode: none
    command: ["sleep", "1000000"]
    develop:
      watch:
        - path: ./src
          target: /app
          action: sync
          ignore: ["*.tmp"]
        - path: ./conf
          target: /etc/app
          action: sync+restart
        - path: ./hooks
          target: /hooks
          action: sync+exec
          exec:
            command: sh -c "cat /hooks/* > /tmp/exec-out"
        - path: ./hooks2
          target: /hooks2
          action: sync+exec
          exec:
            command: sh -c 'echo "exec-as $$(id -un) in $$(pwd) mode=$$MODE"'
            user: nobody
            working_dir: /hooks2
            environment: {MODE: dev}
        - path: ./kick
          action: restart
        - path: ./inc
          target: ${TARGET_ROOT}/inc
          action: sync
          include: ["*.txt", "sub"]
          initial_sync: true
  api:
    image: lu-busybox
    network_mode: none
    command: ["sleep", "1000000"]
    develop:
      watch:
        - {path: ./api, target: /api, action: sync}
  built:
    build: ./app
    network_mode: none
    develop:
      watch:
        - {path: ./app, action: rebuild}
        - {path: ./src, target: /built, action: sync}
  late:
    image: lu-busybox
    network_mode: none
    command: ["sleep", "1000000"]
    develop:
      watch:
        - {path: ./src, target: /late, action: sync}
YAML

compose_v1 up -d --build --scale api=2 web api built >"$work/compose-up.log" 2>&1 || { cat "$work/compose-up.log"; fail "docker-compose up failed"; }

start_up "$lu_host" -p "$project" -f "$shop/compose.yaml" --updater "docker=$docker_updater" \
  --control-socket "$work/control.sock" --debounce 20

web=$(service_containers web)
wait_for_content "$web" /srv/inc/a.txt hello
absent_after_marker "$web" /srv/inc/b.log "$shop/inc" /srv/inc
echo "ok: initial_sync with include"

echo two >"$shop/src/index.html"
echo scratch >"$shop/src/note.tmp"
wait_for_content "$web" /app/index.html two
absent_after_marker "$web" /app/note.tmp "$shop/src" /app
echo "ok: sync, ignore"

echo only-txt >"$shop/inc/c.txt"
echo nope >"$shop/inc/d.log"
wait_for_content "$web" /srv/inc/c.txt only-txt
absent_after_marker "$web" /srv/inc/d.log "$shop/inc" /srv/inc
echo "ok: include"

started=$(started_at "$web")
# One change, so one restart: a second one still coming would pass for the restart rule's below.
save_file "$shop/conf/app.conf" conf-2
wait_for_content "$web" /etc/app/app.conf conf-2
wait_until "web restarted after sync+restart" '[ "$(started_at "$web")" != "$started" ]'
echo "ok: sync+restart"

# shellcheck disable=SC2034  # read by the condition wait_until evaluates
started=$(started_at "$web")
touch "$shop/kick/now"
wait_until "web restarted after restart" '[ "$(started_at "$web")" != "$started" ]'
in_container "$web" test -e /kick/now && fail "a restart rule copied a file"
echo "ok: restart"

echo hook-1 >"$shop/hooks/h1"
wait_for_content "$web" /tmp/exec-out hook-1
echo go >"$shop/hooks2/h"
wait_for_log "exec-as nobody in /hooks2 mode=dev"
echo "ok: sync+exec, with exec.user, working_dir and environment"

echo api-2 >"$shop/api/api.txt"
replicas=$(service_containers api)
[ "$(echo "$replicas" | wc -w)" = 2 ] || fail "expected 2 api replicas, got: $replicas"
for c in $replicas; do wait_for_content "$c" /api/api.txt api-2; done
echo "ok: every replica of a scaled service"

old=$web
compose_v1 up -d --force-recreate --no-deps web >/dev/null 2>&1 || fail "force-recreate failed"
web=$(service_containers web)
[ "$web" != "$old" ] || fail "web was not re-created"
wait_for_content "$web" /app/index.html two
wait_for_content "$web" /srv/inc/a.txt hello
echo "ok: re-created container synced"

wait_until "late waits with a clear status" \
  '"$lu_host" get liveupdates --control-socket "$work/control.sock" -o json | grep -q "no running container for service late of project $project"'
echo three >"$shop/src/index.html"
wait_for_content "$web" /app/index.html three
compose_v1 up -d late >/dev/null 2>&1 || fail "starting late failed"
late=$(service_containers late)
wait_for_content "$late" /late/index.html three
echo "ok: a service started after lu-host up"

# rebuild: the Compose command line rebuilds and recreates the service; the
# new container is picked up and synced.
built=$(service_containers built)
wait_for_content "$built" /stamp build-1
echo build-2 >"$shop/app/stamp"
# One query per try: two could see the old container, then none.
wait_until "built re-created by the rebuild" 'now=$(service_containers built); [ -n "$now" ] && [ "$now" != "$built" ]' 1200
# shellcheck disable=SC2154  # now is set by the condition wait_until evaluated
built=$now
wait_for_content "$built" /stamp build-2
wait_for_content "$built" /built/index.html three
wait_for_log "rebuild: done"
# The daemon's log and the LiveUpdate's are written one after the other: ask until it is there.
wait_until "the rebuild's output in the LiveUpdate's log" \
  '"$lu_host" describe liveupdate built --control-socket "$work/control.sock" | grep -q "rebuild: done"'
echo "ok: rebuild"

# A rule added while running: its folder syncs.
mkdir -p "$shop/added"
sed -i 's|        - {path: ./api, target: /api, action: sync}|        - {path: ./api, target: /api, action: sync}\n        - {path: ./added, target: /added, action: sync}|' "$shop/compose.yaml"
grep -q "./added" "$shop/compose.yaml" || fail "could not edit the compose file"
for c in $(service_containers api); do
  wait_until "the added rule syncs" 'echo new-rule >"$shop/added/x"; [ "$(docker exec "$c" cat /added/x 2>/dev/null)" = new-rule ]'
done
echo "ok: compose-file edit adds a rule"

# Bad inputs, each reported with file:line:column while the rest keeps serving.
cp "$shop/compose.yaml" "$work/good.yaml"
bad_service() {  # appends a service "bad" with one rule
  cp "$work/good.yaml" "$shop/compose.yaml"
  printf '  bad:\n    image: lu-busybox\n    develop:\n      watch:\n        - %s\n' "$1" >>"$shop/compose.yaml"
}
line_of_bad=$(( $(wc -l <"$work/good.yaml") + 5 ))
bad_service '{path: ./src, target: /x, action: synk}'
wait_for_log "compose.yaml:$line_of_bad:45: services.bad.develop.watch\\[0\\]: unknown action \"synk\" (valid: rebuild, restart, sync, sync+exec, sync+restart)"
bad_service '{path: ./src, action: sync}'
wait_for_log "compose.yaml:$line_of_bad:11: services.bad.develop.watch\\[0\\]: action sync needs a target"
bad_service '{path: ../outside, target: /x, action: sync}'
wait_for_log "compose.yaml:$line_of_bad:18: services.bad.develop.watch\\[0\\].path \"../outside\" is outside the project folder"
echo four >"$shop/src/index.html"
wait_for_content "$web" /app/index.html four
echo "ok: a bad service is reported, the others keep serving"

printf 'services:\n  web: [unclosed\n' >"$shop/compose.yaml"
wait_for_log "compose.yaml:3:1: malformed YAML"
cp "$work/good.yaml" "$shop/compose.yaml"
sed -i 's|target: /app|target: ${APP_DIR:?set APP_DIR}|' "$shop/compose.yaml"
wait_for_log "compose.yaml:9:19: required variable APP_DIR is missing a value: set APP_DIR"
echo five >"$shop/src/index.html"
wait_for_content "$web" /app/index.html five
echo "ok: malformed YAML and a variable without a value keep the objects as they were"

echo "APP_DIR=/app2" >>"$shop/.env"
echo six >"$shop/src/index.html"
wait_for_content "$web" /app2/index.html six
echo "ok: a .env edit applies"

echo "compose watch e2e: all checks passed"
