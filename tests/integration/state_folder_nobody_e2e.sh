#!/usr/bin/env bash
# `lu-host up` run by a user without a writable home (issue 33 item 11): as
# nobody with HOME=/nonexistent and no XDG folders, it keeps its synced
# journals in a private folder under the temporary directory (created 0700),
# says so in one line at start, and syncs. That folder owned by someone else
# is refused at start, naming the owner.
#   state_folder_nobody_e2e.sh LU_HOST REPO_ROOT
set -uo pipefail
lu_host=$1 repo=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to run lu-host up as nobody"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
uid=$(id -u nobody) gid=$(id -g nobody)
as_nobody() { setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"; }
as_nobody test -x "$lu_host" || { echo "SKIP: nobody cannot run $lu_host (a folder above it is closed)"; exit 77; }
# shellcheck source=up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"

work=$(mktemp -d /tmp/lu-nobody-XXXXXX)
cleanup() {
  local status=$?
  stop_up || status=1
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
chmod 0755 "$work"
mkdir "$work/objects" "$work/src" "$work/root" "$work/ctl" "$work/tmp"
chown "$uid:$gid" "$work/root" "$work/ctl"
chmod 1777 "$work/tmp"  # the temporary directory ($TMPDIR): shared by every user, as /tmp
cat >"$work/objects/objects.json" <<JSON
{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "fw"},
  "spec": {"watchedPaths": ["$work/src"]}},
 {"apiVersion": "liveupdate.dev/v1alpha1", "kind": "LocalContainer", "metadata": {"name": "box"},
  "spec": {"root": "$work/root"}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "lu"},
  "spec": {"basePath": "$work", "sources": [{"fileWatch": "fw"}], "selector": {"local": {"container": "box"}},
           "syncs": [{"localPath": "src", "containerPath": "/app"}]}}]}
JSON
private=$work/tmp/liveupdate-$uid

# up_as_nobody: lu-host up as nobody, in the environment of a service user without a home.
up_as_nobody() {
  env -i PATH="$PATH" HOME=/nonexistent TMPDIR="$work/tmp" \
    setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$lu_host" up \
    --no-web --control-socket "$work/ctl/control.sock" "$work/objects" >"$work/up.log" 2>&1 &
  up_host_pid=$!
}

up_as_nobody
for _ in $(seq 1 300); do
  grep -q "up: watching" "$work/up.log" && break
  kill -0 "$up_host_pid" 2>/dev/null || fail "lu-host up exited"
  sleep 0.1
done
grep -q "up: watching" "$work/up.log" || fail "lu-host up did not start"
[ "$(grep -c "the synced journals are kept in $private/synced" "$work/up.log")" = 1 ] ||
  fail "no line at start saying where the synced journals are kept"
echo "ok   one line at start: $(grep "the synced journals are kept in" "$work/up.log")"

echo "from nobody" >"$work/src/a.txt"
wait_for_file_content "$work/root/app/a.txt" "from nobody" cat
echo "ok   a change is synced"
[ "$(stat -c '%U %a' "$private")" = "nobody 700" ] || fail "$private is $(stat -c '%U %a' "$private")"
grep -q '/app/a.txt' "$private"/synced/*.journal || fail "the journal in $private/synced does not hold /app/a.txt"
echo "ok   the journal is in $private (nobody, 0700)"
stop_up || exit 1

# The private folder made by someone else beforehand: not ours to use.
rm -rf "$private"
mkdir -m 0700 "$private"
up_as_nobody
wait_for_exit
[ "$up_exit_status" = 1 ] || fail "lu-host up with $private owned by root: exit $up_exit_status, expected 1"
grep -q "cannot use the state folder: $private/synced: $private is owned by uid 0, not by this user" "$work/up.log" ||
  fail "no message naming $private and its owner"
[ -z "$(ls -A "$private")" ] || fail "something was written in root's $private"
echo "ok   a private folder owned by root is refused at start"
echo "state folder as nobody: all checks passed"
