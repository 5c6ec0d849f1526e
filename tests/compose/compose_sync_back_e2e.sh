#!/usr/bin/env bash
# End to end: the compose-watch sample's x-sync-back (docs/sync-back.md) with
# a real Compose project. `lu-host up` reads a copy of the sample's own
# compose.yaml; docker-compose v1 refuses `develop:`, so the project is
# started from a copy without it (compose_test_lib.sh). The service's
# install step rewrites /deps/package-lock.json, which its rule brings back
# to ./deps; a file the service writes beside it, or under a rule without
# x-sync-back, stays in the container; and the lockfile that came back is
# not sent forward again.
# Usage: compose_sync_back_e2e.sh LU_HOST DOCKER_UPDATER_SO
set -euo pipefail
lu_host=$1 docker_updater=$2
here=$(cd "$(dirname "$0")" && pwd)
export DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock}
# shellcheck source=../integration/up_e2e_lib.sh
. "$here/../integration/up_e2e_lib.sh"
# shellcheck source=compose_test_lib.sh
. "$here/compose_test_lib.sh"

project=lusbcompose$$
work=$(mktemp -d)
shop=$work/shop
cleanup() {
  local status=$?
  stop_up || status=1
  compose_v1 down -t 0 >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

cp -r "$here/../../samples/compose-watch" "$shop"
rm -f "$shop/deps/package-lock.json"
grep -q 'x-sync-back: \[package-lock.json\]' "$shop/compose.yaml" || fail "the sample lost its x-sync-back rule"

compose_v1 up -d web >"$work/compose-up.log" 2>&1 || { cat "$work/compose-up.log"; fail "docker-compose up failed"; }
start_up "$lu_host" -p "$project" -f "$shop/compose.yaml" --updater "docker=$docker_updater" \
  --control-socket "$work/control.sock" --debounce 20
web=$(service_containers web)
[ -n "$web" ] || fail "no web container"
wait_for_content "$web" /deps/package.json "$(cat "$shop/deps/package.json")"
wait_for_log "Sync back from container .* (/deps: package-lock.json) into $shop/deps: started"
echo "ok: x-sync-back read from compose.yaml, the watch started"

# What the install step writes for the package.json in the container.
lockfile_for() {
  printf '{"lockfileVersion": 3, "of": "%s"}' "$(docker exec "$web" md5sum /deps/package.json | cut -c1-12)"
}

# Written by the service where nothing comes back: beside the lockfile, and
# under the pages' rule (no x-sync-back).
docker exec "$web" sh -c 'echo cache > /deps/install.log; mkdir -p /deps/node_modules/x; echo m > /deps/node_modules/x/i.js; echo gen > /www/generated.html'

# A dependency added: package.json goes forward, the install step rewrites the lockfile, it comes back.
printf '{"name": "compose-watch", "dependencies": {"left-pad": "1.3.0"}}\n' >"$shop/deps/package.json"
wait_for_content "$web" /deps/package.json "$(cat "$shop/deps/package.json")"
expected=$(lockfile_for)
wait_for_file_content "$shop/deps/package-lock.json" "$expected" cat
echo "ok: the lockfile the service rewrote came back"

# Another change after the first: a later lockfile replaces the first here.
printf '{"name": "compose-watch", "dependencies": {"left-pad": "1.3.0", "is-odd": "3.0.1"}}\n' >"$shop/deps/package.json"
wait_for_content "$web" /deps/package.json "$(cat "$shop/deps/package.json")"
expected=$(lockfile_for)
wait_for_file_content "$shop/deps/package-lock.json" "$expected" cat
echo "ok: a later lockfile replaced it"

# By now the service's other files had every chance to come back: none did.
for f in deps/install.log deps/node_modules src/generated.html; do
  [ ! -e "$shop/$f" ] || fail "$f came back although no x-sync-back names it"
done
echo "ok: files outside x-sync-back stay in the container"

# No echo: the lockfile that came back was never a local change to send forward.
if grep -q "Changed: .*package-lock.json" "$work/up.log"; then fail "the lockfile that came back was sent forward"; fi
[ "$(docker exec "$web" cat /deps/package-lock.json)" = "$expected" ] || fail "the container's lockfile changed"
echo "ok: no echo"
