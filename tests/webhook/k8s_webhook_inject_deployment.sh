#!/usr/bin/env bash
# Injection into pods a controller makes (issue 36), on the cluster of
# ../shared/k8s started with --full (controller-manager and scheduler; the
# test skips, saying why, where that cannot run). A Deployment in a namespace
# labelled liveupdate.dev/inject=enabled, its pod template annotated
# liveupdate.dev/restart: process, a busybox httpd with a read-only root
# filesystem serving an emptyDir: its pod (named by the ReplicaSet, no name of
# its own at admission) gets the agent and the wrapped command; `lu-host up`
# live-updates it through the injected lu-agent and restarts the server in
# place (another PID, restartCount 0). A rollout (a new ReplicaSet) gets a
# fresh injection, and the next save reaches its pod and restarts in place
# there too.
# usage: k8s_webhook_inject_deployment.sh LU_HOST K8S_DIR REPO_ROOT BUILD_DIR   (exit 77 without the cluster)
set -uo pipefail
lu_host=$1 k8s_dir=$2 repo=$3 build=$4
k8s_full=1
# shellcheck source=k8s_webhook_cluster.sh
. "$(dirname "$0")/k8s_webhook_cluster.sh"
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
port=19447 http=18094
ns=lu-inject-deploy-$$
image=localhost/lu-agent:dev

fail() {
  echo "FAIL: $*" >&2
  [ -f "$work/webhook.log" ] && { echo "--- webhook log ---" >&2; tail -30 "$work/webhook.log" >&2; }
  [ -f "$work/up.log" ] && { echo "--- lu-host up log ---" >&2; tail -40 "$work/up.log" >&2; }
  kubectl -n "$ns" get deployment,replicasets,pods -o wide >&2 2>/dev/null
  exit 1
}
stop_webhook() {
  if [ -n "$webhook_pid" ]; then kill "$webhook_pid" 2>/dev/null; wait "$webhook_pid" 2>/dev/null; fi
  webhook_pid=""
}
cleanup() {
  local status=$?
  stop_up || status=1
  stop_webhook
  "$lu_host" webhook uninstall >/dev/null 2>&1
  # The controller-manager runs (--full): the namespace and its objects go by themselves.
  kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

kubectl create namespace "$ns" >/dev/null || fail "cannot create namespace $ns"
kubectl label namespace "$ns" liveupdate.dev/inject=enabled >/dev/null || fail "cannot label $ns"
serve_injecting_webhook $port $image

# Recreate: on the host network the old and the new pod cannot both listen on the port.
kubectl -n "$ns" apply -f - >/dev/null <<YAML || fail "the Deployment was not created"
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  strategy: {type: Recreate}
  selector: {matchLabels: {app: lu-inject-deploy}}
  template:
    metadata:
      labels: {app: lu-inject-deploy}
      annotations: {liveupdate.dev/restart: process}
    spec:
      hostNetwork: true
      enableServiceLinks: false
      terminationGracePeriodSeconds: 1
      containers:
      - name: web
        image: localhost/busybox:local
        imagePullPolicy: Never
        command: [/bin/httpd, -f, -p, "127.0.0.1:$http", -h, /www]
        securityContext: {readOnlyRootFilesystem: true}
        volumeMounts: [{name: www, mountPath: /www}]
      volumes: [{name: www, emptyDir: {}}]
YAML
kubectl -n "$ns" rollout status deployment/web --timeout=90s >/dev/null || fail "the Deployment did not roll out"

# wait_live_pod: waits (60 s at most) until exactly one pod of the Deployment is left and Ready; prints it.
wait_live_pod() {
  local pods
  for _ in $(seq 1 600); do
    pods=$(kubectl -n "$ns" get pods -l app=lu-inject-deploy -o \
      jsonpath='{range .items[*]}{.metadata.name} {.metadata.deletionTimestamp} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}')
    if [ "$(wc -l <<<"$pods")" = 1 ] && [ "$(awk '{print NF, $2}' <<<"$pods")" = "2 True" ]; then
      awk '{print $1}' <<<"$pods"
      return 0
    fi
    sleep 0.1
  done
  fail "the Deployment never had one Ready pod alone: $pods"
}
field() { kubectl -n "$ns" get pod "$1" -o jsonpath="$2"; }
# expect_injected POD: the init container, the read-only mount, the annotation, the wrapped command.
expect_injected() {
  [ "$(field "$1" '{.spec.initContainers[0].name}')" = liveupdate-agent-install ] || fail "$1: no init container"
  [ "$(field "$1" '{.spec.containers[0].volumeMounts[?(@.name=="liveupdate-agent")].readOnly}')" = true ] ||
    fail "$1: no read-only mount of the agent"
  [ "$(field "$1" '{.metadata.annotations.liveupdate\.dev/injected-agent}')" = "$image" ] ||
    fail "$1: no annotation liveupdate.dev/injected-agent"
  field "$1" '{.spec.containers[0].command}' | grep -qF '["/.lu-agent/injected/lu-agent","supervise","--","/bin/httpd"' ||
    fail "$1: command not wrapped: $(field "$1" '{.spec.containers[0].command}')"
}
replica_set() { field "$1" '{.metadata.ownerReferences[?(@.kind=="ReplicaSet")].name}'; }
server_pid() { pgrep -o -f "^/bin/httpd -f -p 127.0.0.1:$http" || true; }
# saved_and_restarted TEXT OLD_PID POD: waits (30 s at most) until the server answers TEXT from another
# PID than OLD_PID, the container of POD never restarted.
saved_and_restarted() {
  for _ in $(seq 1 300); do
    [ "$(curl -s --max-time 2 "http://127.0.0.1:$http/index.html")" = "$1" ] &&
      [ -n "$(server_pid)" ] && [ "$(server_pid)" != "$2" ] && break
    sleep 0.1
  done
  [ "$(curl -s --max-time 2 "http://127.0.0.1:$http/index.html")" = "$1" ] || fail "$3: the save '$1' is not served"
  [ "$(server_pid)" != "$2" ] || fail "$3: the server was not restarted (pid $2)"
  [ "$(field "$3" '{.status.containerStatuses[0].restartCount}')" = 0 ] || fail "$3: its container restarted"
}

first=$(wait_live_pod)
expect_injected "$first"
first_rs=$(replica_set "$first")
[ -n "$first_rs" ] || fail "$first has no ReplicaSet owner"
first_pid=$(server_pid)
[ -n "$first_pid" ] || fail "the server of $first is not running"
echo "ok: the Deployment's pod $first (ReplicaSet $first_rs) is injected, its command wrapped"

mkdir -p "$work/up/src"
cat >"$work/up/objects.json" <<JSON
{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "web-src"},
  "spec": {"watchedPaths": ["src"]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "KubernetesDiscovery", "metadata": {"name": "web"},
  "spec": {"watches": [{"namespace": "$ns"}], "extraSelectors": [{"matchLabels": {"app": "lu-inject-deploy"}}]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate",
  "metadata": {"name": "web", "annotations": {"tilt.dev/resource": "web"}},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "web-src"}],
   "selector": {"kubernetes": {"discoveryName": "web", "containerName": "web"}},
   "syncs": [{"localPath": "src", "containerPath": "/www"}], "restart": "always"}}]}
JSON
start_up "$lu_host" "$work/up" --control-socket "$work/control.sock" --web-port 0 --debounce 20
for _ in $(seq 1 100); do
  "$lu_host" get liveupdates --control-socket "$work/control.sock" 2>/dev/null | grep -q '^web  *Ok' && break
  sleep 0.1
done
save_file "$work/up/src/index.html" "first $$"
saved_and_restarted "first $$" "$first_pid" "$first"
expect_agent "$lu_host" web injected yes
echo "ok: a save reaches $first through the injected agent and restarts its server in place" \
  "(pid $first_pid -> $(server_pid), restartCount 0)"

kubectl -n "$ns" rollout restart deployment/web >/dev/null || fail "rollout restart failed"
kubectl -n "$ns" rollout status deployment/web --timeout=90s >/dev/null || fail "the rollout did not finish"
second=$(wait_live_pod)
[ "$second" != "$first" ] || fail "the rollout left $first in place"
second_rs=$(replica_set "$second")
if [ -z "$second_rs" ] || [ "$second_rs" = "$first_rs" ]; then fail "$second is not of a new ReplicaSet: '$second_rs'"; fi
expect_injected "$second"
second_pid=$(server_pid)
[ -n "$second_pid" ] || fail "the server of $second is not running"
echo "ok: the rollout's pod $second (ReplicaSet $second_rs) got a fresh injection"

save_file "$work/up/src/index.html" "second $$"
saved_and_restarted "second $$" "$second_pid" "$second"
expect_agent "$lu_host" web injected yes
echo "ok: the next save reaches $second and restarts its server in place (pid $second_pid -> $(server_pid))"
echo "k8s webhook inject deployment: all checks passed"
