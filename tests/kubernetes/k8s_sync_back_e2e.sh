#!/usr/bin/env bash
# Sync back on the real cluster through lu-agent over the API server's exec
# (docs/sync-back.md): a LiveUpdate from the cluster (`lu-host up
# --from-cluster`) asking for syncBack is refused with ObjectRefused and
# brings nothing back without --allow-sync-back; with it, a file written in
# the pod comes back with its bytes, a symlink to /etc does not, and a
# delete in the pod deletes the local copy.
# Usage: k8s_sync_back_e2e.sh LU_HOST K8S_DIR REPO_ROOT   (exit 77 without K8S_DIR)
set -euo pipefail
lu_host=$1 k8s_dir=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
# shellcheck source=k8s_sync_back_lib.sh
. "$repo/tests/kubernetes/k8s_sync_back_lib.sh"
use_cluster "$k8s_dir"
ns=lu-sync-back-test-$$
p=sb$$

work=$(mktemp -d)
cleanup() {
  local status=$?
  stop_up || status=1
  delete_namespace "$ns"
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
wait_for_content() { wait_for_file_content "$1" "$2" kn exec web -c web -- cat; }

install_crds "$lu_host"
k create namespace "$ns" >/dev/null
kn create serviceaccount default >/dev/null 2>&1 || true
web_and_live_update "$p" "$ns" "{localPath: src, containerPath: /www, syncBack: [gen]}" | kn apply -f - >/dev/null
project=$work/project
mkdir -p "$project/src"
echo "<h1>first $$</h1>" >"$project/src/index.html"
kn wait --for=condition=Ready pod/web --timeout=90s >/dev/null || fail "the pod did not become Ready"

# Without --allow-sync-back: refused, said in the status, nothing comes back.
start_up "$lu_host" --from-cluster --namespace "$ns" --no-web --control-socket "$work/control.sock" --debounce 20 \
  "$project"
refused() { [ "$(jpath liveupdate "$p" '{.status.failed.reason}')" = ObjectRefused ]; }
wait_for refused
jpath liveupdate "$p" '{.status.failed.message}' | grep -q 'spec.syncs\[0\].syncBack' ||
  fail "the refusal does not name syncBack: $(jpath liveupdate "$p" '{.status.failed.message}')"
in_pod_of web "mkdir -p /www/gen && echo early > /www/gen/early.txt"
sleep 2
[ ! -e "$project/src/gen/early.txt" ] || fail "a refused LiveUpdate brought a file back"
stop_up
echo "ok: without --allow-sync-back, ObjectRefused and nothing comes back"

start_up "$lu_host" --from-cluster --allow-sync-back --namespace "$ns" --no-web --control-socket "$work/control.sock" \
  --debounce 20 "$project"
wait_for_content /www/index.html "<h1>first $$</h1>"
wait_for grep -q "Sync back from container .*: started" "$work/up.log"
in_pod_of web "printf 'lock %s' $$ > /www/gen/lock.txt && chmod 640 /www/gen/lock.txt && ln -s /etc/passwd /www/gen/passwd"
wait_for test -f "$project/src/gen/lock.txt"
[ "$(cat "$project/src/gen/lock.txt")" = "lock $$" ] || fail "lock.txt came back as: $(cat "$project/src/gen/lock.txt")"
[ "$(stat -c %a "$project/src/gen/lock.txt")" = 640 ] || fail "lock.txt's mode: $(stat -c %a "$project/src/gen/lock.txt")"
[ ! -e "$project/src/gen/passwd" ] && [ ! -L "$project/src/gen/passwd" ] || fail "a symlink to /etc came back"
[ -z "$(jpath liveupdate "$p" '{.status.failed.reason}')" ] || fail "still failed: $(jpath liveupdate "$p" '{.status.failed}')"
echo "ok: with --allow-sync-back, a file written in the pod came back, a symlink to /etc did not"

in_pod_of web "rm /www/gen/lock.txt"
gone() { [ ! -e "$project/src/gen/lock.txt" ]; }
wait_for gone
echo "ok: a delete in the pod deleted the local copy"
stop_up
echo "k8s sync back e2e: all checks passed"
