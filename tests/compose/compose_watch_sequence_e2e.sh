#!/usr/bin/env bash
# End to end: the sequence of docker/compose's own test of watch
# (pkg/e2e/watch_test.go: TestWatch, TestWatchIncludes, TestWatchExec), written
# here from its description, on real containers that Debian's docker-compose
# (v1) started. The rules are declared as that test's fixture did: under a
# service-level `x-develop:` through a YAML anchor (Compose's earlier
# spelling), `include: A.*` as one string, and a sync+exec with a string
# command. Steps: watch a folder created after start-up; write, modify,
# delete; ignored `*.foo` and `./ignored`; an empty folder; rewrites x-y-z and
# z-y-x; a deleted folder; sync+restart of a folder created later.
# Usage: compose_watch_sequence_e2e.sh LU_HOST DOCKER_UPDATER_SO
set -euo pipefail
lu_host=$1 docker_updater=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=compose_test_lib.sh
. "$here/compose_test_lib.sh"
compose_e2e_start luseqe2e$$

mkdir -p "$shop/inc" "$shop/exec"
echo first >"$shop/exec/first.txt"
cat >"$shop/compose.yaml" <<'YAML'
x-dev: &x-dev
  watch:
    - action: sync
      path: ./data
      target: /app/data
      ignore:
        - '*.foo'
        - ./ignored
    - action: sync+restart
      path: ./config
      target: /app/config

services:
  box:
    image: lu-busybox
    network_mode: none
    command: ["sleep", "1000000"]
    x-develop: *x-dev
  a:
    image: lu-busybox
    network_mode: none
    command: ["sleep", "1000000"]
    develop:
      watch:
        - path: ./inc
          include: A.*
          target: /data/
          action: sync
  test:
    image: lu-busybox
    network_mode: none
    command: ["sleep", "1000000"]
    develop:
      watch:
        - path: ./exec
          target: /data
          initial_sync: true
          action: sync+exec
          exec:
            command: echo "SUCCESS"
YAML

compose_v1 up -d >"$work/compose-up.log" 2>&1 || { cat "$work/compose-up.log"; fail "docker-compose up failed"; }
box=$(service_containers box)
a=$(service_containers a)

start_up "$lu_host" -p "$project" -f "$shop/compose.yaml" --updater "docker=$docker_updater" \
  --control-socket "$work/control.sock" --debounce 20
wait_for_log "services.box.x-develop is deprecated: write develop"
echo "ok: a service-level x-develop is read, with a deprecation warning"

data=$shop/data
write_data() { mkdir -p "$(dirname "$data/$1")"; echo "$2" >"$data/$1"; }
absent_in_box() {
  if docker exec "$box" stat "$1" >/dev/null 2>&1; then fail "$1 should not be in box"; fi
}
flushes=0
# Compose's waitForFlush: a fresh file must arrive, so what came before it was dealt with.
wait_for_flush() {
  flushes=$((flushes + 1))
  write_data wait.txt "flush-$flushes"
  wait_for_content "$box" /app/data/wait.txt "flush-$flushes"
}

# The watched folder is created once lu-host runs, as Compose's test does.
mkdir "$data"
wait_until "the first write arrives" \
  'write_data hello.txt "hello world"; [ "$(docker exec "$box" cat /app/data/hello.txt 2>/dev/null)" = "hello world" ]'
echo "ok: write"

write_data hello.txt "hello watch"
wait_for_content "$box" /app/data/hello.txt "hello watch"
echo "ok: modify"

rm "$data/hello.txt"
wait_for_flush
absent_in_box /app/data/hello.txt
echo "ok: delete"

write_data data.foo ignored
write_data ignored/hello.txt ignored
wait_for_flush
absent_in_box /app/data/data.foo
absent_in_box /app/data/ignored
echo "ok: ignored *.foo and ./ignored"

mkdir "$data/subdir"
wait_for_flush
docker exec "$box" test -d /app/data/subdir || fail "the empty folder subdir did not arrive"
echo "ok: an empty folder"

write_data subdir/file.txt a
wait_for_content "$box" /app/data/subdir/file.txt a
for v in x y z; do write_data subdir/file.txt "$v"; done
wait_for_content "$box" /app/data/subdir/file.txt z
for v in z y x; do write_data subdir/file.txt "$v"; done
wait_for_content "$box" /app/data/subdir/file.txt x
echo "ok: a file in it, rewritten x-y-z and z-y-x"

rm -rf "$data/subdir"
wait_for_flush
absent_in_box /app/data/subdir
echo "ok: a deleted folder"

# shellcheck disable=SC2034  # read by the condition wait_until evaluates
started=$(started_at "$box")
mkdir "$shop/config"
echo "This is an updated config file" >"$shop/config/file.config"
wait_for_content "$box" /app/config/file.config "This is an updated config file"
wait_until "box restarted after sync+restart" '[ "$(started_at "$box")" != "$started" ]'
echo "ok: sync+restart of a folder created later"

echo test >"$shop/inc/B.test"
echo test >"$shop/inc/A.test"
wait_for_content "$a" /data/A.test test
docker exec "$a" ls /data >"$work/a-data"
grep -q "B.test" "$work/a-data" && fail "include: A.* synced B.test: $(cat "$work/a-data")"
echo "ok: include as one string"

test=$(service_containers test)
wait_for_content "$test" /data/first.txt first
successes() { grep -c "SUCCESS" "$work/up.log" || true; }
# The initial sync's exec is logged after its file arrives: counted before the sample, not in the change's.
wait_until "the initial sync's exec" '[ "$(successes)" -ge 1 ]'
# shellcheck disable=SC2034  # read by the condition wait_until evaluates
before=$(successes)
echo test >"$shop/exec/test"
wait_for_content "$test" /data/test test
wait_until "sync+exec with a string command" '[ "$(successes)" -gt "$before" ]'
echo "ok: initial_sync, then sync+exec with a string command"

echo "compose watch sequence e2e: all checks passed"
