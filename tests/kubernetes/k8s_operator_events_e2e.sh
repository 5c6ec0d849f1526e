#!/usr/bin/env bash
# End to end on the real cluster: the Events of `lu-host up --from-cluster`.
# A LiveUpdate whose run step fails 20 times in a row makes one Warning Event
# whose series counts the 20, not 20 Events; when it succeeds again, a Normal
# Recovered Event; both show in `kubectl get events` and `kubectl describe
# lu`. A refused LiveUpdate gets a Warning ObjectRefused. A LiveUpdate that
# restarts a supervised process (lu-agent supervise) in place gets a Normal
# Restarted. `lu-host rbac` grants creating and patching Events.
# Usage: k8s_operator_events_e2e.sh LU_HOST K8S_DIR REPO_ROOT   (exit 77 without K8S_DIR)
set -euo pipefail
lu_host=$1 k8s_dir=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
# shellcheck source=k8s_objects_lib.sh
. "$repo/tests/kubernetes/k8s_objects_lib.sh"
use_cluster "$k8s_dir"
ns=lu-events-test-$$
p=ev$$

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
# wait_for CMD...: until CMD succeeds (60 s at most, however slow CMD is).
wait_for() {
  local end=$((SECONDS + 60))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$end" ] || fail "never true: $*"
    sleep 0.1
  done
}
# The namespace's Events as events.k8s.io/v1 gives them, one line each: type reason regarding count note.
events() {
  kn get events.events.k8s.io -o json | python3 -c '
import json, sys
for e in json.load(sys.stdin)["items"]:
    count = (e.get("series") or {}).get("count", 1)
    print(e["type"], e["reason"], e["regarding"]["name"], count, e.get("note", ""), sep="\t")'
}

install_crds "$lu_host"
k create namespace "$ns" >/dev/null
kn create serviceaccount default >/dev/null 2>&1 || true  # minimal mode makes none
busybox_pod web "$p" | kn apply -f - >/dev/null
project=$work/project
mkdir -p "$project/src"
echo "ok 0" >"$project/src/state.txt"
# A pod whose process runs under lu-agent supervise (as `lu-host webhook
# --mutate` wraps it; here by hand, this build's lu-agent mounted from the
# host): a restart starts that process again in place. It writes its PID.
kn apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: sup, labels: {app: $p-sup}}
spec:
  nodeName: "127.0.0.1"
  hostNetwork: true
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 1
  volumes: [{name: lu-bin, hostPath: {path: "$(dirname "$(realpath "$lu_host")")", type: Directory}}]
  containers:
  - name: web
    image: localhost/busybox:local
    imagePullPolicy: Never
    volumeMounts: [{name: lu-bin, mountPath: /lu-bin, readOnly: true}]
    command: [/lu-bin/lu-agent, supervise, --, /bin/sh, -c,
              "echo \$\$\$\$ > /tmp/app.pid; trap 'exit 0' TERM; while true; do sleep 1; done"]
YAML
kn wait --for=condition=Ready pod/web pod/sup --timeout=90s >/dev/null || fail "the pods did not become Ready"

start_up "$lu_host" --from-cluster --namespace "$ns" --no-web --control-socket "$work/control.sock" --debounce 20 \
  --state-dir "$work/state" "$project"
wait_for grep -q "up: operator of namespace $ns" "$work/up.log"
# The run step fails while the synced file says "fail".
live_update_objects "$p" "$ns" "{localPath: src, containerPath: /www}" \
  'execs: [{args: ["sh", "-c", "! grep -q fail /www/state.txt"]}]' | kn apply -f - >/dev/null
wait_for_content /www/state.txt "ok 0"

exec_error() { [ -n "$(kn get liveupdate "$p" -o 'jsonpath={.status.containers[0].lastExecError}')" ]; }
failures() { [ "$(grep -c "Failed to update container" "$work/up.log")" -ge "$1" ]; }
# Saved whole: a write in place may be two updates, the first of an empty
# file that passes the run step, a recovery between two failures.
for i in $(seq 1 20); do
  save_file "$project/src/state.txt" "fail $i"
  wait_for failures "$i"  # one update at a time: each one a failure of its own
done
wait_for exec_error
exec_events() { events | awk -F'\t' -v lu="$p" '$1 == "Warning" && $2 == "ExecError" && $3 == lu'; }
counted() { [ "$(exec_events | cut -f4 | sort -n | tail -1)" -ge 20 ] 2>/dev/null; }
wait_for counted
[ "$(exec_events | wc -l)" = 1 ] || fail "20 failures made $(exec_events | wc -l) Events: $(events)"
echo "ok: 20 failures are one Warning Event counted $(exec_events | cut -f4): $(exec_events | cut -f5)"

save_file "$project/src/state.txt" "ok 1"
wait_for_content /www/state.txt "ok 1"
recovered() { events | awk -F'\t' -v lu="$p" '$1 == "Normal" && $2 == "Recovered" && $3 == lu' | grep -q .; }
wait_for recovered
[ "$(events | awk -F'\t' -v lu="$p" '$3 == lu' | wc -l)" = 2 ] || fail "not two Events: $(events)"
kn get events >"$work/get-events.txt"
grep -q "Warning  *ExecError  *liveupdate/$p " "$work/get-events.txt" &&
  grep -q "Normal  *Recovered  *liveupdate/$p " "$work/get-events.txt" ||
  fail "kubectl get events: $(cat "$work/get-events.txt")"
kn describe liveupdate "$p" >"$work/describe.txt"
grep -q "Warning  *ExecError .*lu-host" "$work/describe.txt" && grep -q "Normal  *Recovered .*lu-host" "$work/describe.txt" ||
  fail "kubectl describe lu: $(sed -n '/^Events:/,$p' "$work/describe.txt")"
echo "ok: recovery is a Normal Event; kubectl get events and describe show both:"
sed -n '/^Events:/,$p' "$work/describe.txt"

kn apply -f - >/dev/null <<YAML
apiVersion: tilt.dev/v1alpha1
kind: LiveUpdate
metadata: {name: $p-out}
spec:
  basePath: ".."
  sources: [{fileWatch: $p-src}]
  selector: {kubernetes: {discoveryName: $p, containerName: web}}
  syncs: [{localPath: src, containerPath: /out}]
YAML
refused() { events | awk -F'\t' -v lu="$p-out" '$1 == "Warning" && $2 == "ObjectRefused" && $3 == lu' | grep -q "project folder"; }
wait_for refused
echo "ok: a refused LiveUpdate has a Warning ObjectRefused Event"

app_pid() { kn exec sup -c web -- cat /tmp/app.pid; }
pid_before=$(app_pid)
[ -n "$pid_before" ] || fail "the supervised process wrote no PID"
kn apply -f - >/dev/null <<YAML
apiVersion: tilt.dev/v1alpha1
kind: KubernetesDiscovery
metadata: {name: $p-sup}
spec:
  watches: [{namespace: $ns}]
  extraSelectors: [{matchLabels: {app: $p-sup}}]
---
apiVersion: tilt.dev/v1alpha1
kind: LiveUpdate
metadata: {name: $p-restart}
spec:
  basePath: "."
  sources: [{fileWatch: $p-src}]
  selector: {kubernetes: {discoveryName: $p-sup, containerName: web}}
  syncs: [{localPath: src, containerPath: /www}]
  restart: always
YAML
restarted_events() { events | awk -F'\t' -v lu="$p-restart" '$1 == "Normal" && $2 == "Restarted" && $3 == lu'; }
restarted() { restarted_events | grep -q "restarted container web of pod sup"; }
# A save updates and restarts once the operator watches the LiveUpdate and
# has found the pod: saved again every 2 s until then.
end=$((SECONDS + 60))
until restarted; do
  [ "$SECONDS" -lt "$end" ] || fail "no Restarted Event: $(events)"
  echo "restart $SECONDS" >"$project/src/restart.txt"
  sleep 2
done
pid_now() { [ -n "$(app_pid 2>/dev/null)" ] && [ "$(app_pid)" != "$pid_before" ]; }
wait_for pid_now
kn describe liveupdate "$p-restart" | grep -q "Normal  *Restarted .*lu-host" ||
  fail "kubectl describe lu $p-restart shows no Restarted Event: $(kn describe liveupdate "$p-restart" | sed -n '/^Events:/,$p')"
echo "ok: a restart in place (pid $pid_before, now $(app_pid)) is a Normal Restarted Event: $(restarted_events | cut -f5)"
stop_up

"$lu_host" rbac --namespace "$ns" --user "$p-user" | k apply -f - >/dev/null
can() { [ "$(k auth can-i "$@" --as "$p-user" 2>/dev/null || true)" = yes ]; }
can create events.events.k8s.io -n "$ns" && can patch events.events.k8s.io -n "$ns" ||
  fail "lu-host rbac does not grant creating and patching Events"
! can delete events.events.k8s.io -n "$ns" || fail "lu-host rbac grants deleting Events"
echo "ok: lu-host rbac grants create and patch on Events"
echo "k8s operator events e2e: all checks passed"
