#!/usr/bin/env bash
# The mutating webhook with --agent-configmap against the real cluster of
# ../shared/k8s: `webhook install --mutate --agent-configmap` puts lu-agent
# in a ConfigMap of each labelled namespace (and says which); an injected pod
# mounts it, with no init container, and `lu-host up` live-updates it and
# restarts its server in place through that agent (an image without tar or
# a shell, a read-only root filesystem); the API server patching a pod twice
# gives the pod patched once; a pod of a namespace without the ConfigMap
# still starts, and live update copies the agent into it.
# usage: k8s_webhook_inject_configmap.sh LU_HOST K8S_DIR REPO_ROOT BUILD_DIR   (exit 77 without K8S_DIR)
set -uo pipefail
lu_host=$1 k8s_dir=$2 repo=$3 build=$4
# shellcheck source=k8s_webhook_cluster.sh
. "$(dirname "$0")/k8s_webhook_cluster.sh"
# shellcheck source=../integration/up_e2e_lib.sh
. "$repo/tests/integration/up_e2e_lib.sh"
port=19448 http=18095
on=lu-inject-cm-on off=lu-inject-cm-off
configmap=lu-agent-e2e
scratch=localhost/lu-scratch-httpd:dev

fail() {
  echo "FAIL: $*" >&2
  [ -f "$work/webhook.log" ] && { echo "--- webhook log ---" >&2; tail -30 "$work/webhook.log" >&2; }
  [ -f "$work/up.log" ] && { echo "--- lu-host up log ---" >&2; tail -30 "$work/up.log" >&2; }
  exit 1
}
cleanup() {
  local status=$?
  stop_up || status=1
  if [ -n "$webhook_pid" ]; then kill "$webhook_pid" 2>/dev/null; wait "$webhook_pid" 2>/dev/null; fi
  "$lu_host" webhook uninstall >/dev/null 2>&1
  # The namespaces stay: without a controller-manager they would never finish terminating.
  for ns in $on $off; do
    kubectl -n "$ns" delete pods -l lu-inject-cm-e2e --grace-period=0 --wait=false >/dev/null 2>&1
  done
  # install writes into every labelled namespace of the cluster, other tests' too.
  sed -n "s|^configmap/$configmap [a-z]* in namespace \([^ ]*\) .*|\1|p" "$work"/install*.out 2>/dev/null | sort -u |
    while read -r ns; do
      kubectl -n "$ns" delete configmap "$configmap" --wait=false >/dev/null 2>&1
    done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
field() { kubectl -n "$1" get pod "$2" -o jsonpath="$3"; }

for ns in $on $off; do
  kubectl create namespace "$ns" >/dev/null 2>&1
  kubectl -n "$ns" create serviceaccount default >/dev/null 2>&1  # minimal mode has no controller-manager
  kubectl -n "$ns" delete pods -l lu-inject-cm-e2e --grace-period=0 --wait=true >/dev/null 2>&1
  kubectl -n "$ns" delete configmap $configmap >/dev/null 2>&1
done
kubectl label namespace $on liveupdate.dev/inject=enabled --overwrite >/dev/null || fail "cannot label $on"
kubectl label namespace $off liveupdate.dev/inject- >/dev/null 2>&1

# An agent that cannot be published is refused before anything is installed.
"$lu_host" webhook uninstall >/dev/null 2>&1
"$lu_host" webhook install --url "https://127.0.0.1:$port/validate" --cert-dir "$work/refused-certs" --mutate \
  --agent-configmap $configmap --agent "$work/no-such-agent" >"$work/refused.out" 2>&1 &&
  fail "install with a missing --agent succeeded"
grep -q "no lu-agent binary found (looked at $work/no-such-agent); give --agent PATH" "$work/refused.out" ||
  fail "install with a missing --agent did not say why: $(cat "$work/refused.out")"
for kind in validatingwebhookconfiguration mutatingwebhookconfiguration; do
  kubectl get "$kind" -o name | grep -q lu-host-webhook && fail "a refused install left a $kind"
done
[ -e "$work/refused-certs" ] && fail "a refused install wrote certificates"
echo "ok: install with an agent it cannot publish is refused and installs nothing"

"$lu_host" webhook install --url "https://127.0.0.1:$port/validate" --cert-dir "$work/certs" --mutate \
  --agent-configmap $configmap --agent "$build/bin/lu-agent" >"$work/install.out" ||
  fail "webhook install --mutate --agent-configmap failed: $(cat "$work/install.out")"
grep -q "^configmap/$configmap created in namespace $on " "$work/install.out" ||
  fail "install did not say it made the ConfigMap in $on: $(cat "$work/install.out")"
grep -q "namespace $off" "$work/install.out" && fail "install wrote into the unlabelled $off"
kubectl -n $off get configmap $configmap >/dev/null 2>&1 && fail "a ConfigMap in the unlabelled $off"
[ "$(kubectl -n $on get configmap $configmap -o jsonpath='{.binaryData.lu-agent}' | base64 -d | cmp - "$build/bin/lu-agent" &&
  echo same)" = same ] || fail "the ConfigMap does not hold $build/bin/lu-agent"
"$lu_host" webhook install --url "https://127.0.0.1:$port/validate" --cert-dir "$work/certs" --mutate \
  --agent-configmap $configmap --agent "$build/bin/lu-agent" >"$work/install-again.out" || fail "install again failed"
grep -q "^configmap/$configmap replaced in namespace $on " "$work/install-again.out" ||
  fail "install again did not replace the ConfigMap: $(cat "$work/install-again.out")"
echo "ok: install --agent-configmap: the ConfigMap in the labelled namespace only; again: replaced"

"$lu_host" webhook --listen "127.0.0.1:$port" --tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key" \
  --plugin "$build/lib/libliveupdate.so" --agent-configmap $configmap >"$work/webhook.log" 2>&1 &
webhook_pid=$!
for _ in $(seq 1 200); do
  curl -sS --cacert "$work/certs/ca.crt" -o /dev/null "https://127.0.0.1:$port/healthz" 2>/dev/null && break
  kill -0 "$webhook_pid" 2>/dev/null || fail "lu-host webhook --agent-configmap exited"
  sleep 0.05
done

# An image without tar or a shell (a static busybox as its only file, /httpd)
# and a read-only root filesystem, its command wrapped for restarts in place.
mkdir -p "$work/scratch/rootfs" "$work/up/served" "$work/up/copied"
cp -L "$(command -v busybox)" "$work/scratch/rootfs/httpd"
python3 "$k8s_dir/lib/mkimage.py" "$work/scratch/rootfs" $scratch "$work/scratch/image.tar" /httpd >/dev/null &&
  ctr -a "$state/containerd/containerd.sock" -n k8s.io images import --all-platforms "$work/scratch/image.tar" \
    >/dev/null || fail "cannot make the image $scratch"
cat >"$work/served.yaml" <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: served
  labels: {lu-inject-cm-e2e: "1", app: lu-inject-cm-served}
  annotations: {liveupdate.dev/restart: process}
spec:
  nodeName: "127.0.0.1"
  hostNetwork: true
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: $scratch
    imagePullPolicy: Never
    command: [/httpd, -f, -p, "127.0.0.1:$http", -h, /www]
    securityContext: {readOnlyRootFilesystem: true}
    volumeMounts: [{name: www, mountPath: /www}]
  volumes:
  - {name: www, emptyDir: {}}
YAML
kubectl -n $on apply -f "$work/served.yaml" >/dev/null || fail "served not created"
kubectl -n $on wait --for=condition=Ready pod/served --timeout=60s >/dev/null ||
  fail "served not Ready: $(kubectl -n $on describe pod served | tail -15)"
[ -z "$(field $on served '{.spec.initContainers}')" ] || fail "served has an init container"
[ "$(field $on served '{.spec.volumes[?(@.name=="liveupdate-agent")].configMap.name}')" = $configmap ] ||
  fail "served does not mount the ConfigMap: $(field $on served '{.spec.volumes}')"
[ "$(field $on served '{.metadata.annotations.liveupdate\.dev/injected-agent}')" = "configmap/$configmap" ] ||
  fail "no annotation naming the ConfigMap"
echo "ok: labelled namespace: the ConfigMap mounted, no init container"

# The API server sends the pod again (reinvocation): a second patch changes nothing.
kubectl -n $on get pod served -o json | python3 -c '
import json, sys
pod = json.load(sys.stdin)
meta = pod["metadata"]
pod["metadata"] = {"name": "served-again", "labels": meta["labels"], "annotations": meta["annotations"]}
pod.pop("status", None)
json.dump(pod, sys.stdout)' >"$work/again.json" || fail "cannot copy served"
kubectl -n $on create --dry-run=server -o json -f "$work/again.json" >"$work/again.out" ||
  fail "served patched again was refused"
python3 - "$work/again.json" "$work/again.out" <<'PY' || fail "a pod patched twice differs from the pod patched once"
import json, sys
sent, back = (json.load(open(p))["spec"] for p in sys.argv[1:])
for key in ("volumes", "containers", "initContainers"):
    if sent.get(key) != back.get(key):
        sys.exit(f"{key}: {json.dumps(sent.get(key))} became {json.dumps(back.get(key))}")
PY
echo "ok: a pod patched twice is the pod patched once"

# A namespace without the ConfigMap (a pod labelled inject=true): it starts, uninjected in effect.
cat >"$work/copied.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: copied
  labels: {lu-inject-cm-e2e: "1", app: lu-inject-cm-copied, liveupdate.dev/inject: "true"}
spec:
  nodeName: "127.0.0.1"
  hostNetwork: true
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: localhost/busybox:local
    imagePullPolicy: Never
    command: [/bin/sh, -c, "trap \"exit 0\" TERM; while true; do sleep 1; done"]
YAML
kubectl -n $off apply -f "$work/copied.yaml" >/dev/null || fail "copied not created"
kubectl -n $off wait --for=condition=Ready pod/copied --timeout=60s >/dev/null ||
  fail "copied (no ConfigMap in $off) not Ready: $(kubectl -n $off describe pod copied | tail -15)"
[ "$(field $off copied '{.spec.volumes[?(@.name=="liveupdate-agent")].configMap.optional}')" = true ] ||
  fail "copied's ConfigMap volume is not optional"
kubectl -n $off exec copied -- test -e /.lu-agent/injected/lu-agent && fail "copied has an agent without a ConfigMap"
echo "ok: a namespace without the ConfigMap: the pod starts"

# lu-host up: served live-updates through the mounted agent and restarts in
# place; copied gets the agent copied in and live-updates.
server_pid() { pgrep -o -f "^/httpd -f -p 127.0.0.1:$http" || true; }
first_pid=$(server_pid)
[ -n "$first_pid" ] || fail "served's server is not running"
live_update() {  # NAME NAMESPACE SYNC_TO RESTART
  cat <<JSON
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "$1-src"},
  "spec": {"watchedPaths": ["$1"]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "KubernetesDiscovery", "metadata": {"name": "$1"},
  "spec": {"watches": [{"namespace": "$2"}], "extraSelectors": [{"matchLabels": {"app": "lu-inject-cm-$1"}}]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate",
  "metadata": {"name": "$1", "annotations": {"tilt.dev/resource": "$1"}},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "$1-src"}],
   "selector": {"kubernetes": {"discoveryName": "$1", "containerName": "app"}},
   "syncs": [{"localPath": "$1", "containerPath": "$3"}], "restart": "$4"}}
JSON
}
{ echo '{"apiVersion": "v1", "kind": "List", "items": ['
  live_update served $on /www always
  echo ','
  live_update copied $off /tmp/www none
  echo ']}'; } >"$work/up/objects.json"
start_up "$lu_host" "$work/up" --control-socket "$work/control.sock" --web-port 0 --debounce 20
for _ in $(seq 1 100); do
  [ "$("$lu_host" get liveupdates --control-socket "$work/control.sock" 2>/dev/null | grep -c ' Ok')" = 2 ] && break
  sleep 0.1
done
save_file "$work/up/served/index.html" "saved $$"
save_file "$work/up/copied/index.html" "copied $$"
for _ in $(seq 1 300); do
  [ "$(curl -s --max-time 2 "http://127.0.0.1:$http/index.html")" = "saved $$" ] &&
    [ -n "$(server_pid)" ] && [ "$(server_pid)" != "$first_pid" ] && break
  sleep 0.1
done
[ "$(curl -s --max-time 2 "http://127.0.0.1:$http/index.html")" = "saved $$" ] || fail "the save is not served"
[ "$(server_pid)" != "$first_pid" ] || fail "the server was not restarted (pid $first_pid)"
[ "$(field $on served '{.status.containerStatuses[0].restartCount}')" = 0 ] || fail "served's container restarted"
expect_agent "$lu_host" served injected yes
echo "ok: served: a save through the ConfigMap's agent restarts the server in place (pid $first_pid -> $(server_pid))"
for _ in $(seq 1 100); do
  [ "$(kubectl -n $off exec copied -- cat /tmp/www/index.html 2>/dev/null)" = "copied $$" ] && break
  sleep 0.2
done
[ "$(kubectl -n $off exec copied -- cat /tmp/www/index.html 2>&1)" = "copied $$" ] ||
  fail "the save did not reach copied: $(kubectl -n $off exec copied -- cat /tmp/www/index.html 2>&1)"
copies=$(kubectl -n $off exec copied -- ls /.lu-agent 2>&1)
grep -q '^lu-agent-' <<<"$copies" || fail "no lu-agent copied into copied's /.lu-agent: $copies"
echo "ok: copied: without the ConfigMap, live update copies the agent in"
stop_up || fail "lu-host up did not stop cleanly"
echo "k8s webhook inject configmap: all checks passed"
