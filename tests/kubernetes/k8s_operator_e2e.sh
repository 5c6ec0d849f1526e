#!/usr/bin/env bash
# End to end on the real cluster: `lu-host up --from-cluster` as the operator
# of a namespace of its own. The CRDs install and print their columns; an
# edit in PROJECT_DIR reaches the pod and the LiveUpdate's status (read with
# kubectl) says so; a 200-file burst makes a bounded number of status writes;
# a status patched by someone else is written over (once); spec.syncs
# applied with kubectl takes effect; a deleted LiveUpdate stops
# updating (proved by a second LiveUpdate that keeps updating); objects whose
# paths leave PROJECT_DIR (.., absolute, a symlink) are refused with a status
# and nothing outside is read; a LocalContainer is ignored with one warning;
# an expired Lease is taken over, a second operator refused, a clean stop
# releases the Lease; the API server restarted mid-watch misses nothing; the
# trigger queue is the ConfigMap (lu-host trigger writes it, a kubectl write
# triggers); the operator works bound only to the printed Role, and says
# clearly that it is forbidden to write a status without liveupdates/status.
# Usage: k8s_operator_e2e.sh LU_HOST K8S_DIR REPO_ROOT   (exit 77 without K8S_DIR)
set -euo pipefail
lu_host=$1 k8s_dir=$2 repo=$3
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
use_cluster "$k8s_dir"
ns=lu-operator-test-$$
p=op$$

work=$(mktemp -d)
cleanup() {
  local status=$?
  stop_up || status=1
  [ -n "${watch_pid:-}" ] && kill "$watch_pid" 2>/dev/null || true
  [ -n "${queue_watch_pid:-}" ] && kill "$queue_watch_pid" 2>/dev/null || true
  delete_namespace "$ns"
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
in_pod() { kn exec web -c web -- cat "$1" 2>/dev/null || true; }
wait_for_content() { wait_for_file_content "$1" "$2" kn exec web -c web -- cat; }
# wait_for CMD...: until CMD succeeds (30 s at most).
wait_for() {
  for _ in $(seq 1 300); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  fail "never true: $*"
}
jpath() { kn get "$1" "$2" -o "jsonpath=$3" 2>/dev/null || true; }

install_crds "$lu_host"
k create namespace "$ns" >/dev/null
kn create serviceaccount default >/dev/null 2>&1 || true
kn apply -f - >/dev/null <<YAML
apiVersion: tilt.dev/v1alpha1
kind: FileWatch
metadata: {name: $p-src, labels: {lu-test: "$p"}}
spec: {watchedPaths: [src]}
YAML
columns=$(kn get liveupdates 2>&1 | sed -n 1p)
[[ $columns =~ ^NAME\ +FAILED\ +WAITING\ +CONTAINER\ +LAST\ SYNC\ +CONFLICTS\ +AGE$ ]] || columns=$(kn get liveupdates 2>&1)
[[ $columns =~ ^NAME\ +FAILED\ +WAITING\ +CONTAINER\ +LAST\ SYNC\ +CONFLICTS\ +AGE$|No\ resources\ found ]] ||
  fail "kubectl get liveupdates: $columns"
echo "ok: CRDs installed"
# A kind that runs local processes: served by a CRD of the test's, never taken.
k apply -f - >/dev/null <<YAML
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: localcontainers.tilt.dev}
spec:
  group: tilt.dev
  scope: Namespaced
  names: {kind: LocalContainer, plural: localcontainers, singular: localcontainer, listKind: LocalContainerList}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
YAML
wait_for kn get localcontainers.tilt.dev
kn apply -f - >/dev/null <<YAML
apiVersion: tilt.dev/v1alpha1
kind: LocalContainer
metadata: {name: $p-lc, labels: {lu-test: "$p"}}
spec: {command: ["sh", "-c", "touch $work/local-container-ran"], root: "."}
YAML

kn apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: $p}}
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
# An expired Lease of an operator gone: taken over.
kn apply -f - >/dev/null <<YAML
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: lu-host-operator}
spec: {holderIdentity: "ghost@nowhere pid 1", leaseDurationSeconds: 15,
       acquireTime: "2020-01-01T00:00:00.000000Z", renewTime: "2020-01-01T00:00:00.000000Z"}
YAML

project=$work/project
mkdir -p "$project/src" "$work/outside"
echo "<h1>first $$</h1>" >"$project/src/index.html"
echo "secret $$" >"$work/outside/secret"
ln -s ../outside "$project/link"
kn wait --for=condition=Ready pod/web --timeout=90s >/dev/null || fail "the pod did not become Ready"

start_up "$lu_host" --from-cluster --namespace "$ns" --no-web --control-socket "$work/control.sock" --debounce 20 \
  "$project"
wait_for grep -q "up: operator of namespace $ns" "$work/up.log"
[[ "$(kn get lease lu-host-operator -o 'jsonpath={.spec.holderIdentity}')" == "$(id -un)@$(hostname) pid $up_host_pid start "* ]] ||
  fail "the expired Lease was not taken over: $(kn get lease lu-host-operator -o yaml)"
echo "ok: expired Lease taken over"

live_update() {  # NAME BASE_PATH LOCAL_PATH CONTAINER_PATH
  cat <<YAML
apiVersion: tilt.dev/v1alpha1
kind: LiveUpdate
metadata: {name: $1, labels: {lu-test: "$p"}}
spec:
  basePath: "$2"
  sources: [{fileWatch: $p-src}]
  selector: {kubernetes: {discoveryName: $p, containerName: web}}
  syncs: [{localPath: "$3", containerPath: "$4"}]
  initialSync: {}
YAML
}
kn apply -f - >/dev/null <<YAML
apiVersion: tilt.dev/v1alpha1
kind: KubernetesDiscovery
metadata: {name: $p, labels: {lu-test: "$p"}}
spec:
  watches: [{namespace: $ns}]
  extraSelectors: [{matchLabels: {app: $p}}]
---
$(live_update "$p" . src /www)
---
$(live_update "$p-keep" . src /keep)
YAML
wait_for_content /www/index.html "<h1>first $$</h1>"
wait_for_content /keep/index.html "<h1>first $$</h1>"
echo "ok: initial sync"
"$lu_host" get liveupdates --control-socket "$work/control.sock" >"$work/get.txt"
head -1 "$work/get.txt" | grep -q "^NAMESPACE  *NAME  *STATE" || fail "lu-host get has no NAMESPACE column: $(cat "$work/get.txt")"
grep -q "^$ns  *$p-keep " "$work/get.txt" || fail "lu-host get does not show $p-keep in $ns: $(cat "$work/get.txt")"
"$lu_host" describe liveupdate "$p-keep" --control-socket "$work/control.sock" | grep -q "^Namespace: *$ns$" ||
  fail "lu-host describe does not show the namespace"
echo "ok: lu-host get and describe show the namespace"

synced_before=$(jpath liveupdate "$p" '{.status.containers[0].lastFileTimeSynced}')
keep_synced_before=$(jpath liveupdate "$p-keep" '{.status.containers[0].lastFileTimeSynced}')
# Saved whole: one update of each LiveUpdate, and $p-keep's status written
# before the patch below, so that no write of its own follows the rewrite.
save_file "$project/src/index.html" "<h1>edited $$</h1>"
wait_for_content /www/index.html "<h1>edited $$</h1>"
synced_after() { [ "$(jpath liveupdate "$p" '{.status.containers[0].lastFileTimeSynced}')" != "$synced_before" ]; }
wait_for synced_after
keep_synced_after() {
  [ "$(jpath liveupdate "$p-keep" '{.status.containers[0].lastFileTimeSynced}')" != "$keep_synced_before" ]
}
wait_for keep_synced_after
[ "$(jpath liveupdate "$p" '{.status.containers[0].podName}')" = web ] || fail "status names no pod"
[ -n "$(jpath kubernetesdiscovery "$p" '{.status.pods[0].name}')" ] || fail "KubernetesDiscovery status not written"
echo "ok: edit synced; LiveUpdate and KubernetesDiscovery statuses written back"

# A status someone else wrote (issue 33) is written over with the operator's
# own, and then left alone: its own write read back is not written again.
kn patch liveupdate "$p-keep" --subresource=status --type merge \
  -p '{"status":{"failed":{"reason":"PatchedBySomeoneElse","message":"written by someone else"}}}' >/dev/null ||
  fail "kubectl patch --subresource=status failed"
not_patched() { [ -z "$(jpath liveupdate "$p-keep" '{.status.failed.reason}')" ]; }
wait_for not_patched
[ -n "$(jpath liveupdate "$p-keep" '{.status.containers[0].lastFileTimeSynced}')" ] || fail "the rewritten status lost its containers"
rewritten_version=$(jpath liveupdate "$p-keep" '{.metadata.resourceVersion}')
sleep 3
[ "$(jpath liveupdate "$p-keep" '{.metadata.resourceVersion}')" = "$rewritten_version" ] ||
  fail "the status is written again and again after the rewrite"
echo "ok: a status patched with kubectl was written over, once"

# A burst: every status change of the LiveUpdate is a watch event on it
# (kubectl itself in the background, not a subshell, so that kill ends it).
"$state/bin/kubectl" -n "$ns" get liveupdate "$p" --watch -o 'jsonpath={.metadata.resourceVersion} {.metadata.annotations.burst}{"\n"}' \
  >"$work/burst-events" &
watch_pid=$!
# Its first line is the object as listed: the watch follows from there, no write of the burst is missed.
wait_for test -s "$work/burst-events"
synced_before=$(jpath liveupdate "$p" '{.status.containers[0].lastFileTimeSynced}')
# Paced past the debounce: each save could be a reconcile and a status of its own.
burst_start=$(date +%s%N)
for i in $(seq 1 200); do echo "file $i" >"$project/src/burst-$i.txt"; sleep 0.025; done
wait_for_content /www/burst-200.txt "file 200"
wait_for_content /keep/burst-200.txt "file 200"
wait_for synced_after
# A marker made after the burst's writes ends the count.
kn annotate --overwrite liveupdate "$p" burst=done >/dev/null
wait_for grep -q " done$" "$work/burst-events"
burst_ms=$(( ($(date +%s%N) - burst_start) / 1000000 ))
kill "$watch_pid"; watch_pid=""
writes=$(($(grep -vc " done$" "$work/burst-events") - 1))
# At most one write per status window (250 ms) while the burst lasted: on a
# loaded machine the 200 saves take longer, and so many windows more.
most=$(( burst_ms / 250 + 5 ))
echo "status writes during a 200-file burst of $burst_ms ms: $writes (at most $most)"
[ "$writes" -ge 1 ] && [ "$writes" -le "$most" ] && [ "$writes" -lt 200 ] ||
  fail "a 200-file burst of $burst_ms ms made $writes status writes (at most $most)"
echo "ok: burst coalesced"

kn apply -f - >/dev/null <<<"$(live_update "$p" . src /www2)"
wait_for_content /www2/index.html "<h1>edited $$</h1>"
echo "<h1>after sync change $$</h1>" >"$project/src/index.html"
wait_for_content /www2/index.html "<h1>after sync change $$</h1>"
echo "ok: spec.syncs changed live"

kn delete liveupdate "$p" >/dev/null
wait_for grep -q "cluster:LiveUpdate/$p: LiveUpdate/$p removed" "$work/up.log"
echo "<h1>after delete $$</h1>" >"$project/src/index.html"
wait_for_content /keep/index.html "<h1>after delete $$</h1>"
[ "$(in_pod /www2/index.html)" = "<h1>after sync change $$</h1>" ] || fail "a deleted LiveUpdate still updates"
echo "ok: a deleted LiveUpdate stops updating"

# The API server killed and restarted mid-watch (cluster.sh start brings
# back a component that is gone): a file saved while it is down and a spec edit
# made right after it is back both reach the pod: nothing is missed.
apiserver_pid=$(cat "$state/run/kube-apiserver.pid")
kill -KILL "$apiserver_pid"  # SIGTERM would hold the watches open for its 60 s graceful shutdown
while kill -0 "$apiserver_pid" 2>/dev/null; do sleep 0.1; done
echo "while down $$" >"$project/src/down.txt"
"$k8s_dir/cluster.sh" start >/dev/null 2>&1 || fail "cluster.sh start did not bring the API server back"
kn apply -f - >/dev/null <<<"$(live_update "$p-keep" . src /keep-after)"
wait_for_content /keep-after/down.txt "while down $$"
echo "after restart $$" >"$project/src/down.txt"
wait_for_content /keep-after/down.txt "after restart $$"
grep -q "watch of /apis/tilt.dev/v1alpha1/namespaces/$ns/liveupdates: .*retrying\|watch of /apis/tilt.dev/v1alpha1/namespaces/$ns/liveupdates: .*listing again" \
  "$work/up.log" || fail "the LiveUpdate watch saw no restart"
echo "ok: API server restarted mid-watch: an edit while down and a spec edit right after reached the pod"

# The trigger queue is the namespace's ConfigMap: lu-host trigger writes it
# through the API server, a write of it with kubectl triggers too, and the
# daemon takes a served manifest off it. Every version of it is recorded.
kn apply -f - >/dev/null <<YAML
apiVersion: tilt.dev/v1alpha1
kind: LiveUpdate
metadata:
  name: $p-manual
  labels: {lu-test: "$p"}
  annotations: {tilt.dev/resource: $p-manual, tilt.dev/update-mode: manual}
spec:
  basePath: "."
  sources: [{fileWatch: $p-src}]
  selector: {kubernetes: {discoveryName: $p, containerName: web}}
  syncs: [{localPath: src, containerPath: /manual}]
YAML
waits_for_trigger() { [ "$(jpath liveupdate "$p-manual" '{.status.containers[0].waiting.reason}')" = Trigger ]; }
wait_for waits_for_trigger
"$state/bin/kubectl" -n "$ns" get configmaps --field-selector metadata.name=tilt-trigger-queue --watch --output-watch-events \
  -o 'jsonpath={.type} {.object.data}{"\n"}' >"$work/queue-events" 2>/dev/null &
queue_watch_pid=$!
echo "trigger one $$" >"$project/src/trigger.txt"
wait_for_content /keep-after/trigger.txt "trigger one $$"
wait_for waits_for_trigger
[ -z "$(in_pod /manual/trigger.txt)" ] || fail "a manual LiveUpdate synced without a trigger"
"$lu_host" trigger "$p-manual" --control-socket "$work/control.sock" >/dev/null || fail "lu-host trigger failed"
wait_for_content /manual/trigger.txt "trigger one $$"
wait_for grep -q "\"[0-9]*-name\":\"$p-manual\"" "$work/queue-events"
# shellcheck disable=SC2143  # with pipefail, grep -q's early exit could fail the producer with SIGPIPE
queue_empty() { [ -z "$(kn get configmap tilt-trigger-queue -o 'jsonpath={.data}' 2>/dev/null | grep "$p-manual")" ]; }
wait_for queue_empty
echo "ok: lu-host trigger wrote the ConfigMap tilt-trigger-queue; the served manifest was taken off"
echo "trigger two $$" >"$project/src/trigger.txt"
wait_for_content /keep-after/trigger.txt "trigger two $$"
wait_for waits_for_trigger
[ "$(in_pod /manual/trigger.txt)" = "trigger one $$" ] || fail "a manual LiveUpdate synced without a trigger"
kn patch configmap tilt-trigger-queue --type merge -p "{\"data\":{\"0-name\":\"$p-manual\"}}" >/dev/null
wait_for_content /manual/trigger.txt "trigger two $$"
wait_for queue_empty
kill "$queue_watch_pid" 2>/dev/null || true
echo "ok: an edit of the ConfigMap with kubectl triggered; the manifest was taken off again"

applied() { kn apply -f - 2>&1 | grep -q "denied the request"; }
for spec in "$p-up ../outside secret /out-up" "$p-abs . $work/outside /out-abs" "$p-link . link /out-link"; do
  # shellcheck disable=SC2086
  set -- $spec
  if live_update "$1" "$2" "$3" "$4" | applied; then
    echo "ok: $1 refused at admission (a webhook is installed)"
    continue
  fi
  refused() { jpath liveupdate "$1" '{.status.failed.message}' | grep -q "$2"; }
  case $1 in
    *-up) wait_for refused "$1" "must not leave the project folder" ;;
    *-abs) wait_for refused "$1" "must be relative" ;;
    *-link) wait_for refused "$1" "a symlink leads to" ;;
  esac
  [ "$(jpath liveupdate "$1" '{.status.failed.reason}')" = ObjectRefused ] || fail "$1: no ObjectRefused status"
  [ -z "$(in_pod "$4/secret")" ] || fail "$1: a file outside PROJECT_DIR reached the pod"
  echo "ok: $1 refused: $(jpath liveupdate "$1" '{.status.failed.message}')"
done

[ "$(grep -c "LocalContainer object(s)" "$work/up.log")" = 1 ] || fail "not one warning for LocalContainers"
grep "LocalContainer object(s)" "$work/up.log" | grep -q "$p-lc" || fail "the warning does not name $p-lc"
[ ! -e "$work/local-container-ran" ] || fail "a LocalContainer from the cluster ran"
echo "ok: LocalContainer ignored with one warning"

"$lu_host" rbac --namespace "$ns" --user "$p-user" | k apply -f - >/dev/null
can() { [ "$(k auth can-i "$@" --as "$p-user" 2>/dev/null || true)" = yes ]; }
can list liveupdates.tilt.dev -n "$ns" && can update liveupdates.tilt.dev --subresource=status -n "$ns" &&
  can create pods --subresource=exec -n "$ns" && can get pods --subresource=exec -n "$ns" &&
  can update leases/lu-host-operator -n "$ns" &&
  can update configmaps/tilt-trigger-queue -n "$ns" || fail "lu-host rbac grants too little"
! can update liveupdates.tilt.dev -n "$ns" && ! can delete pods -n "$ns" && ! can list secrets -n "$ns" &&
  ! can update configmaps/other -n "$ns" && ! can list liveupdates.tilt.dev -n default &&
  ! can create pods --subresource=exec -n default || fail "lu-host rbac grants too much"
# shellcheck disable=SC2143  # with pipefail, grep -q's early exit could fail the producer with SIGPIPE
[ -z "$("$lu_host" rbac --namespace "$ns" | grep -E '^kind: "?Cluster')" ] || fail "lu-host rbac prints a ClusterRole"
echo "ok: lu-host rbac grants what the operator needs, no more"

first_pid=$up_host_pid
# As from another machine: a state folder of its own (one daemon per state folder).
if "$lu_host" up --from-cluster --namespace "$ns" --no-web --control-socket "$work/control2.sock" \
  --state-dir "$work/state2" "$project" >"$work/second.log" 2>&1; then
  fail "a second operator started"
fi
grep -q "already has an operator.*held by $(id -un)@$(hostname) pid $first_pid start .* since" "$work/second.log" ||
  fail "the second operator's refusal does not name the holder: $(cat "$work/second.log")"
echo "ok: second operator refused: $(grep "already has" "$work/second.log")"

stop_up
lease=$(kn get lease lu-host-operator 2>&1 || true)
[[ $lease == *NotFound* ]] ||
  fail "a clean stop kept the Lease: $lease"
echo "ok: clean stop released the Lease"

# The operator as a user bound only to the printed Role (a client
# certificate of the cluster's CA), then with the Role less liveupdates/status.
openssl req -new -newkey rsa:2048 -nodes -subj "/CN=$p-user" -keyout "$work/user.key" -out "$work/user.csr" 2>/dev/null
openssl x509 -req -in "$work/user.csr" -CA "$state/pki/ca.crt" -CAkey "$state/pki/ca.key" -CAserial "$work/ca.srl" \
  -CAcreateserial -days 1 -out "$work/user.crt" 2>/dev/null
cp "$KUBECONFIG" "$work/user.kubeconfig"
k --kubeconfig "$work/user.kubeconfig" config set-credentials "$p-user" --embed-certs \
  --client-certificate "$work/user.crt" --client-key "$work/user.key" >/dev/null
k --kubeconfig "$work/user.kubeconfig" config set-context --current --user "$p-user" >/dev/null
start_up "$lu_host" --from-cluster --namespace "$ns" --kubeconfig "$work/user.kubeconfig" --no-web \
  --control-socket "$work/control.sock" --debounce 20 "$project"
wait_for grep -q "up: watching .* control socket" "$work/up.log"  # its files are watched from here on
synced_before=$(jpath liveupdate "$p-keep" '{.status.containers[0].lastFileTimeSynced}')
echo "as the Role's user $$" >"$project/src/index.html"
wait_for_content /keep-after/index.html "as the Role's user $$"
keep_synced() { [ "$(jpath liveupdate "$p-keep" '{.status.containers[0].lastFileTimeSynced}')" != "$synced_before" ]; }
wait_for keep_synced
"$lu_host" trigger "$p-manual" --control-socket "$work/control.sock" >/dev/null || fail "lu-host trigger as the Role's user failed"
wait_for_content /manual/index.html "as the Role's user $$"
stop_up
echo "ok: an operator bound only to the printed Role syncs, writes statuses and the trigger queue"
"$lu_host" rbac --namespace "$ns" --user "$p-user" -o json | sed 's|,"liveupdates/status"||' | kn apply -f - >/dev/null
! can update liveupdates.tilt.dev --subresource=status -n "$ns" || fail "the Role still grants liveupdates/status"
start_up "$lu_host" --from-cluster --namespace "$ns" --kubeconfig "$work/user.kubeconfig" --no-web \
  --control-socket "$work/control.sock" --debounce 20 "$project"
wait_for grep -q "up: watching .* control socket" "$work/up.log"  # its files are watched from here on
echo "without status rights $$" >"$project/src/index.html"
wait_for_content /keep-after/index.html "without status rights $$"
forbidden="cluster:LiveUpdate/$p-keep: status not written: 403 .*cannot update resource \"liveupdates/status\".*lu-host rbac --namespace $ns"
wait_for grep -q "$forbidden" "$work/up.log"
stop_up
echo "ok: without liveupdates/status: $(grep -o "cluster:LiveUpdate/$p-keep: status not written: 403.*" "$work/up.log" | head -1)"
echo "k8s operator e2e: all checks passed"
