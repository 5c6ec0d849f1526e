# Sourced by the webhook's cluster tests (k8s_webhook_e2e.sh,
# k8s_webhook_inject*.sh) with k8s_dir set: skips (exit 77) without the
# cluster of ../shared/k8s, else starts it and sets KUBECONFIG, state,
# kubectl (its own binary), work (a scratch folder) and webhook_pid. With
# k8s_full=1 it starts the cluster with --full (controller-manager and
# scheduler: Deployments), and skips, saying why, where that cannot run.
if [ ! -x "$k8s_dir/cluster.sh" ]; then
  echo "SKIPPED: no cluster: $k8s_dir/cluster.sh not found"
  exit 77
fi
export KUBECONFIG
if [ "${k8s_full:-0}" = 1 ]; then
  if [ ! -e "$k8s_dir/bin/kube-controller-manager.xz" ] || [ ! -e "$k8s_dir/bin/kube-scheduler.xz" ]; then
    echo "SKIPPED: $k8s_dir has no kube-controller-manager or kube-scheduler: cannot start --full"
    exit 77
  fi
  k8s_start_err=$(mktemp)
  # A cluster running in minimal mode gets the two components added; start is idempotent.
  if ! KUBECONFIG=$("$k8s_dir/cluster.sh" start --full 2>"$k8s_start_err" | tail -1); then
    echo "SKIPPED: cluster.sh start --full failed: $(tail -1 "$k8s_start_err")"
    rm -f "$k8s_start_err"
    exit 77
  fi
  rm -f "$k8s_start_err"
else
  KUBECONFIG=$("$k8s_dir/cluster.sh" start 2>/dev/null | tail -1) || { echo "FAIL: cluster.sh start failed"; exit 1; }
fi
state=$(dirname "$KUBECONFIG")
kubectl() { "$state/bin/kubectl" "$@"; }
work=$(mktemp -d)
webhook_pid=""

# serve_injecting_webhook PORT IMAGE: the agent image IMAGE of
# deploy/agent/build-image.sh, made again only when $build's lu-agent is newer
# or the cluster lacks it; the webhook configurations installed with --mutate
# for https://127.0.0.1:PORT (certificates in $work/certs, the output in
# $work/install.out); `lu-host webhook --agent-image IMAGE` on PORT, its log
# in $work/webhook.log. Sets webhook_pid; returns once it answers. Needs
# lu_host, repo and build, and the caller's fail.
serve_injecting_webhook() {
  local port=$1 image=$2 stamp=$build/tests/webhook/agent-image.stamp
  if [ ! -e "$stamp" ] || [ "$build/bin/lu-agent" -nt "$stamp" ] ||
     ! ctr -a "$state/containerd/containerd.sock" -n k8s.io images ls -q | grep -qx "$image"; then
    "$repo/deploy/agent/build-image.sh" "$build" "$image" "$k8s_dir" >/dev/null || fail "deploy/agent/build-image.sh failed"
    touch "$stamp"
  fi
  "$lu_host" webhook install --url "https://127.0.0.1:$port/validate" --cert-dir "$work/certs" --mutate \
    >"$work/install.out" || fail "webhook install --mutate failed"
  "$lu_host" webhook --listen "127.0.0.1:$port" --tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key" \
    --plugin "$build/lib/libliveupdate.so" --agent-image "$image" >"$work/webhook.log" 2>&1 &
  webhook_pid=$!
  for _ in $(seq 1 200); do
    curl -sS --cacert "$work/certs/ca.crt" -o /dev/null "https://127.0.0.1:$port/healthz" 2>/dev/null && return 0
    kill -0 "$webhook_pid" 2>/dev/null || break
    sleep 0.05
  done
  fail "lu-host webhook does not answer on port $port"
}
