#!/usr/bin/env bash
# End to end on the real cluster: three pods of one LiveUpdate through
# `lu-host up`; one pod's container is killed while its update (a large file
# and a run step) is in flight. It counts as not running, as one stopped
# before the update (C07), never as the LiveUpdate's failure (no
# UpdateFailed), and later changes still reach the two other pods (issue 33).
# The pods never restart (restartPolicy: Never), so the killed pod stays in
# the KubernetesDiscovery: a failure taken for the LiveUpdate's would hold
# the others for good (C11).
# Usage: k8s_replica_kill_e2e.sh LU_HOST K8S_DIR REPO_ROOT   (exit 77 without K8S_DIR)
set -euo pipefail
lu_host=$1 k8s_dir=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
use_cluster "$k8s_dir"
namespace=lu-k8s-kill
kubectl() { "$state/bin/kubectl" -n "$namespace" "$@"; }
pods=(lu-kill-1 lu-kill-2 lu-kill-3)
killed=${pods[1]}
healthy=("${pods[0]}" "${pods[2]}")

work=$(mktemp -d)
cleanup() {
  local status=$?
  stop_up || status=1
  kubectl delete pod "${pods[@]}" --grace-period=0 --wait=false >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

in_pod() { kubectl exec "$1" -c web -- cat "$2"; }
# shellcheck disable=SC2016  # $1 is expanded by the pod's sh
exists_in_pod() { kubectl exec "$1" -c web -- sh -c 'test -e "$1" && echo there' sh "$2"; }
# wait_in POD PATH EXPECTED: 30 s at most (each look is a kubectl exec, too slow for 300 looks).
wait_in() {
  local end=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$end" ]; do
    [ "$(in_pod "$1" "$2" 2>/dev/null || true)" = "$3" ] && return 0
    sleep 0.1
  done
  fail "$2 in $1 never became: $3 (is: $(in_pod "$1" "$2" 2>&1 || true))"
}

status_of() { "$lu_host" get liveupdates -o json --control-socket "$work/control.sock"; }
# wait_for_status PYTHON_CONDITION: waits (30 s at most) until the LiveUpdate's status satisfies it
# (s: the status; c: its containers by pod name).
wait_for_status() {
  for _ in $(seq 1 300); do
    if status_of 2>/dev/null | python3 -c "
import json, sys
items = json.load(sys.stdin)
items = items.get('items', items) if isinstance(items, dict) else items
s = next((i.get('status', {}) for i in items if i.get('metadata', {}).get('name') == 'kill'), {})
c = {x.get('podName'): x for x in s.get('containers', [])}
sys.exit(0 if ($1) else 1)"; then return 0; fi
    sleep 0.1
  done
  fail "the status never satisfied: $1 (is: $(status_of 2>&1 || true))"
}

"$state/bin/kubectl" create namespace "$namespace" >/dev/null 2>&1 || true
kubectl create serviceaccount default >/dev/null 2>&1 || true
kubectl delete pod "${pods[@]}" --grace-period=0 --wait=true >/dev/null 2>&1 || true
for pod in "${pods[@]}"; do
  # The main process ends on SIGTERM, which a test sends it with `kill 1`.
  cat >"$work/$pod.yaml" <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $pod, labels: {app: lu-kill}}
spec:
  nodeName: "127.0.0.1"
  hostNetwork: true
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 1
  restartPolicy: Never
  containers:
  - name: web
    image: localhost/busybox:local
    imagePullPolicy: Never
    command: ["/bin/sh", "-c", "trap 'exit 3' TERM; while :; do sleep 0.1; done"]
YAML
  kubectl apply -f "$work/$pod.yaml" >/dev/null
done
for pod in "${pods[@]}"; do
  kubectl wait --for=condition=Ready "pod/$pod" --timeout=90s >/dev/null || fail "pod $pod did not become Ready"
done

mkdir -p "$work/src"
echo initial >"$work/src/index.html"
# The run step waits while /hold exists.
cat >"$work/objects.json" <<JSON
{"kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "src"}, "spec": {"watchedPaths": ["src"]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "KubernetesDiscovery", "metadata": {"name": "kill"},
  "spec": {"watches": [{"namespace": "$namespace"}], "extraSelectors": [{"matchLabels": {"app": "lu-kill"}}]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "kill", "annotations": {"tilt.dev/resource": "kill"}},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}],
           "selector": {"kubernetes": {"discoveryName": "kill", "containerName": "web"}},
           "syncs": [{"localPath": "src", "containerPath": "/app"}], "initialSync": {},
           "execs": [{"args": ["sh", "-c", "touch /tmp/started; while [ -e /hold ]; do sleep 0.05; done; cp /app/index.html /tmp/ran"]}]}}]}
JSON

start_up "$lu_host" "$work/objects.json" --namespace "$namespace" --control-socket "$work/control.sock" --debounce 20
for pod in "${pods[@]}"; do wait_in "$pod" /tmp/ran initial; done
wait_for_status "'failed' not in s and len(c) == 3 and not any(x.get('waiting') for x in c.values())"
echo "ok: initial sync reached the three pods"

kubectl exec "$killed" -c web -- sh -c 'rm -f /tmp/started; touch /hold'
# A large update: 32 MiB beside the edit.
head -c $((32 << 20)) /dev/urandom >"$work/src/large.bin"
echo killed >"$work/src/index.html"
wait_for_file_content /tmp/started there exists_in_pod "$killed"  # its run step is in flight
kubectl exec "$killed" -c web -- kill 1 || true  # its session may end with the container
for pod in "${healthy[@]}"; do wait_in "$pod" /tmp/ran killed; done
for _ in $(seq 1 100); do grep -q "is not running" "$work/up.log" && break; sleep 0.1; done
grep -q "$killed.* has \(terminated\|ended\)" "$work/up.log" ||
  fail "the log does not say the killed pod's container is not running"
wait_for_status "'failed' not in s and not any(x.get('waiting', {}).get('reason') == 'UpdateFailed' for x in c.values())"
echo "ok: the container killed mid-update counts as not running, no UpdateFailed"

echo later >"$work/src/index.html"
for pod in "${healthy[@]}"; do wait_in "$pod" /tmp/ran later; done
wait_for_status "'failed' not in s and all(not c[p].get('waiting') for p in ['${healthy[0]}', '${healthy[1]}'])"
if grep -q "UpdateFailed" "$work/up.log"; then fail "the killed pod was taken for the LiveUpdate's failure"; fi
echo "ok: later changes reach the two other pods"

stop_up
echo "k8s replica kill e2e: all checks passed"
