#!/usr/bin/env bash
# A restarted daemon overwrites no change the app made in a pod while none
# ran (docs/sync-back.md, "A whole forward sync"): `lu-host up
# --from-cluster --allow-sync-back` is killed with SIGKILL (its Lease left
# behind, taken over at once by the restart); meanwhile the app rewrites a
# file that comes back, deletes one and makes one, the developer edits one
# locally, and both sides change one more. Started again, its initial sync
# reads the pod through the kubernetes updater's digest (liveupdate.digest/1,
# lu-agent over the API server's exec): the app's three changes stay in the
# pod and come back, the local edit goes forward, the file changed on both
# sides is a conflict (each side keeps its content; the LiveUpdate's status
# and `lu-host get` show it), nothing is overwritten. Then it is stopped
# with SIGTERM: the app's changes while it is stopped stay and come back too.
# Usage: k8s_sync_back_restart_e2e.sh LU_HOST K8S_DIR REPO_ROOT   (exit 77 without K8S_DIR)
set -euo pipefail
lu_host=$1 k8s_dir=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
# shellcheck source=k8s_sync_back_lib.sh
. "$repo/tests/kubernetes/k8s_sync_back_lib.sh"
use_cluster "$k8s_dir"
ns=lu-sync-back-restart-test-$$
p=sbr$$

work=$(mktemp -d)
cleanup() {
  local status=$?
  stop_up || status=1
  delete_namespace "$ns"
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
in_pod() { kn exec web -c web -- sh -c "$1"; }
pod_holds() { [ "$(kn exec web -c web -- cat "$1" 2>/dev/null)" = "$2" ]; }
local_holds() { [ "$(cat "$project/src/$1" 2>/dev/null)" = "$2" ]; }
start() {
  start_up "$lu_host" --from-cluster --allow-sync-back --namespace "$ns" --no-web --control-socket "$work/control.sock" \
    --debounce 20 --log-level debug "$project"
}

install_crds "$lu_host"
k create namespace "$ns" >/dev/null
kn create serviceaccount default >/dev/null 2>&1 || true
web_and_live_update "$p" "$ns" "{localPath: src, containerPath: /www, syncBack: [gen]}" | kn apply -f - >/dev/null
project=$work/project
mkdir -p "$project/src"
echo "<h1>first $$</h1>" >"$project/src/index.html"
kn wait --for=condition=Ready pod/web --timeout=90s >/dev/null || fail "the pod did not become Ready"

start
wait_for pod_holds /www/index.html "<h1>first $$</h1>"
wait_for grep -q "Sync back from container .*: started" "$work/up.log"
in_pod "mkdir -p /www/gen && echo one > /www/gen/rewritten.txt && echo doomed > /www/gen/deleted.txt &&
  echo agreed > /www/gen/local.txt && echo agreed > /www/gen/both.txt"
wait_for local_holds gen/rewritten.txt one
wait_for local_holds gen/deleted.txt doomed
wait_for local_holds gen/local.txt agreed
wait_for local_holds gen/both.txt agreed
echo "ok: the app's files came back"

kill -KILL "$up_host_pid"
wait "$up_host_pid" 2>/dev/null || true
up_host_pid=""
# Its Lease is left behind, held for 15 s more: the restart takes it over at once, its holder's process being gone.
kn get lease lu-host-operator >/dev/null || fail "the killed daemon's Lease is not left behind"
in_pod "echo two > /www/gen/rewritten.txt && rm /www/gen/deleted.txt && echo new > /www/gen/new.txt &&
  echo 'the app' > /www/gen/both.txt"
echo "local edit" >"$project/src/gen/local.txt"
echo "the developer" >"$project/src/gen/both.txt"
mv "$work/up.log" "$work/up-before-kill.log"

start
wait_for grep -q "lease $ns/lu-host-operator taken over at once from .*: its process on this host is gone" "$work/up.log"
wait_for pod_holds /www/gen/local.txt "local edit"
wait_for local_holds gen/rewritten.txt two
gone_locally() { [ ! -e "$project/src/gen/deleted.txt" ]; }
wait_for gone_locally
wait_for local_holds gen/new.txt new
# The check of a pod synced into before has run too: it repaired nothing of the app's.
wait_for grep -q "verify (daemon start" "$work/up.log"
pod_holds /www/gen/rewritten.txt two || fail "the restart overwrote the app's rewrite in the pod"
in_pod "test ! -e /www/gen/deleted.txt" || fail "the restart brought back the file the app deleted in the pod"
pod_holds /www/gen/new.txt new || fail "the restart lost the file the app made in the pod"
local_holds gen/local.txt "local edit" || fail "the local edit was overwritten: $(cat "$project/src/gen/local.txt")"
grep -q "Sync back: 4 file(s) the container changed since both sides last agreed are left to come back" \
  "$work/up.log" || fail "the initial sync does not say which files it left alone"
echo "ok: after a SIGKILL, the app's three changes stayed in the pod and came back; the local edit went forward"

# The file changed on both sides while no daemon ran: a conflict, each side keeping its content.
conflict_in_cluster() {
  [ "$(kn get lu "$p" -o 'jsonpath={.status.syncBackConflictCount}')" = 1 ] &&
    [ "$(kn get lu "$p" -o 'jsonpath={.status.syncBackConflicts[0].path}')" = /www/gen/both.txt ] &&
    [ "$(kn get lu "$p" -o 'jsonpath={.status.syncBackConflicts[0].kind}')" = BothModified ]
}
wait_for conflict_in_cluster
# The CONFLICTS column of the LiveUpdate's row (columns are aligned; LAST SYNC is two words).
conflicts_column() {
  "$lu_host" get liveupdates --control-socket "$work/control.sock" |
    awk -v name="$p" 'NR == 1 { c = index($0, "CONFLICTS") } NR > 1 && $2 == name { split(substr($0, c), w); print w[1] }'
}
[ "$(conflicts_column)" = 1 ] ||
  fail "lu-host get does not show the conflict: $("$lu_host" get liveupdates --control-socket "$work/control.sock")"
pod_holds /www/gen/both.txt "the app" || fail "the conflict overwrote the app's side in the pod"
local_holds gen/both.txt "the developer" || fail "the conflict overwrote the developer's side"
echo "ok: a file changed on both sides while no daemon ran is a conflict, shown in the status and lu-host get"

# SIGTERM: a clean stop (the Lease released); what the app does meanwhile stays and comes back as well.
stop_up || fail "lu-host up did not stop cleanly on SIGTERM"
in_pod "echo three > /www/gen/rewritten.txt && echo made > /www/gen/after-term.txt"
mv "$work/up.log" "$work/up-before-term.log"
start
wait_for grep -q "verify (daemon start" "$work/up.log"
wait_for local_holds gen/rewritten.txt three
wait_for local_holds gen/after-term.txt made
pod_holds /www/gen/rewritten.txt three || fail "the restart after SIGTERM overwrote the app's rewrite in the pod"
pod_holds /www/gen/after-term.txt made || fail "the restart after SIGTERM lost the file the app made in the pod"
grep -q "taken over at once" "$work/up.log" && fail "a clean stop left its Lease to be taken over"
echo "ok: after a SIGTERM, the app's changes stayed in the pod and came back"
stop_up
echo "k8s sync back restart e2e: all checks passed"
