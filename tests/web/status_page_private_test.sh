#!/bin/sh
# The status page is as private as the control socket: a real `lu-host up`;
# a client running as `nobody` gets 401/403 on every route, cannot read the
# secret from the daemon's command line, environment or output, and the
# owner gets in with the printed URL (cookie) or a Bearer header.
#   status_page_private_test.sh LU_HOST
set -u
lu_host=$1
if [ "$(id -u)" != 0 ]; then echo "SKIP: needs root to run a client as nobody"; exit 77; fi
for tool in setpriv curl; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
work=$(mktemp -d /tmp/lu-private-XXXXXX)  # mode 0700: the daemon's output is its owner's
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
check() {  # check WHAT EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected $2, got $3"; failures=$((failures + 1)); fi
}
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }

mkdir "$work/objects"
cat >"$work/objects/lu.json" <<'JSON'
{"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate",
 "metadata": {"name": "private", "annotations": {"tilt.dev/resource": "private", "tilt.dev/update-mode": "manual"}},
 "spec": {"basePath": ".", "selector": {"local": {"container": "none"}}, "syncs": [{"localPath": ".", "containerPath": "/app"}]}}
JSON
"$lu_host" up --web-port 0 --control-socket "$work/control.sock" "$work/objects" >"$work/up.log" 2>&1 &
pid=$!
url=
while [ -z "$url" ]; do  # the test's own timeout (CTest) bounds this
  kill -0 "$pid" 2>/dev/null || { echo "FAIL lu-host up exited:"; cat "$work/up.log"; exit 1; }
  url=$(sed -n 's/.*up: status page \(http:[^ ]*\).*/\1/p' "$work/up.log" | head -n 1)
  [ -n "$url" ] || sleep 0.05
done
base=${url%%\?*}
secret=${url#*\?token=}
check "the printed URL carries a secret" 32 "${#secret}"

status() { curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$@"; }
for route in / /index.html /app.js /style.css /api/status /api/liveupdates /api/liveupdates/private \
  /api/liveupdates/private/log /api/plugins /api/events "/?token=0123456789abcdef0123456789abcdef"; do
  check "nobody: GET $route" 401 "$(as_nobody curl -s -o /dev/null -w '%{http_code}' --max-time 20 "$base${route#/}")"
done
code=$(as_nobody curl -s -o /dev/null -w '%{http_code}' --max-time 20 -X POST -H "Origin: ${base%/}" \
  "${base}api/liveupdates/private/trigger")
check "nobody: POST trigger" 401 "$code"
check "nobody: the daemon's command line has no secret" 0 \
  "$(as_nobody cat "/proc/$pid/cmdline" | tr '\0' ' ' | grep -c "$secret")"
as_nobody cat "/proc/$pid/environ" >/dev/null 2>&1
check "nobody: the daemon's environment is closed" 1 "$?"
as_nobody cat "$work/up.log" >/dev/null 2>&1
check "nobody: the daemon's output is closed" 1 "$?"
refused=0
as_nobody "$lu_host" get liveupdates --control-socket "$work/control.sock" >/dev/null 2>&1 || refused=1
check "nobody: the control socket refuses too" 1 "$refused"

# The owner: the printed URL sets the cookie and redirects to the clean URL.
headers=$(curl -s -o /dev/null -D - --max-time 20 -c "$work/jar" "$url" | tr -d '\r')
check "the URL redirects" 303 "$(echo "$headers" | sed -n 's/^HTTP\/1.1 \([0-9]*\).*/\1/p')"
check "to the clean URL" "/" "$(echo "$headers" | sed -n 's/^Location: //p')"
check "with an HttpOnly SameSite=Strict cookie" 1 \
  "$(echo "$headers" | grep -c '^Set-Cookie: lu-host-[0-9]*='"$secret"'; Path=/; HttpOnly; SameSite=Strict$')"
check "the cookie opens the page" 200 "$(status -b "$work/jar" "$base")"
check "the cookie opens the API" 200 "$(status -b "$work/jar" "${base}api/status")"
check "a Bearer header opens the API" 200 "$(status -H "Authorization: Bearer $secret" "${base}api/liveupdates")"
check "a Bearer header triggers" 200 \
  "$(status -X POST -H "Authorization: Bearer $secret" "${base}api/liveupdates/private/trigger")"
check "a wrong Bearer does not" 401 "$(status -H "Authorization: Bearer ${secret}0" "${base}api/liveupdates")"
check "the cookie alone does not trigger" 403 \
  "$(status -X POST -b "$work/jar" "${base}api/liveupdates/private/trigger")"

[ "$failures" = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "status page privacy: all checks passed"
