#!/usr/bin/env bash
# The webhook against the real cluster of ../shared/k8s, with the CRDs of
# `lu-host crds` installed: `kubectl apply` of refused LiveUpdates names each
# field, a valid one is created, an UPDATE that breaks it is refused, a
# server-side dry run answers the same, a warning reaches kubectl; garbage,
# an oversized body and a slow client are handled; the webhook stopped ->
# failurePolicy Fail, measured.
#   host: lu-host webhook on 127.0.0.1, plus a plugin swapped under it
#   pod:  the webhook as a hostNetwork pod from the image of build-image.sh,
#         its certificates in the Secret that `webhook install` writes
# usage: k8s_webhook_e2e.sh host|pod LU_HOST K8S_DIR REPO_ROOT BUILD_DIR [ADMITS_NOTHING_PLUGIN]
#   (exit 77 without K8S_DIR)
set -uo pipefail
mode=$1 lu_host=$2 k8s_dir=$3 repo=$4 build=$5 admits_nothing=${6:-}
# shellcheck source=k8s_webhook_cluster.sh
. "$(dirname "$0")/k8s_webhook_cluster.sh"
if [ "$mode" = host ]; then port=19443; else port=19444; fi
url=https://127.0.0.1:$port/validate

fail() {
  echo "FAIL: $*" >&2
  [ -f "$work/webhook.log" ] && { echo "--- webhook log ---" >&2; tail -30 "$work/webhook.log" >&2; }
  [ "$mode" = pod ] && kubectl -n lu-webhook logs lu-webhook --tail=30 >&2 2>/dev/null
  exit 1
}
stop_webhook() {
  if [ -n "$webhook_pid" ]; then kill "$webhook_pid" 2>/dev/null; wait "$webhook_pid" 2>/dev/null; fi
  webhook_pid=""
  if [ "$mode" = pod ]; then kubectl -n lu-webhook delete pod lu-webhook --grace-period=0 --wait=true >/dev/null 2>&1; fi
}
cleanup() {
  stop_webhook
  "$lu_host" webhook uninstall >/dev/null 2>&1
  kubectl delete liveupdates -l lu-webhook-e2e --wait=false >/dev/null 2>&1
  # The namespace stays: without a controller-manager it would never finish terminating.
  [ "$mode" = pod ] && kubectl -n lu-webhook delete secret lu-webhook-tls >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

# live_update NAME SPEC_YAML: a LiveUpdate manifest (the spec indented by the caller).
live_update() {
  printf 'apiVersion: tilt.dev/v1alpha1\nkind: LiveUpdate\nmetadata:\n  name: %s\n  labels: {lu-webhook-e2e: "%s"}\nspec:\n%s\n' "$1" "$mode" "$2"
}
valid_spec='  basePath: app
  selector: {kubernetes: {discoveryName: web, containerName: app}}
  syncs:
  - {localPath: src, containerPath: /app/src}'

# expect_refused WHAT FIELD... < MANIFEST: kubectl apply refuses it and names every FIELD.
expect_refused() {
  local what=$1; shift
  local out
  cat >"$work/manifest.yaml"
  if out=$(kubectl apply -f "$work/manifest.yaml" "${dry_run[@]}" 2>&1); then fail "$what: applied: $out"; fi
  for field in "$@"; do
    grep -qF -- "$field" <<<"$out" || fail "$what: kubectl does not name $field: $out"
  done
  echo "ok: refused ($what${dry_run:+, dry run}): $(head -c 160 <<<"$out" | tr '\n' ' ')"
}

curl_webhook() { curl -sS --cacert "$work/certs/ca.crt" --max-time 10 "$@"; }

wait_healthy() {
  for _ in $(seq 1 200); do
    curl_webhook -o /dev/null "https://127.0.0.1:$port/healthz" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "the webhook did not answer /healthz"
}

# CRDs of an older lu-host were cluster-scoped, and a CRD's scope cannot change in place.
for crd in $("$lu_host" crds -o json | grep -o '"name":"[a-z]*\.tilt\.dev"' | cut -d'"' -f4); do
  if [ "$(kubectl get crd "$crd" -o 'jsonpath={.spec.scope}' 2>/dev/null)" = Cluster ]; then
    kubectl delete crd "$crd" >/dev/null || fail "could not delete the cluster-scoped CRD $crd"
  fi
done
lu-crds() { "$lu_host" crds | kubectl apply -f - >/dev/null || fail "lu-host crds | kubectl apply failed"; }
lu-crds
kubectl wait --for=condition=Established crd -l app.kubernetes.io/managed-by=lu-host --timeout=30s >/dev/null ||
  fail "CRDs not established"
kubectl api-resources >/dev/null  # kubectl's discovery cache may still hold the old scope
kubectl delete liveupdates -l lu-webhook-e2e --wait=true >/dev/null 2>&1

if [ "$mode" = host ]; then
  "$lu_host" webhook install --url "$url" --cert-dir "$work/certs" >/dev/null || fail "webhook install failed"
  cp "$build/lib/libliveupdate.so" "$work/libliveupdate.so"
  "$lu_host" webhook --listen "127.0.0.1:$port" --tls-cert "$work/certs/tls.crt" --tls-key "$work/certs/tls.key" \
    --plugin "$work/libliveupdate.so" --request-timeout 1000 --max-body 1048576 >"$work/webhook.log" 2>&1 &
  webhook_pid=$!
else
  kubectl create namespace lu-webhook >/dev/null 2>&1
  # Minimal mode has no controller-manager to make it.
  kubectl -n lu-webhook create serviceaccount default >/dev/null 2>&1
  "$lu_host" webhook install --url "$url" --secret lu-webhook/lu-webhook-tls >/dev/null || fail "webhook install failed"
  mkdir -p "$work/certs"
  kubectl -n lu-webhook get secret lu-webhook-tls -o jsonpath='{.data.ca\.crt}' | base64 -d >"$work/certs/ca.crt"
  # The image is made again only when the build changed since it was imported.
  stamp=$build/tests/webhook/image.stamp
  if [ ! -e "$stamp" ] || [ "$build/bin/lu-host" -nt "$stamp" ] || [ "$build/lib/libliveupdate.so" -nt "$stamp" ] ||
     ! ctr -a "$state/containerd/containerd.sock" -n k8s.io images ls -q | grep -qx localhost/lu-host-webhook:dev; then
    "$repo/deploy/webhook/build-image.sh" "$build" localhost/lu-host-webhook:dev "$k8s_dir" >/dev/null ||
      fail "build-image.sh failed"
    touch "$stamp"
  fi
  # The documented pod, with a short request deadline for the slow client below.
  sed 's|--tls-key, /tls/tls.key\]|--tls-key, /tls/tls.key, --request-timeout, "1000"]|' \
    "$repo/deploy/webhook/pod-hostnetwork.yaml" >"$work/pod.yaml"
  grep -q request-timeout "$work/pod.yaml" || fail "could not set --request-timeout in the pod manifest"
  kubectl apply -f "$work/pod.yaml" >/dev/null || fail "the webhook pod was not created"
  kubectl -n lu-webhook wait --for=condition=Ready pod/lu-webhook --timeout=60s >/dev/null ||
    fail "the webhook pod is not Ready: $(kubectl -n lu-webhook describe pod lu-webhook | tail -15)"
fi
wait_healthy
echo "ok: webhook ($mode) answers on $url"

dry_run=()
for _ in apply dry-run; do  # the same refusals applied, then as a dry run
  live_update bad-container-path '  basePath: .
  selector: {kubernetes: {discoveryName: web, image: app}}
  syncs:
  - {localPath: src, containerPath: app}' | expect_refused "relative containerPath" 'spec.syncs[0]' 'sync destination is not absolute'
  live_update bad-base-path '  basePath: /home/dev/project
  selector: {kubernetes: {discoveryName: web, image: app}}
  syncs:
  - {localPath: src, containerPath: /app}' | expect_refused "absolute basePath" 'spec.basePath' '/home/dev/project'
  live_update bad-selector '  basePath: .
  selector: {kubernetes: {discoveryName: web, image: app, containerName: app}}
  syncs:
  - {localPath: src, containerPath: /app}' | expect_refused "invalid selector" 'spec.selector.kubernetes.image' 'spec.selector.kubernetes.containerName'
  live_update bad-destination '  basePath: .
  selector: {kubernetes: {discoveryName: web, image: app}}
  syncs:
  - {localPath: src, containerPath: /app/../etc}' | expect_refused '".." in a sync destination' 'spec.syncs[0].containerPath' '..'
  live_update bad-type '  basePath: .
  selector: {kubernetes: {discoveryName: web, image: app}}
  syncs:
  - {localPath: src, containerPath: 7}' | expect_refused "wrong field type" 'spec.syncs[0].containerPath' 'string'
  live_update bad-local-path '  basePath: app
  selector: {kubernetes: {discoveryName: web, image: app}}
  syncs:
  - {localPath: ../../etc, containerPath: /etc}' | expect_refused '".." leaving the project folder' 'spec.syncs[0].localPath'
  dry_run=(--dry-run=server)
done
kubectl get liveupdates -l lu-webhook-e2e -o name | grep -q . && fail "a refused LiveUpdate exists"

out=$(live_update web "$valid_spec" | kubectl apply -f - 2>&1) || fail "a valid LiveUpdate was refused: $out"
echo "ok: valid LiveUpdate created"
kubectl get lu web >/dev/null || fail "kubectl get lu web"
out=$(live_update web '  basePath: app
  selector: {kubernetes: {discoveryName: web, containerName: app}}
  syncs:
  - {localPath: src, containerPath: /app/src}
  - {localPath: src, containerPath: relative}' | kubectl apply -f - 2>&1) && fail "an UPDATE that breaks it was applied: $out"
grep -qF 'spec.syncs[1]' <<<"$out" || fail "the refused UPDATE does not name spec.syncs[1]: $out"
[ "$(kubectl get lu web -o jsonpath='{.spec.syncs[*].containerPath}')" = /app/src ] || fail "the refused UPDATE changed web"
echo "ok: an UPDATE that breaks it is refused; web unchanged"

out=$(live_update warned '  basePath: app
  selector: {kubernetes: {discoveryName: web, containerName: app}}
  syncs:
  - {localPath: ../shared, containerPath: /shared}' | kubectl apply -f - 2>&1) || fail "the warned LiveUpdate was refused: $out"
grep -q '^Warning: spec.syncs\[0\].localPath' <<<"$out" || fail "no warning in kubectl's output: $out"
echo "ok: admitted with a warning: $(grep '^Warning' <<<"$out" | head -c 120)"

# Straight at the webhook: garbage, an oversized body, a slow client.
code=$(curl_webhook -o "$work/garbage.out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  --data '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": 7}' "$url")
[ "$code" = 400 ] || fail "garbage AdmissionReview: HTTP $code"
head -c 6000000 /dev/zero | tr '\0' x >"$work/big.json"
code=$(curl_webhook -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @"$work/big.json" "$url")
[ "$code" = 413 ] || fail "oversized body: HTTP $code"
python3 - "$port" "$work/certs/ca.crt" <<'PY' || fail "slow client"
import socket, ssl, sys, time
port, ca = int(sys.argv[1]), sys.argv[2]
ctx = ssl.create_default_context(cafile=ca)
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="127.0.0.1")
s.sendall(b"POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
start = time.monotonic()
s.settimeout(60)
try:
    data = s.recv(1)
except (ssl.SSLError, ConnectionError):
    data = b""
print(f"ok: a slow client is cut off by the webhook after {time.monotonic() - start:.1f} s")
sys.exit(0 if data == b"" else 1)
PY
curl_webhook -o /dev/null "https://127.0.0.1:$port/healthz" || fail "the webhook is gone after the bad requests"
echo "ok: garbage -> 400, oversized -> 413, the webhook still answers"

if [ "$mode" = host ] && [ -n "$admits_nothing" ]; then
  cp "$admits_nothing" "$work/plugin.new" && mv "$work/plugin.new" "$work/libliveupdate.so"
  for _ in $(seq 1 200); do grep -q 'admits-nothing.*in service' "$work/webhook.log" && break; sleep 0.05; done
  out=$(live_update swapped "$valid_spec" | kubectl apply -f - 2>&1) && fail "the swapped plugin did not answer: $out"
  grep -q 'admits-nothing' <<<"$out" || fail "not the swapped plugin's answer: $out"
  echo "ok: a plugin swapped under the running webhook answers the next request"
fi

if [ "$mode" = host ]; then
  # Installing again rotates the certificates under the running webhook.
  before=$(openssl x509 -noout -fingerprint -in "$work/certs/tls.crt")
  "$lu_host" webhook install --url "$url" --cert-dir "$work/certs" >/dev/null || fail "webhook install (rotation) failed"
  [ "$(openssl x509 -noout -fingerprint -in "$work/certs/tls.crt")" != "$before" ] || fail "install made no new certificate"
  out=$(live_update rotated "$valid_spec" | kubectl apply -f - 2>&1)
  grep -q 'admits-nothing\|created' <<<"$out" || fail "no answer after the rotation: $out"
  grep -q 'serving certificate .* reloaded' "$work/webhook.log" || fail "the webhook did not reload its certificate"
  echo "ok: certificates rotated by a second install, no restart"
fi

# failurePolicy Fail: with the webhook stopped, nothing of these kinds gets in.
stop_webhook
start=$(date +%s%N)
out=$(live_update while-down "$valid_spec" | kubectl apply -f - 2>&1) && fail "applied while the webhook was down: $out"
ms=$((($(date +%s%N) - start) / 1000000))
grep -q 'failed calling webhook' <<<"$out" || fail "not refused for the webhook: $out"
echo "ok: webhook stopped -> refused after $ms ms (failurePolicy Fail): $(head -c 140 <<<"$out")"
"$lu_host" webhook uninstall >/dev/null || fail "webhook uninstall failed"
live_update while-down "$valid_spec" | kubectl apply -f - >/dev/null 2>&1 || fail "refused after uninstall"
echo "ok: uninstalled: applied without the webhook"
echo "k8s webhook e2e ($mode): all checks passed"
