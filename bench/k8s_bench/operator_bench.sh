#!/usr/bin/env bash
# `lu-host up --from-cluster` against the same objects from a file, same pod,
# same agent, same run: (1) save -> pod, the time from a file written to the
# daemon's "Container ... updated!" line for it (one save at a time, SAVES
# of them in each mode; ratio operator/file, bar <= 1.2); (2) the status
# writes the operator made for those saves (every resourceVersion of the
# LiveUpdate, counted by a kubectl watch), per 100 saves; (3) operator start
# to first sync, and to the last, with 100 LiveUpdates in the namespace.
# Usage: operator_bench.sh LU_HOST K8S_DIR [SAVES]   (exit 77 without K8S_DIR)
set -euo pipefail
lu_host=$1 k8s_dir=$2 saves=${3:-100}
if [ ! -x "$k8s_dir/cluster.sh" ]; then
  echo "SKIPPED: no cluster: $k8s_dir/cluster.sh not found"
  exit 77
fi
KUBECONFIG=$("$k8s_dir/cluster.sh" start 2>/dev/null | tail -1)
export KUBECONFIG
state=$(dirname "$KUBECONFIG")
ns=lu-operator-bench-$$
k() { "$state/bin/kubectl" "$@"; }
kn() { "$state/bin/kubectl" -n "$ns" "$@"; }
work=$(mktemp -d)
project=$work/project
up_pid="" watch_pid=""

stop_up() {
  [ -n "$up_pid" ] || return 0
  kill "$up_pid" 2>/dev/null || true
  wait "$up_pid" 2>/dev/null || true
  up_pid=""
}
cleanup() {
  stop_up
  [ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null || true
  kn delete liveupdates,filewatches,kubernetesdiscoverys --all --wait=false >/dev/null 2>&1 || true
  kn delete pods,leases,configmaps,serviceaccounts --all --grace-period=0 --force >/dev/null 2>&1 || true
  k delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
  k get namespace "$ns" -o json 2>/dev/null | sed 's/"kubernetes"//' |
    k replace --raw "/api/v1/namespaces/$ns/finalize" -f - >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  tail -30 "$work/up.log" >&2 || true
  exit 1
}

# Seconds of the day (UTC), now and at the start of a log line.
now_s() { date -u +%H:%M:%S.%N | awk -F: '{printf "%.6f\n", $1 * 3600 + $2 * 60 + $3}'; }
line_s() { awk '{split(substr($1, 12), t, ":"); printf "%.6f\n", t[1] * 3600 + t[2] * 60 + t[3]}'; }
updated() { grep -c "\[$1\] .*updated!" "$work/up.log" || true; }
wait_up() {
  for _ in $(seq 1 600); do grep -q "up: watching .* control socket" "$work/up.log" && return 0; sleep 0.05; done
  fail "lu-host up did not start"
}
# MS_FILE -> "p50 p90" in ms
stats() { sort -n "$1" | awk '{a[NR] = $1} END {printf "%.1f %.1f\n", a[int((NR + 1) / 2)], a[int(NR * 0.9 + 0.5)]}'; }

# save_to_pod LIVE_UPDATE OUT_FILE: SAVES saves, one at a time, each timed to its sync.
save_to_pod() {
  local lu=$1 out=$2 before t0
  : >"$out"
  for i in $(seq 1 "$saves"); do
    before=$(updated "$lu")
    t0=$(now_s)
    echo "save $i $$" >"$project/src/saved.txt"
    for _ in $(seq 1 2000); do [ "$(updated "$lu")" -gt "$before" ] && break; sleep 0.005; done
    [ "$(updated "$lu")" -gt "$before" ] || fail "save $i never synced"
    echo "$(grep "\[$lu\] .*updated!" "$work/up.log" | tail -1 | line_s) $t0" | awk '{printf "%.1f\n", ($1 - $2) * 1000}' >>"$out"
  done
  [ "$(kn exec web -c web -- cat /bench/saved.txt)" = "save $saves $$" ] || fail "the last save is not in the pod"
}

mkdir -p "$project/src"
echo "first" >"$project/src/saved.txt"
"$lu_host" crds | k apply -f - >/dev/null
k wait --for=condition=Established crd -l app.kubernetes.io/managed-by=lu-host --timeout=30s >/dev/null
k create namespace "$ns" >/dev/null
kn create serviceaccount default >/dev/null 2>&1 || true
kn apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: bench}}
spec:
  nodeName: "127.0.0.1"
  hostNetwork: true
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 1
  containers:
  - {name: web, image: localhost/busybox:local, imagePullPolicy: Never,
     command: ["/bin/sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]}
YAML
kn wait --for=condition=Ready pod/web --timeout=90s >/dev/null || fail "the pod did not become Ready"

# objects BASE_PATH WATCHED_PATH LIVE_UPDATE...: the FileWatch, the discovery and LiveUpdates syncing src.
objects() {
  local base=$1 watched=$2; shift 2
  cat <<YAML
apiVersion: tilt.dev/v1alpha1
kind: FileWatch
metadata: {name: src}
spec: {watchedPaths: ["$watched"]}
---
apiVersion: tilt.dev/v1alpha1
kind: KubernetesDiscovery
metadata: {name: web}
spec:
  watches: [{namespace: $ns}]
  extraSelectors: [{matchLabels: {app: bench}}]
YAML
  for lu in "$@"; do
    cat <<YAML
---
apiVersion: tilt.dev/v1alpha1
kind: LiveUpdate
metadata: {name: $lu}
spec:
  basePath: "$base"
  sources: [{fileWatch: src}]
  selector: {kubernetes: {discoveryName: web, containerName: web}}
  syncs: [{localPath: src, containerPath: /$( [ "$lu" = bench ] && echo bench || echo "b/$lu")}]
  initialSync: {}
YAML
  done
}

# 1. From a file (absolute paths, as Tilt exports them).
objects "$project" "$project/src" bench >"$work/objects.yaml"
"$lu_host" up "$work/objects.yaml" --no-web --control-socket "$work/control.sock" --state-dir "$work/state" --debounce 20 >"$work/up.log" 2>&1 &
up_pid=$!
wait_up
for _ in $(seq 1 600); do [ "$(updated bench)" -gt 0 ] && break; sleep 0.05; done
save_to_pod bench "$work/file.ms"
stop_up

# 2. The operator, the same objects in the namespace.
objects . src bench | kn apply -f - >/dev/null
"$state/bin/kubectl" -n "$ns" get liveupdate bench --watch -o 'jsonpath={.metadata.resourceVersion} {.metadata.annotations.bench}{"\n"}' \
  >"$work/status-events" &
watch_pid=$!
"$lu_host" up --from-cluster --namespace "$ns" --no-web --control-socket "$work/control.sock" --state-dir "$work/state" --debounce 20 "$project" \
  >"$work/up.log" 2>&1 &
up_pid=$!
wait_up
for _ in $(seq 1 600); do [ "$(updated bench)" -gt 0 ] && break; sleep 0.05; done
for _ in $(seq 1 100); do [ "$(kn get liveupdate bench -o 'jsonpath={.status.containers[0].lastFileTimeSynced}')" ] && break; sleep 0.1; done
initial_events=$(wc -l <"$work/status-events")  # the initial sync's writes, not counted
save_to_pod bench "$work/operator.ms"
stop_up  # what is pending is written at stop
kn annotate --overwrite liveupdate bench bench=done >/dev/null
for _ in $(seq 1 300); do grep -q " done$" "$work/status-events" && break; sleep 0.05; done
kill "$watch_pid"; watch_pid=""
writes=$(($(grep -vc " done$" "$work/status-events") - initial_events))

read -r file_p50 file_p90 < <(stats "$work/file.ms")
read -r op_p50 op_p90 < <(stats "$work/operator.ms")
echo "save -> pod, $saves saves each: from a file p50 $file_p50 ms p90 $file_p90 ms; operator p50 $op_p50 ms p90 $op_p90 ms"
echo "ratio operator/file (p50): $(awk -v a="$op_p50" -v b="$file_p50" 'BEGIN {printf "%.2f", a / b}') (bar <= 1.2)"
echo "status writes for $saves saves: $writes ($(awk -v w="$writes" -v s="$saves" 'BEGIN {printf "%.0f", w * 100 / s}') per 100 saves)"

# 3. 100 LiveUpdates in the namespace: operator start to the first and the last initial sync.
kn delete liveupdate bench >/dev/null
names=$(seq -f "bench-%g" 1 100 | tr '\n' ' ')
# shellcheck disable=SC2086
objects . src $names | kn apply -f - >/dev/null
t0=$(now_s)
"$lu_host" up --from-cluster --namespace "$ns" --no-web --control-socket "$work/control.sock" --state-dir "$work/state" --debounce 20 "$project" \
  >"$work/up.log" 2>&1 &
up_pid=$!
for _ in $(seq 1 1200); do
  [ "$(grep -c "\[bench-[0-9]*\] .*updated!" "$work/up.log" || true)" -ge 100 ] && break
  sleep 0.05
done
[ "$(grep -c "\[bench-[0-9]*\] .*updated!" "$work/up.log" || true)" -ge 100 ] || fail "not all 100 LiveUpdates synced"
first=$(grep "\[bench-[0-9]*\] .*updated!" "$work/up.log" | head -1 | line_s)
last=$(grep "\[bench-[0-9]*\] .*updated!" "$work/up.log" | tail -1 | line_s)
loaded=$(grep "up: watching .* control socket" "$work/up.log" | line_s)
echo "100 LiveUpdates: operator start to loaded $(awk -v a="$loaded" -v b="$t0" 'BEGIN {printf "%.0f", (a - b) * 1000}') ms," \
  "to first sync $(awk -v a="$first" -v b="$t0" 'BEGIN {printf "%.0f", (a - b) * 1000}') ms," \
  "to all 100 synced $(awk -v a="$last" -v b="$t0" 'BEGIN {printf "%.0f", (a - b) * 1000}') ms"
stop_up
