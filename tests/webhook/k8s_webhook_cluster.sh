# Sourced by the webhook's cluster tests (k8s_webhook_e2e.sh,
# k8s_webhook_inject.sh) with k8s_dir set: skips (exit 77) without the
# cluster of ../shared/k8s, else starts it and sets KUBECONFIG, state,
# kubectl (its own binary), work (a scratch folder) and webhook_pid.
if [ ! -x "$k8s_dir/cluster.sh" ]; then
  echo "SKIPPED: no cluster: $k8s_dir/cluster.sh not found"
  exit 77
fi
export KUBECONFIG
KUBECONFIG=$("$k8s_dir/cluster.sh" start 2>/dev/null | tail -1) || { echo "FAIL: cluster.sh start failed"; exit 1; }
state=$(dirname "$KUBECONFIG")
kubectl() { "$state/bin/kubectl" "$@"; }
work=$(mktemp -d)
webhook_pid=""
