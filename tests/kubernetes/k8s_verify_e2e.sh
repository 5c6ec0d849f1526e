#!/usr/bin/env bash
# `lu-host verify` on a pod (README, "Verify and resync"): the kubernetes
# updater digests the pod through lu-agent (liveupdate.digest/1), so a file
# changed, one deleted and one made in the pod behind the daemon's back are
# told (different, missing, unsynced) and `--fix` repairs the first two and
# leaves the app's own file; a new agent session makes the daemon repair
# the pod by itself. With the agent off (its "agent" setting false)
# the updater cannot digest, and verify says so.
# Usage: k8s_verify_e2e.sh LU_HOST K8S_DIR REPO_ROOT   (exit 77 without K8S_DIR)
set -euo pipefail
lu_host=$1 k8s_dir=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
# shellcheck source=k8s_objects_lib.sh
. "$repo/tests/kubernetes/k8s_objects_lib.sh"
use_cluster "$k8s_dir"
ns=lu-verify-test-$$
p=vf$$

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
# verify ARG...: `lu-host verify ARG...` against the daemon; its output in $said, its exit code in $verified.
said="" verified=0
verify() {
  verified=0
  said=$("$lu_host" verify liveupdate "$p" --control-socket "$work/control.sock" "$@" 2>&1) || verified=$?
}
expect_said() { grep -qF -- "$1" <<<"$said" || fail "verify did not say '$1': $said"; }

install_crds "$lu_host"
k create namespace "$ns" >/dev/null
kn create serviceaccount default >/dev/null 2>&1 || true
web_and_live_update "$p" "$ns" "{localPath: src, containerPath: /www}" | kn apply -f - >/dev/null
project=$work/project
mkdir -p "$project/src/sub"
printf alpha >"$project/src/a.txt"
printf beta >"$project/src/sub/b.txt"
kn wait --for=condition=Ready pod/web --timeout=90s >/dev/null || fail "the pod did not become Ready"

start_up "$lu_host" --from-cluster --namespace "$ns" --no-web --control-socket "$work/control.sock" --debounce 20 \
  "$project"
wait_for_file_content /www/sub/b.txt beta kn exec web -c web -- cat
verify
[ "$verified" -eq 0 ] || fail "verify of a pod in sync exited $verified: $said"
expect_said ": in sync"

in_pod "echo changed > /www/a.txt; rm /www/sub/b.txt; echo extra > /www/extra.txt"
verify
[ "$verified" -eq 1 ] || fail "verify of a pod changed behind our back exited $verified: $said"
expect_said "different /www/a.txt"
expect_said "missing   /www/sub/b.txt"
expect_said "unsynced  /www/extra.txt"
[ "$(kn exec web -c web -- cat /www/a.txt)" = changed ] || fail "verify without --fix changed the pod"
echo "ok: verify told what changed in the pod"

verify --fix
[ "$verified" -eq 0 ] || fail "verify --fix exited $verified: $said"
expect_said "fixed, in sync now"
[ "$(kn exec web -c web -- cat /www/a.txt)" = alpha ] || fail "--fix did not repair /www/a.txt"
[ "$(kn exec web -c web -- cat /www/sub/b.txt)" = beta ] || fail "--fix did not bring back /www/sub/b.txt"
[ "$(kn exec web -c web -- cat /www/extra.txt)" = extra ] || fail "--fix deleted the app's own /www/extra.txt"
echo "ok: verify --fix repaired the pod and left the app's own file"

# A new agent session (the old one's agent killed) makes the daemon check the pod by itself and repair it.
in_pod 'for p in /proc/[0-9]*; do case $(readlink "$p/exe") in /.lu-agent/*) kill -9 "${p#/proc/}";; esac; done'
in_pod "echo lost > /www/sub/b.txt"
printf 'alpha 2' >"$project/src/a.txt"
wait_for_file_content /www/a.txt "alpha 2" kn exec web -c web -- cat
wait_for_file_content /www/sub/b.txt beta kn exec web -c web -- cat
grep -q "the kubernetes updater reconnected to a container" "$work/up.log" ||
  fail "the daemon did not say the updater reconnected"
[ "$(kn exec web -c web -- cat /www/extra.txt)" = extra ] || fail "the repair deleted the app's own /www/extra.txt"
echo "ok: after a new agent session the daemon repaired the pod by itself"
stop_up

# Without the agent the updater cannot digest: verify says so, naming the updater and the extension.
cat >"$work/updaters.json" <<'JSON'
{"updaters": {"kubernetes": {"plugin": "kubernetes", "settings": {"agent": false}}}}
JSON
start_up "$lu_host" --from-cluster --namespace "$ns" --no-web --control-socket "$work/control.sock" --debounce 20 \
  --config "$work/updaters.json" "$project"
for _ in $(seq 1 300); do
  verify
  grep -q "cannot digest" <<<"$said" && break
  sleep 0.1
done
[ "$verified" -eq 1 ] || fail "verify without the agent exited $verified: $said"
expect_said "the kubernetes updater (kubernetes) cannot digest containers"
echo "ok: without the agent, verify says the updater cannot digest"
stop_up
echo "k8s verify e2e: all checks passed"
