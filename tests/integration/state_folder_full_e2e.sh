#!/usr/bin/env bash
# A state folder that fills up (issue 33 items 2 and 10): on a 64 KiB tmpfs,
# an update whose journal cannot be written fails, saying so, sends no file
# without its line in the journal, and the daemon goes on (no crash, a clean stop). A
# state folder already full when the daemon starts is reported at start.
#   state_folder_full_e2e.sh LU_HOST REPO_ROOT
set -uo pipefail
lu_host=$1 repo=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount a tmpfs"; exit 77; }
# shellcheck source=up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"

work=$(mktemp -d /tmp/lu-full-XXXXXX)
mkdir "$work/state" "$work/src" "$work/root" "$work/objects"
cleanup() {
  local status=$?
  stop_up || status=1
  umount "$work/state" 2>/dev/null
  [ -n "${LU_KEEP_TEST_DIRS:-}" ] || rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
mount -t tmpfs -o size=64k,mode=0700 lu-state-full "$work/state" 2>/dev/null ||
  { echo "SKIP: cannot mount a tmpfs here"; exit 77; }
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
export LIVEUPDATE_STATE_DIR=$work/state
up() { start_up "$lu_host" --no-web --control-socket "$work/control.sock" "$work/objects"; }
wait_started() {
  for _ in $(seq 1 300); do
    grep -q "up: watching" "$work/up.log" && return 0
    kill -0 "$up_host_pid" 2>/dev/null || fail "lu-host up exited"
    sleep 0.1
  done
  fail "lu-host up did not start"
}
# The LiveUpdate's status message, as `lu-host get` tells it.
status_message() {
  "$lu_host" get liveupdates -o json --control-socket "$work/control.sock" 2>/dev/null |
    python3 -c 'import json,sys; s=json.load(sys.stdin)["items"][0].get("status",{}); print(json.dumps(s))'
}

up
wait_started
echo one >"$work/src/a.txt"
wait_for_file_content "$work/root/app/a.txt" one cat
echo "ok   a change is synced while there is room"

dd if=/dev/zero of="$work/state/filler" bs=4k 2>/dev/null  # until the tmpfs is full
# More lines than the journal's last page holds (tmpfs allocates by page), in one change.
mkdir "$work/many"
long=$(printf 'a-name-long-enough-that-forty-of-them-fill-more-than-a-page-%.0s' 1 2)
for i in $(seq 1 40); do echo "$i" >"$work/many/$long$i.txt"; done
mv "$work/many" "$work/src/many"
message=""
for _ in $(seq 1 300); do
  message=$(status_message)
  case $message in *"cannot keep the synced journal"*) break ;; esac
  sleep 0.1
done
case $message in
  *"cannot keep the synced journal: $work/state/"*".journal: cannot write: No space left on device"*) ;;
  *) fail "the update did not fail with the journal's message; status: $message" ;;
esac
kill -0 "$up_host_pid" 2>/dev/null || fail "lu-host up died"
for file in "$work"/root/app/many/*; do
  [ -e "$file" ] || continue
  grep -qF "/app/many/${file##*/}" "$work"/state/*.journal || fail "$file reached the container without its line in the journal"
done
echo "ok   a full state folder fails the update, saying so, and the daemon goes on"

stop_up || exit 1

# Still full: the next daemon says so at start.
up
wait_for_exit
[ "$up_exit_status" = 1 ] || fail "lu-host up on a full state folder: exit $up_exit_status, expected 1"
grep -q "lu-host up: cannot use the state folder: $work/state: $work/state is full" "$work/up.log" ||
  fail "no message at start saying the state folder is full"
echo "ok   a full state folder is reported at start"
echo "state folder full: all checks passed"
