# shellcheck shell=bash
# What the end-to-end scripts around `lu-host up` share. The caller sets
# $work (a scratch folder, removed by its own exit trap, which calls stop_up).
# fail ends the test; a script that counts its failures and goes on
# redefines fail after sourcing this (the functions here then count too).
# shellcheck disable=SC2154  # $work, and $ns for kn, are the caller's

up_host_pid=""

fail() {
  echo "FAIL: $*" >&2
  echo "--- lu-host log ---" >&2
  tail -60 "$work/up.log" >&2 || true
  exit 1
}

# start_up LU_HOST ARG...: `LU_HOST up ARG...` in the background, its log in
# $work/up.log. Its synced journals go to $work/state unless the caller chose a
# folder (LIVEUPDATE_STATE_DIR, as CTest sets per test, or --state-dir): the
# default folder is locked by any other `lu-host up` on this machine.
start_up() {
  local lu_host=$1; shift
  LIVEUPDATE_STATE_DIR=${LIVEUPDATE_STATE_DIR:-$work/state} "$lu_host" up "$@" >"$work/up.log" 2>&1 &
  up_host_pid=$!
}

# Stops lu-host up with SIGTERM. A clean stop exits 0; else (a crash at
# shutdown) it says so and returns 1, which the caller's exit trap turns into
# the test's failure (cleanup() { local status=$?; stop_up || status=1; ...;
# exit "$status"; }).
stop_up() {
  local pid=$up_host_pid status=0
  up_host_pid=""
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || status=$?
  [ "$status" -eq 0 ] && return 0
  echo "FAIL: lu-host up exited $status when stopped" >&2
  echo "--- lu-host log ---" >&2
  tail -60 "$work/up.log" >&2 || true
  return 1
}

# save_file PATH LINE: PATH holds LINE and a newline, saved whole as an
# editor's atomic save does: staged in $work and renamed in, one change. A
# write in place is two (the truncation, then the bytes) that a loaded
# machine may report as two updates: two restarts, two counts.
save_file() {
  printf '%s\n' "$2" >"$work/save-staged" && mv -f "$work/save-staged" "$1"
}

# wait_for_file_content PATH EXPECTED READER...: waits (30 s at most) until
# `READER... PATH` prints EXPECTED.
wait_for_file_content() {
  local path=$1 expected=$2; shift 2
  for _ in $(seq 1 300); do
    [ "$("$@" "$path" 2>/dev/null || true)" = "$expected" ] && return 0
    sleep 0.1
  done
  fail "$path never became: $expected (is: $("$@" "$path" 2>&1 || true))"
}

# wait_for_exit: waits (20 s at most) for the lu-host up that start_up began
# to exit by itself (a refusal at start) and sets $up_exit_status; one still
# running fails the test.
up_exit_status=""
wait_for_exit() {
  local pid=$up_host_pid
  for _ in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && fail "lu-host up did not exit by itself"
  up_host_pid=""
  up_exit_status=0
  # shellcheck disable=SC2034  # read by the caller
  wait "$pid" || up_exit_status=$?
}

# up_status_page: waits (30 s at most) for the status page address that the
# lu-host up of start_up prints (started with --web-port 0, say) and sets
# $up_base (http://HOST:PORT/) and $up_secret from it; returns 1 without one.
up_base="" up_secret=""
up_status_page() {
  local url=""
  for _ in $(seq 1 300); do
    url=$(sed -n 's/.*up: status page \(http:[^ ]*\).*/\1/p' "$work/up.log" | head -n 1)
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || return 1
  up_base=${url%%\?*}
  up_secret=${url#*\?token=}
}

# up_metrics: GET /metrics of that status page, with its secret.
up_metrics() { curl -sf --max-time 20 -H "Authorization: Bearer $up_secret" "${up_base}metrics"; }

# metric_sample TEXT LINE-START: the value of the first sample of TEXT whose
# line starts so (0 when none).
metric_sample() {
  printf '%s\n' "$1" | awk -v want="$2" 'index($0, want) == 1 { print $NF; found = 1; exit } END { if (!found) print 0 }'
}

# wait_for_command WHAT COMMAND...: until COMMAND succeeds (15 s at most); else
# fails saying WHAT it waited for, and returns 1.
wait_for_command() {
  local what=$1
  shift
  for _ in $(seq 300); do "$@" && return 0; sleep 0.05; done
  fail "timed out waiting for $what"
  # shellcheck disable=SC2317  # reached when the caller's fail counts and returns
  return 1
}

# local_app_objects DIR [CONTAINER_SPEC]: DIR/objects.json, a LiveUpdate "app"
# syncing DIR/src to /app of the LocalContainer "box" (its spec JSON, by
# default a root of DIR/container and no command); makes both folders.
local_app_objects() {
  local container_spec=${2:-'{"root": "container"}'}
  mkdir -p "$1/src" "$1/container"
  cat >"$1/objects.json" <<JSON
{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "src"},
   "spec": {"watchedPaths": ["src"]}},
  {"apiVersion": "liveupdate.dev/v1alpha1", "kind": "LocalContainer", "metadata": {"name": "box"},
   "spec": $container_spec},
  {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "app"},
   "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}], "selector": {"local": {"container": "box"}},
            "syncs": [{"localPath": "src", "containerPath": "/app"}]}}
]}
JSON
}

# start_webhook LU_HOST ARG...: `LU_HOST webhook` on 127.0.0.1 (a free port)
# with a certificate of its own ($work/tls.crt, for 127.0.0.1), its log in
# $work/webhook.log; waits until it serves and sets $webhook_url
# (https://127.0.0.1:PORT). Returns 1 (after fail) when it does not serve.
webhook_pid="" webhook_url=""
start_webhook() {
  local lu_host=$1
  shift
  if [ ! -f "$work/tls.crt" ]; then
    # shellcheck disable=SC2317  # the return is reached when the caller's fail counts and returns
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
      -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null || { fail "openssl made no certificate"; return 1; }
  fi
  "$lu_host" webhook --listen 127.0.0.1:0 --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" "$@" \
    >"$work/webhook.log" 2>&1 &
  webhook_pid=$!
  webhook_url=""
  for _ in $(seq 300); do
    webhook_url=$(sed -n 's|.*webhook: serving \(https://[^/]*\)/validate.*|\1|p' "$work/webhook.log" | head -n 1)
    [ -n "$webhook_url" ] && return 0
    kill -0 "$webhook_pid" 2>/dev/null || break
    sleep 0.05
  done
  fail "lu-host webhook did not serve: $(cat "$work/webhook.log")"
  # shellcheck disable=SC2317  # reached when the caller's fail counts and returns
  return 1
}

# stop_webhook: stops the webhook start_webhook started, if any.
stop_webhook() {
  [ -n "$webhook_pid" ] || return 0
  kill "$webhook_pid" 2>/dev/null && wait "$webhook_pid" 2>/dev/null
  webhook_pid=""
}

# --- On the cluster of ../shared/k8s (the k8s_cluster_start test starts it) --

# use_cluster K8S_DIR: skips the test (exit 77) without that cluster, else
# sets $state (its folder) and exports KUBECONFIG.
use_cluster() {
  if [ ! -x "$1/cluster.sh" ]; then
    echo "SKIPPED: no cluster: $1/cluster.sh not found"
    exit 77
  fi
  state=${LU_K8S_STATE:-/tmp/lu-k8s}
  export KUBECONFIG=$state/admin.kubeconfig
}

# k: the cluster's kubectl; kn: the same in the caller's namespace $ns.
k() { "$state/bin/kubectl" "$@"; }
kn() { "$state/bin/kubectl" -n "$ns" "$@"; }

# install_crds LU_HOST: the CRDs of `LU_HOST crds`, applied and Established.
# Those of an older lu-host were cluster-scoped, and a CRD's scope cannot
# change in place: such ones are deleted first.
install_crds() {
  local crd
  for crd in $("$1" crds -o json | grep -o '"name":"[a-z]*\.tilt\.dev"' | cut -d'"' -f4) localcontainers.tilt.dev; do
    if [ "$(k get crd "$crd" -o 'jsonpath={.spec.scope}' 2>/dev/null || true)" = Cluster ]; then
      k delete crd "$crd" >/dev/null
    fi
  done
  "$1" crds | k apply -f - >/dev/null
  k wait --for=condition=Established crd -l app.kubernetes.io/managed-by=lu-host --timeout=30s >/dev/null
  k api-resources >/dev/null  # kubectl's discovery cache may still hold the old scope
}

# delete_namespace NS: its objects, then the namespace, finalized by hand
# (minimal mode has no namespace controller). Each tilt.dev kind alone: one
# whose CRD is not installed would make kubectl refuse the whole list.
delete_namespace() {
  local kind
  for kind in liveupdates filewatches kubernetesdiscoverys localcontainers; do
    k -n "$1" delete "$kind.tilt.dev" --all --wait=false >/dev/null 2>&1 || true
  done
  k -n "$1" delete pods,roles,rolebindings,leases,configmaps,serviceaccounts,events --all --grace-period=0 --force \
    >/dev/null 2>&1 || true
  k delete namespace "$1" --wait=false >/dev/null 2>&1 || true
  k get namespace "$1" -o json 2>/dev/null | sed 's/"kubernetes"//' |
    k replace --raw "/api/v1/namespaces/$1/finalize" -f - >/dev/null 2>&1 || true
}

# status_api ROUTE: GET ROUTE (/api/status) of the status page of the lu-host
# up that start_up began, with the secret it printed (not with --no-web).
status_api() {
  up_status_page || return 1
  curl -s --max-time 20 -H "Authorization: Bearer $up_secret" "${up_base}${1#/}"
}

# expect_agent LU_HOST NAME AGENT RESTARTED: waits (30 s at most) until
# `describe liveupdate NAME` (over $work/control.sock) lists its first
# container with AGENT (injected, copied, none) and a last restart
# (RESTARTED yes) or none (no), and /api/status says the same (issue 36).
expect_agent() {
  local lu_host=$1 name=$2 agent=$3 restarted=$4 row="" api="" last
  for _ in $(seq 1 300); do
    row=$("$lu_host" describe liveupdate "$name" --control-socket "$work/control.sock" 2>/dev/null |
      awk '/^Containers:/ {on = 1; next} on && /^  / && $1 != "CONTAINER" {print; exit}') || true
    api=$(status_api /api/status) || true
    last=$(awk '{print $4}' <<<"$row")
    if [ "$(awk '{print $3}' <<<"$row")" = "$agent" ] && grep -q "\"agent\":\"$agent\"" <<<"$api"; then
      if [ "$restarted" = yes ] && [ "$last" != - ] && grep -q '"lastRestartTime":"' <<<"$api"; then return 0; fi
      if [ "$restarted" = no ] && [ "$last" = - ] && ! grep -q '"lastRestartTime"' <<<"$api"; then return 0; fi
    fi
    sleep 0.1
  done
  fail "describe liveupdate $name and /api/status do not say agent $agent (restarted: $restarted): " \
    "describe: '$row'; api: $(grep -o '"containers":\[[^]]*\]' <<<"$api")"
}
