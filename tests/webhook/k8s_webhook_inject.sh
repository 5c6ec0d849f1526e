#!/usr/bin/env bash
# The mutating webhook against the real cluster of ../shared/k8s: lu-host
# webhook on the host with the agent image of deploy/agent/build-image.sh,
# installed with --mutate. A pod of a labelled namespace gets the volume, the
# init container and a read-only mount, and runs the injected lu-agent; a pod
# of an unlabelled namespace is never sent (a pod sent would be injected)
# unless labelled liveupdate.dev/inject=true; restart: process wraps the
# command (the supervisor's socket in a writable run folder, so a read-only
# root filesystem restarts in place too), a container without one is named
# in a warning; `lu-host up` live-updates an injected pod of an image
# without tar or a shell, with a read-only root filesystem, through the
# injected lu-agent and restarts its server in place, and describe and the
# status page say so; a malformed annotation is a warning, not a refusal;
# the webhook stopped -> pods of the labelled namespace still start,
# uninjected (failurePolicy Ignore).
# usage: k8s_webhook_inject.sh LU_HOST K8S_DIR REPO_ROOT BUILD_DIR   (exit 77 without K8S_DIR)
set -uo pipefail
lu_host=$1 k8s_dir=$2 repo=$3 build=$4
# shellcheck source=k8s_webhook_cluster.sh
. "$(dirname "$0")/k8s_webhook_cluster.sh"
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
port=19446
on=lu-inject-on off=lu-inject-off
image=localhost/lu-agent:dev

fail() {
  echo "FAIL: $*" >&2
  [ -f "$work/webhook.log" ] && { echo "--- webhook log ---" >&2; tail -30 "$work/webhook.log" >&2; }
  [ -f "$work/up.log" ] && { echo "--- lu-host up log ---" >&2; tail -30 "$work/up.log" >&2; }
  exit 1
}
stop_webhook() {
  if [ -n "$webhook_pid" ]; then kill "$webhook_pid" 2>/dev/null; wait "$webhook_pid" 2>/dev/null; fi
  webhook_pid=""
}
# remove_namespace NS: NS gone with the pods and service account the test
# made in it, whichever run left it. The cluster's minimal mode has no
# controller-manager, whose namespace controller empties a deleted namespace
# and finalizes it: there a deleted namespace would stay Terminating for good,
# so this deletes the objects itself and then finalizes the namespace.
remove_namespace() {
  local ns=$1
  kubectl get namespace "$ns" >/dev/null 2>&1 || return 0
  kubectl -n "$ns" delete pods --all --wait=true --timeout=60s >/dev/null 2>&1
  kubectl -n "$ns" delete serviceaccounts --all >/dev/null 2>&1
  kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1
  # With a controller-manager the namespace may be gone already: no error then.
  kubectl replace --raw "/api/v1/namespaces/$ns/finalize" -f - >/dev/null 2>&1 <<JSON
{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "$ns"}, "spec": {"finalizers": []}}
JSON
  for _ in $(seq 1 100); do
    kubectl get namespace "$ns" >/dev/null 2>&1 || return 0
    sleep 0.1
  done
  echo "namespace $ns is still there: $(kubectl get namespace "$ns" --no-headers 2>&1)" >&2
  return 1
}
cleanup() {
  local status=$?
  stop_up || status=1
  stop_webhook
  "$lu_host" webhook uninstall >/dev/null 2>&1
  for ns in $on $off; do remove_namespace "$ns" || status=1; done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

# pod NAME [ANNOTATIONS [LABELS [CONTAINERS]]]: a manifest for the minimal cluster.
pod() {
  local containers=${4:-'  - {name: app, image: localhost/busybox:local, imagePullPolicy: Never,
     command: [/bin/sh, -c, "trap \"exit 0\" TERM; while true; do sleep 1; done"]}'}
  printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  labels: {lu-inject-e2e: "1"%s}\n  annotations: {%s}\nspec:\n  nodeName: "127.0.0.1"\n  hostNetwork: true\n  automountServiceAccountToken: false\n  enableServiceLinks: false\n  terminationGracePeriodSeconds: 1\n  containers:\n%s\n' \
    "$1" "${3:+, $3}" "${2:-}" "$containers"
}
field() { kubectl -n "$1" get pod "$2" -o jsonpath="$3"; }

# Fresh namespaces: what a run killed before its cleanup left goes first.
for ns in $on $off; do
  remove_namespace "$ns" || fail "cannot remove the namespace $ns an earlier run left"
  kubectl create namespace "$ns" >/dev/null || fail "cannot create namespace $ns"
  # Minimal mode has no controller-manager to make it (with one, it may be there already).
  kubectl -n "$ns" create serviceaccount default >/dev/null 2>&1
done
kubectl label namespace $on liveupdate.dev/inject=enabled >/dev/null || fail "cannot label $on"

serve_injecting_webhook $port $image
grep -q '^mutatingwebhookconfiguration/lu-host-webhook-inject' "$work/install.out" ||
  fail "install --mutate did not say it wrote the configuration: $(cat "$work/install.out")"
echo "ok: webhook answers with --agent-image $image"

# A labelled namespace: injected, and the agent runs from the read-only mount.
start=$(date +%s%N)
pod injected | kubectl -n $on apply -f - >/dev/null || fail "pod injected not created"
kubectl -n $on wait --for=condition=Ready pod/injected --timeout=60s >/dev/null ||
  fail "pod injected not Ready: $(kubectl -n $on describe pod injected | tail -15)"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$(field $on injected '{.spec.initContainers[0].name}')" = liveupdate-agent-install ] || fail "no init container"
[ "$(field $on injected '{.spec.volumes[?(@.name=="liveupdate-agent")].name}')" = liveupdate-agent ] || fail "no volume"
[ "$(field $on injected '{.spec.containers[0].volumeMounts[?(@.name=="liveupdate-agent")].readOnly}')" = true ] ||
  fail "no read-only mount"
[ "$(field $on injected '{.metadata.annotations.liveupdate\.dev/injected-agent}')" = "$image" ] || fail "no annotation"
kubectl -n $on exec injected -- /.lu-agent/injected/lu-agent --help >/dev/null || fail "the injected lu-agent does not run"
kubectl -n $on exec injected -- touch /.lu-agent/injected/x 2>/dev/null && fail "the agent's mount is writable"
echo "ok: labelled namespace: injected, Ready after $ms ms, lu-agent runs from a read-only mount"

# restart: process wraps the command; a container without one is named in a warning.
out=$(pod wrapped '"liveupdate.dev/restart": process' '' '  - {name: app, image: localhost/busybox:local, imagePullPolicy: Never, command: [sleep], args: ["3600"]}
  - {name: bare, image: localhost/busybox:local, imagePullPolicy: Never}' |
  kubectl -n $on create --dry-run=server -o jsonpath='{.spec.containers[0].command}' -f - 2>&1) ||
  fail "the wrapped pod was refused: $out"
grep -qF '["/.lu-agent/injected/lu-agent","supervise","--","sleep"]' <<<"$out" || fail "command not wrapped: $out"
grep -q '^Warning: container "bare" has no command' <<<"$out" || fail "no warning naming bare: $out"
echo "ok: restart: process wraps the command; a container without one gets a warning"

# A read-only root filesystem: the wrapped process's supervisor listens in the writable run folder.
pod hardened '"liveupdate.dev/restart": process' '' '  - {name: app, image: localhost/busybox:local, imagePullPolicy: Never,
     command: [/bin/sh, -c, "trap \"exit 0\" TERM; while true; do sleep 1; done"],
     securityContext: {readOnlyRootFilesystem: true}}' | kubectl -n $on apply -f - >/dev/null || fail "hardened not created"
kubectl -n $on wait --for=condition=Ready pod/hardened --timeout=60s >/dev/null || fail "hardened not Ready"
[ "$(field $on hardened '{.spec.containers[0].env[?(@.name=="LU_SUPERVISE_SOCKET")].value}')" = \
  /.lu-agent/run/supervise.sock ] || fail "no LU_SUPERVISE_SOCKET in the wrapped container"
kubectl -n $on exec hardened -- test -S /.lu-agent/run/supervise.sock ||
  fail "the supervisor of a read-only root filesystem has no socket: $(kubectl -n $on logs hardened | tail -3)"
kubectl -n $on exec hardened -- touch /x 2>/dev/null && fail "the root filesystem of hardened is writable"
echo "ok: read-only root filesystem: the supervisor listens in the writable run folder"

# lu-host up on an injected pod of an image without tar or a shell (a static
# busybox as its only file, /httpd: no sh, no tar to reach) and with a
# read-only root filesystem: a save goes through the injected lu-agent into
# the emptyDir and restarts the server in place (another PID, restartCount
# stays 0); describe and /api/status say how the agent got there and when.
scratch=localhost/lu-scratch-httpd:dev http=18093
mkdir -p "$work/scratch/rootfs" "$work/up/src"
cp -L "$(command -v busybox)" "$work/scratch/rootfs/httpd"
python3 "$k8s_dir/lib/mkimage.py" "$work/scratch/rootfs" $scratch "$work/scratch/image.tar" /httpd >/dev/null &&
  ctr -a "$state/containerd/containerd.sock" -n k8s.io images import --all-platforms "$work/scratch/image.tar" \
    >/dev/null || fail "cannot make the image $scratch"
{ pod served '"liveupdate.dev/restart": process' 'app: lu-inject-up' "  - {name: app, image: $scratch, imagePullPolicy: Never,
     command: [/httpd, -f, -p, '127.0.0.1:$http', -h, /www],
     securityContext: {readOnlyRootFilesystem: true}, volumeMounts: [{name: www, mountPath: /www}]}"
  printf '  volumes:\n  - {name: www, emptyDir: {}}\n'; } | kubectl -n $on apply -f - >/dev/null || fail "served not created"
kubectl -n $on wait --for=condition=Ready pod/served --timeout=60s >/dev/null || fail "served not Ready"
for tool in sh tar; do
  kubectl -n $on exec served -- $tool --help >/dev/null 2>&1 && fail "the image of served has $tool"
done
server_pid() { pgrep -o -f "^/httpd -f -p 127.0.0.1:$http" || true; }
first_pid=$(server_pid)
[ -n "$first_pid" ] || fail "served's server is not running"
cat >"$work/up/objects.json" <<JSON
{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "served-src"},
  "spec": {"watchedPaths": ["src"]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "KubernetesDiscovery", "metadata": {"name": "served"},
  "spec": {"watches": [{"namespace": "$on"}], "extraSelectors": [{"matchLabels": {"app": "lu-inject-up"}}]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate",
  "metadata": {"name": "served", "annotations": {"tilt.dev/resource": "served"}},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "served-src"}],
   "selector": {"kubernetes": {"discoveryName": "served", "containerName": "app"}},
   "syncs": [{"localPath": "src", "containerPath": "/www"}], "restart": "always"}}]}
JSON
start_up "$lu_host" "$work/up" --control-socket "$work/control.sock" --web-port 0 --debounce 20
for _ in $(seq 1 100); do
  "$lu_host" get liveupdates --control-socket "$work/control.sock" 2>/dev/null | grep -q '^served  *Ok' && break
  sleep 0.1
done
save_file "$work/up/src/index.html" "saved $$"
for _ in $(seq 1 300); do
  [ "$(curl -s --max-time 2 "http://127.0.0.1:$http/index.html")" = "saved $$" ] &&
    [ -n "$(server_pid)" ] && [ "$(server_pid)" != "$first_pid" ] && break
  sleep 0.1
done
[ "$(curl -s --max-time 2 "http://127.0.0.1:$http/index.html")" = "saved $$" ] || fail "the save is not served"
[ "$(server_pid)" != "$first_pid" ] || fail "the server was not restarted (pid $first_pid)"
[ "$(field $on served '{.status.containerStatuses[0].restartCount}')" = 0 ] || fail "served's container restarted"
expect_agent "$lu_host" served injected yes
stop_up
echo "ok: no tar, no shell, read-only root: a save is served and restarts the server in place (pid $first_pid ->" \
  "$(server_pid)); describe and /api/status say injected and when"

out=$(pod malformed '"liveupdate.dev/containers": nope, "liveupdate.dev/inject": maybe' | kubectl -n $on apply -f - 2>&1) ||
  fail "a pod with malformed annotations was refused: $out"
grep -q '^Warning: annotation liveupdate.dev/containers' <<<"$out" || fail "no warning for the containers annotation: $out"
grep -q '^Warning: annotation liveupdate.dev/inject' <<<"$out" || fail "no warning for the inject annotation: $out"
echo "ok: malformed annotations: created with warnings"

pod opted-out '"liveupdate.dev/inject": "false"' | kubectl -n $on apply -f - >/dev/null || fail "opted-out not created"
[ -z "$(field $on opted-out '{.spec.initContainers}')" ] || fail "an opted-out pod was injected"
echo "ok: annotation inject: false opts out"

# An unlabelled namespace: not sent (any pod sent there would be injected), but for a pod labelled true.
pod plain '"liveupdate.dev/inject": "true"' | kubectl -n $off apply -f - >/dev/null || fail "plain not created"
[ -z "$(field $off plain '{.spec.initContainers}')" ] || fail "a pod of an unlabelled namespace was injected"
pod labelled '' '"liveupdate.dev/inject": "true"' | kubectl -n $off apply -f - >/dev/null || fail "labelled not created"
[ "$(field $off labelled '{.spec.initContainers[0].name}')" = liveupdate-agent-install ] ||
  fail "a pod labelled liveupdate.dev/inject=true was not injected"
echo "ok: unlabelled namespace: not sent to the webhook; a pod labelled inject=true is"

# failurePolicy Ignore: the webhook stopped, pods still start (uninjected).
stop_webhook
start=$(date +%s%N)
pod while-down | kubectl -n $on apply -f - >/dev/null || fail "a pod was refused while the webhook was down"
kubectl -n $on wait --for=condition=Ready pod/while-down --timeout=60s >/dev/null || fail "while-down not Ready"
ms=$((($(date +%s%N) - start) / 1000000))
[ -z "$(field $on while-down '{.spec.initContainers}')" ] || fail "injected while the webhook was down?"
echo "ok: webhook stopped -> the pod starts uninjected, Ready after $ms ms (failurePolicy Ignore)"

"$lu_host" webhook uninstall >"$work/uninstall.out" || fail "webhook uninstall failed"
grep -q 'mutatingwebhookconfiguration/lu-host-webhook-inject deleted' "$work/uninstall.out" ||
  fail "uninstall did not delete the mutating configuration: $(cat "$work/uninstall.out")"
kubectl get mutatingwebhookconfiguration lu-host-webhook-inject >/dev/null 2>&1 && fail "still installed"
echo "ok: uninstalled"
echo "k8s webhook inject: all checks passed"
