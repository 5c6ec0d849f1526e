#!/usr/bin/env bash
# Pod creation -> Ready with lu-agent injected at admission (the real webhook,
# --agent-image, a labelled namespace) against the same pod without injection
# (an unlabelled namespace), same image, same run, rounds interleaved; bar:
# injected/plain <= 1.3 (issue 36). To say where the time goes, two more
# pods: the same without the webhook but with a no-op init container
# (busybox true: the cost of an init container as such), and the webhook's
# init container without its CPU limit (the cost of the throttling). And
# the agent without any extra container: lu-agent in a ConfigMap mounted at
# its injected path (the kubelet mounts volumes before any container starts),
# checked to run from that mount.
# Times are `kubectl create` until `kubectl wait --for=condition=Ready`
# returns (kubectl's own start is in both sides alike); medians.
# Usage: inject_ready_bench.sh LU_HOST K8S_DIR BUILD_DIR [ROUNDS]   (exit 77 without K8S_DIR)
# LU_READY_BENCH_NS: the namespaces' prefix (default lu-ready-bench), for a cluster others use too.
set -euo pipefail
lu_host=$1 k8s_dir=$2 build=$3 rounds=${4:-10}
repo=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -x "$k8s_dir/cluster.sh" ]; then
  echo "SKIPPED: no cluster: $k8s_dir/cluster.sh not found"
  exit 77
fi
KUBECONFIG=$("$k8s_dir/cluster.sh" start 2>/dev/null | tail -1)
export KUBECONFIG
state=$(dirname "$KUBECONFIG")
k() { "$state/bin/kubectl" "$@"; }
ns_prefix=${LU_READY_BENCH_NS:-lu-ready-bench}
on=$ns_prefix-on off=$ns_prefix-off
agent_configmap=lu-ready-bench-agent
image=localhost/lu-agent:dev
port=19451
work=$(mktemp -d)
webhook_pid=""
cleanup() {
  [ -n "$webhook_pid" ] && { kill "$webhook_pid" 2>/dev/null; wait "$webhook_pid" 2>/dev/null; }
  "$lu_host" webhook uninstall >/dev/null 2>&1 || true
  # The namespaces stay: without a controller-manager they would never finish terminating.
  for ns in "$on" "$off"; do k -n "$ns" delete pods -l lu-ready-bench --grace-period=0 --wait=false >/dev/null 2>&1; done
  k -n "$off" delete configmap $agent_configmap --wait=false >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

for ns in "$on" "$off"; do
  k create namespace "$ns" >/dev/null 2>&1 || true
  k -n "$ns" create serviceaccount default >/dev/null 2>&1 || true
done
k label namespace "$on" liveupdate.dev/inject=enabled --overwrite >/dev/null
# A ConfigMap holds at most 1 MiB: lu-agent must fit (agent/CMakeLists.txt).
k -n "$off" create configmap $agent_configmap --from-file="lu-agent=$build/bin/lu-agent" --dry-run=client -o yaml |
  k -n "$off" apply --server-side --force-conflicts -f - >/dev/null
"$repo/deploy/agent/build-image.sh" "$build" "$image" "$k8s_dir" >/dev/null
"$lu_host" webhook install --url "https://127.0.0.1:$port/validate" --cert-dir "$work/certs" --mutate >/dev/null
"$lu_host" webhook --listen "127.0.0.1:$port" --tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key" \
  --plugin "$build/lib/libliveupdate.so" --agent-image "$image" >"$work/webhook.log" 2>&1 &
webhook_pid=$!
for _ in $(seq 1 200); do
  curl -sS --cacert "$work/certs/ca.crt" -o /dev/null "https://127.0.0.1:$port/healthz" 2>/dev/null && break
  sleep 0.05
done

# pod NAME [INIT] [AGENT_CONFIGMAP]: the same busybox pod; INIT: a YAML list of
# init containers; AGENT_CONFIGMAP: lu-agent from that ConfigMap at its injected path.
pod() {
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: %s, labels: {lu-ready-bench: "1"}}\nspec:\n' "$1"
  printf '  nodeName: "127.0.0.1"\n  hostNetwork: true\n  automountServiceAccountToken: false\n'
  printf '  enableServiceLinks: false\n  terminationGracePeriodSeconds: 0\n'
  [ -n "${2:-}" ] && printf '  initContainers:\n%s\n' "$2"
  printf '  containers:\n  - name: app\n    image: localhost/busybox:local\n    imagePullPolicy: Never\n'
  printf '    command: [/bin/sh, -c, "trap \\"exit 0\\" TERM; while true; do sleep 1; done"]\n'
  [ -z "${3:-}" ] && return
  printf '    volumeMounts: [{name: liveupdate-agent, mountPath: /.lu-agent/injected, readOnly: true}]\n'
  printf '  volumes:\n  - name: liveupdate-agent\n'
  printf '    configMap: {name: %s, defaultMode: 0555, optional: true}\n' "$3"
}
noop='  - {name: noop, image: localhost/busybox:local, imagePullPolicy: Never, command: [/bin/true]}'
# The webhook's init container as it patches it, but for the CPU limit (and the mount's volume).
unlimited="  - {name: install, image: $image, imagePullPolicy: IfNotPresent, command: [cp, /lu-agent, /dev/null],
     securityContext: {runAsNonRoot: true, runAsUser: 65534, allowPrivilegeEscalation: false}}"

# ready NS NAME [INIT] [AGENT_CONFIGMAP]: milliseconds from create to Ready.
ready() {
  local t0 ms
  t0=$(date +%s%N)
  pod "$2" "${3:-}" "${4:-}" | k -n "$1" create -f - >/dev/null
  k -n "$1" wait --for=condition=Ready "pod/$2" --timeout=120s >/dev/null
  ms=$((($(date +%s%N) - t0) / 1000000))
  if [ -n "${4:-}" ] && ! k -n "$1" exec "$2" -- /.lu-agent/injected/lu-agent --help >/dev/null; then
    echo "lu-agent from ConfigMap $4 does not run in pod $2" >&2
    exit 1
  fi
  k -n "$1" delete pod "$2" --grace-period=0 --wait=true >/dev/null 2>&1
  echo "$ms"
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

: >"$work/plain" && : >"$work/injected" && : >"$work/noop" && : >"$work/unlimited" && : >"$work/configmap"
for i in $(seq 1 "$rounds"); do
  ready "$off" "plain-$i" >>"$work/plain"
  ready "$on" "injected-$i" >>"$work/injected"
  ready "$off" "noop-$i" "$noop" >>"$work/noop"
  ready "$off" "unlimited-$i" "$unlimited" >>"$work/unlimited"
  ready "$off" "configmap-$i" "" $agent_configmap >>"$work/configmap"
done
k -n "$on" get pod -l lu-ready-bench -o name >/dev/null  # the cluster still answers
plain=$(median <"$work/plain") injected=$(median <"$work/injected")
noop=$(median <"$work/noop") unlimited=$(median <"$work/unlimited") mounted=$(median <"$work/configmap")
printf 'pod created -> Ready, median of %s rounds (ms):\n' "$rounds"
printf '  %-54s %8s\n' "without injection (reference)" "$plain" \
  "injected by the webhook" "$injected" \
  "no webhook, a no-op busybox init container" "$noop" \
  "no webhook, the agent's init container, no CPU limit" "$unlimited" \
  "no webhook, lu-agent mounted from a ConfigMap" "$mounted"
awk -v i="$injected" -v p="$plain" -v n="$noop" -v c="$mounted" 'BEGIN {
  printf "injected / plain: %.2f (bar <= 1.3)\n", i / p
  printf "no-op init container / plain: %.2f (what any init container costs here)\n", n / p
  printf "agent from a ConfigMap / plain: %.2f\n", c / p }'
