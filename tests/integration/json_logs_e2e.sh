#!/usr/bin/env bash
# --log-format json on a real `lu-host up` (a save synced into a local
# container, a LocalContainer's output, a bad object file) and `lu-host
# webhook`: every line they write is one JSON object (python3's json reads
# it) with time (RFC 3339, UTC, microseconds), level and message, and the
# lines about the LiveUpdate carry its name in liveUpdate.
#   json_logs_e2e.sh LU_HOST
set -uo pipefail
lu_host=$(realpath "$1")
for tool in python3 openssl; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
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
# check_lines FILE WHAT [LIVEUPDATE]: every line a JSON object as described;
# with LIVEUPDATE, some lines carry it.
check_lines() {
  if python3 - "$@" <<'PY'; then echo "ok   $2: every line is a JSON object"; else fail "$2"; fi
import json, re, sys
path, what = sys.argv[1], sys.argv[2]
live_update = sys.argv[3] if len(sys.argv) > 3 else None
time_re = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
lines = open(path, encoding="utf-8").read().splitlines()
bad, tagged = [], 0
for number, line in enumerate(lines, 1):
    try:
        record = json.loads(line)
    except ValueError as e:
        bad.append(f"line {number} is not JSON ({e}): {line}")
        continue
    if not isinstance(record, dict) or not time_re.match(str(record.get("time", ""))) \
            or record.get("level") not in ("debug", "info", "warn", "error") \
            or not isinstance(record.get("message"), str):
        bad.append(f"line {number} lacks time, level or message: {line}")
    if live_update is not None and record.get("liveUpdate") == live_update:
        tagged += 1
if not lines:
    bad.append("no line at all")
if live_update is not None and tagged == 0:
    bad.append(f"no line carries liveUpdate {live_update!r}")
for b in bad:
    print(f"{what}: {b}")
sys.exit(1 if bad else 0)
PY
}

local_app_objects "$work/app" \
  '{"root": "container", "command": ["sh", "-c", "echo '"'started \\\"quoted\\\" \\\\ line'"'; sleep 600"]}'
mkdir -p "$work/bad"
echo '{"kind": "LiveUpdate", "metadata": {' >"$work/bad/broken.json"
start_up "$lu_host" --log-format json --no-web --state-dir "$work/state" --control-socket "$work/control.sock" \
  "$work/app/objects.json" "$work/bad/broken.json"
# Files there before the container started are its image's: the first save syncs.
wait_for_command "the daemon watching" grep -q 'up: watching' "$work/up.log"
echo one >"$work/app/src/a.txt"
wait_for_command "the first save synced" test -f "$work/app/container/app/a.txt"
printf 'two\n' >"$work/app/src/b.txt"
wait_for_command "a save synced" test -f "$work/app/container/app/b.txt"
# An update's lines are written once it has run: the file is there a moment before.
save_logged() { grep -q '"liveUpdate":"app".*b.txt\|b.txt.*"liveUpdate":"app"' "$work/up.log"; }
wait_for_command "the save's lines, carrying liveUpdate app" save_logged ||
  echo "the lines naming b.txt: $(grep b.txt "$work/up.log")"
stop_up || failures=$((failures + 1))  # a crash at shutdown fails the test too
check_lines "$work/up.log" "lu-host up --log-format json" app

start_webhook "$lu_host" --log-format json || exit 1
stop_webhook
check_lines "$work/webhook.log" "lu-host webhook --log-format json"

text=$("$lu_host" webhook --log-format yaml --tls-cert x --tls-key y 2>&1)
[ $? = 2 ] || fail "--log-format yaml is not a usage error: $text"

[ "$failures" = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "json logs: all checks passed"
