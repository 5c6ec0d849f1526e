#!/usr/bin/env bash
# GET /metrics after real work: a `lu-host up` syncing saves into a local
# container (its status page, behind the secret) and a `lu-host webhook`
# answering admission reviews (its listener, no secret). Counts move as
# updates, repairs and reviews happen, and `promtool check metrics`
# (Debian's prometheus package) accepts both texts.
#   metrics_e2e.sh LU_HOST
set -uo pipefail
lu_host=$(realpath "$1")
for tool in curl openssl promtool; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool (scripts/install-deps.sh installs it)"; exit 77; }
done
work=$(mktemp -d)
# shellcheck source=up_e2e_lib.sh
. "$(dirname "$0")/up_e2e_lib.sh"
cleanup() {
  stop_up
  stop_webhook
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() {  # check WHAT EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "ok   $1"; else fail "$1: expected $2, got $3"; fi
}
promtool_accepts() {  # promtool_accepts WHAT TEXT
  local out
  if out=$(printf '%s\n' "$2" | promtool check metrics 2>&1); then echo "ok   promtool accepts $1"; else fail "promtool on $1: $out"; fi
}

# --- the daemon -------------------------------------------------------------
local_app_objects "$work/app"
# The liveupdate plugin from a copy of ours, to be rebuilt (hot-reloaded) and broken (refused).
cp "$(dirname "$lu_host")/../lib/libliveupdate.so" "$work/libliveupdate.so"
start_up "$lu_host" --plugin "$work/libliveupdate.so" --web-port 0 --state-dir "$work/state" \
  --control-socket "$work/control.sock" "$work/app/objects.json"
up_status_page || { echo "FAIL: lu-host up printed no status page:"; cat "$work/up.log"; exit 1; }
base=$up_base secret=$up_secret
metrics() { up_metrics; }

check "the daemon's /metrics needs the secret" 401 \
  "$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 "${base}metrics")"
check "its content type is the text format 0.0.4" "text/plain; version=0.0.4; charset=utf-8" \
  "$(curl -s -o /dev/null -w '%{content_type}' --max-time 20 -H "Authorization: Bearer $secret" "${base}metrics")"

ok_updates() { metric_sample "$(metrics)" 'lu_updates_total{live_update="app",result="ok"}'; }
updated_past() { [ "$(ok_updates)" -gt "$1" ]; }
# Files there before the container started are its image's: the first save syncs.
wait_for_command "the daemon watching" grep -q 'up: watching' "$work/up.log"
# Saves are whole (save_file): this test counts the files of each update.
save_file "$work/app/src/a.txt" first
wait_for_command "the first save synced" grep -qx first "$work/app/container/app/a.txt"
wait_for_command "the first save's update counted" updated_past 0
before=$(metrics)
ok_before=$(metric_sample "$before" 'lu_updates_total{live_update="app",result="ok"}')
files_before=$(metric_sample "$before" 'lu_update_files_sum{live_update="app"}')
local_before=$(metric_sample "$before" 'lu_container_updates_total{live_update="app",updater="local",result="ok"}')

save_file "$work/app/src/b.txt" two
save_file "$work/app/src/c.txt" three
wait_for_command "a save synced" test -f "$work/app/container/app/c.txt"
wait_for_command "the save's update counted" updated_past "$ok_before"
files_counted() { [ "$(metric_sample "$(metrics)" 'lu_update_files_sum{live_update="app"}')" -ge "$((files_before + 2))" ]; }
wait_for_command "both files counted (one update, or two if the debouncer split them)" files_counted
after=$(metrics)
ok_after=$(metric_sample "$after" 'lu_updates_total{live_update="app",result="ok"}')
files_after=$(metric_sample "$after" 'lu_update_files_sum{live_update="app"}')
[ "$ok_after" -gt "$ok_before" ] || fail "lu_updates_total did not move: $ok_before then $ok_after"
check "the files of the save are counted" 2 "$((files_after - files_before))"
[ "$(metric_sample "$after" 'lu_container_updates_total{live_update="app",updater="local",result="ok"}')" -gt "$local_before" ] ||
  fail "lu_container_updates_total{updater=\"local\"} did not move"
check "every update timed" "$ok_after" "$(metric_sample "$after" 'lu_update_duration_seconds_count{live_update="app"}')"
[ "$(metric_sample "$after" 'lu_container_update_bytes_sum{live_update="app"}')" != 0 ] || fail "no archive bytes counted"

# A file taken out of the container behind the daemon's back: a verification repairs it.
rm "$work/app/container/app/b.txt"
"$lu_host" verify --fix --control-socket "$work/control.sock" liveupdate app >"$work/verify.log" 2>&1
check "the repair put the file back" two "$(cat "$work/app/container/app/b.txt" 2>/dev/null)"
check "the repair is counted" 1 "$(metric_sample "$(metrics)" 'lu_verify_repairs_total{live_update="app"}')"
# Hot reloads: the plugin file replaced by itself (loaded), then by a broken one (refused).
reloads() { metric_sample "$(metrics)" "lu_hot_reloads_total{plugin=\"$work/libliveupdate.so\",result=\"$1\"}"; }
reloaded() { [ "$(reloads "$1")" = "$2" ]; }
cp "$(dirname "$lu_host")/../lib/libliveupdate.so" "$work/next.so" && mv "$work/next.so" "$work/libliveupdate.so"
wait_for_command "the hot reload counted" reloaded loaded 1
echo "not a plugin" >"$work/next.so" && mv "$work/next.so" "$work/libliveupdate.so"
wait_for_command "the refused reload counted" reloaded refused 1
check "a refusal is no reload" 1 "$(reloads loaded)"
promtool_accepts "the daemon's metrics" "$(metrics)"
[ -n "${LU_METRICS_SHOW:-}" ] && metrics

# --- the webhook ------------------------------------------------------------
start_webhook "$lu_host" || exit 1
hook=$webhook_url
hook_metrics() { curl -sf --max-time 20 --cacert "$work/tls.crt" "$hook/metrics"; }
review() {  # review PATH SPEC: POSTs an AdmissionReview of a LiveUpdate CREATE
  curl -s -o /dev/null -w '%{http_code}' --max-time 20 --cacert "$work/tls.crt" -H 'Content-Type: application/json' \
    --data '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",
      "kind":{"group":"tilt.dev","version":"v1alpha1","kind":"LiveUpdate"},"operation":"CREATE",
      "object":{"apiVersion":"tilt.dev/v1alpha1","kind":"LiveUpdate","metadata":{"name":"web"},"spec":'"$2"'}}}' \
    "$hook$1"
}
valid='{"basePath":".","selector":{"kubernetes":{"discoveryName":"d","image":"i"}},"syncs":[{"localPath":"src","containerPath":"/app"}]}'
absolute='{"basePath":".","selector":{"kubernetes":{"discoveryName":"d","image":"i"}},"syncs":[{"localPath":"/etc","containerPath":"/app"}]}'
check "the webhook's /metrics needs no secret" 200 \
  "$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 --cacert "$work/tls.crt" "$hook/metrics")"
allowed='lu_admission_requests_total{webhook="validate",kind="LiveUpdate",operation="CREATE",verdict="allowed"}'
denied='lu_admission_requests_total{webhook="validate",kind="LiveUpdate",operation="CREATE",verdict="denied"}'
check "a valid LiveUpdate" 200 "$(review /validate "$valid")"
check "another" 200 "$(review /validate "$valid")"
check "an absolute path" 200 "$(review /validate "$absolute")"
check "a mutation" 200 "$(review /mutate "$valid")"
check "garbage" 400 "$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 --cacert "$work/tls.crt" --data '{}' "$hook/validate")"
text=$(hook_metrics)
check "allowed reviews counted" 2 "$(metric_sample "$text" "$allowed")"
check "denied reviews counted" 1 "$(metric_sample "$text" "$denied")"
check "the mutation counted" 1 \
  "$(metric_sample "$text" 'lu_admission_requests_total{webhook="mutate",kind="LiveUpdate",operation="CREATE",verdict="allowed"}')"
check "the bad body counted" 1 \
  "$(metric_sample "$text" 'lu_admission_requests_total{webhook="validate",kind="",operation="",verdict="invalid"}')"
check "every validation timed" 4 "$(metric_sample "$text" 'lu_admission_duration_seconds_count{webhook="validate"}')"
check "the webhook shows only its own" 0 "$(printf '%s\n' "$text" | grep -c '^lu_updates_total')"
promtool_accepts "the webhook's metrics" "$text"

stop_up || failures=$((failures + 1))  # a crash at shutdown fails the test too

[ "$failures" = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "metrics: all checks passed"
