#!/usr/bin/env bash
# End to end on the real cluster: `lu-host up` on a copy of samples/k8s-hello
# finds the pod through KubernetesDiscovery and live-updates it through the
# API server's exec: the initial sync, an edit with its run step, and a pod
# deleted and created again (new pod, synced from scratch); describe and the
# status page say lu-agent was copied in.
# Usage: k8s_up_e2e.sh LU_HOST K8S_DIR REPO_ROOT   (exit 77 without K8S_DIR)
set -euo pipefail
lu_host=$1 k8s_dir=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
use_cluster "$k8s_dir"
kubectl() { "$state/bin/kubectl" -n lu-k8s-e2e "$@"; }

work=$(mktemp -d)
cleanup() {
  local status=$?
  stop_up || status=1
  kubectl delete pod k8s-hello --grace-period=0 --wait=false >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

wait_for_content() { wait_for_file_content "$1" "$2" kubectl exec k8s-hello -c web -- cat; }

"$state/bin/kubectl" create namespace lu-k8s-e2e >/dev/null 2>&1 || true
kubectl create serviceaccount default >/dev/null 2>&1 || true
kubectl delete pod k8s-hello --grace-period=0 --wait=true >/dev/null 2>&1 || true
# The sample with a port of its own, so that a sample run by hand is not disturbed.
mkdir -p "$work/sample"
cp -r "$repo/samples/k8s-hello/src" "$work/sample/"
# Without spec.watches, discovery looks in the namespace given with --namespace.
sed '/"watches": \[{"namespace": "default"}\],/d' "$repo/samples/k8s-hello/k8s-hello.json" >"$work/sample/k8s-hello.json"
grep -q '"watches"' "$work/sample/k8s-hello.json" && fail "could not drop spec.watches"
sed 's/127.0.0.1:8089/127.0.0.1:18089/' "$repo/samples/k8s-hello/pod.yaml" >"$work/pod.yaml"
kubectl apply -f "$work/pod.yaml" >/dev/null
kubectl wait --for=condition=Ready pod/k8s-hello --timeout=90s >/dev/null || fail "the pod did not become Ready"

start_up "$lu_host" "$work/sample" --namespace lu-k8s-e2e --control-socket "$work/control.sock" --debounce 20

wait_for_content /www/index.html "$(cat "$work/sample/src/index.html")"
echo "ok: initial sync"

printf '<h1>edited %s</h1>\n' "$$" >"$work/sample/src/index.html"
wait_for_content /www/index.html "<h1>edited $$</h1>"
wait_for_content /tmp/last-sync "synced $(wc -c <"$work/sample/src/index.html") bytes"
echo "ok: edit synced and the exec ran"
expect_agent "$lu_host" k8s-hello copied no
echo "ok: describe and /api/status say lu-agent was copied in, no restart"

kubectl delete pod k8s-hello --grace-period=0 --wait=true >/dev/null
kubectl apply -f "$work/pod.yaml" >/dev/null
kubectl wait --for=condition=Ready pod/k8s-hello --timeout=90s >/dev/null || fail "the new pod did not become Ready"
wait_for_content /www/index.html "<h1>edited $$</h1>"
echo "ok: re-created pod synced"

"$lu_host" get kd --control-socket "$work/control.sock" -o json | grep -q '"namespace": *"lu-k8s-e2e"' ||
  fail "lu-host get kd does not show the pod in lu-k8s-e2e"
stop_up
echo "k8s up e2e: all checks passed"
