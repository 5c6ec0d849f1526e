# What the end-to-end scripts around `lu-host up` share. The caller sets
# $work (a scratch folder, removed by its own exit trap, which calls stop_up).

up_host_pid=""

fail() {
  echo "FAIL: $*" >&2
  echo "--- lu-host log ---" >&2
  tail -60 "$work/up.log" >&2 || true
  exit 1
}

# start_up LU_HOST ARG...: `LU_HOST up ARG...` in the background, its log in $work/up.log.
start_up() {
  local lu_host=$1; shift
  "$lu_host" up "$@" >"$work/up.log" 2>&1 &
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
  wait "$pid" || up_exit_status=$?
}

# status_api ROUTE: GET ROUTE (/api/status) of the status page of the lu-host
# up that start_up began, with the secret it printed (not with --no-web).
status_api() {
  local url
  url=$(sed -n 's/.*up: status page \(http:[^ ]*\).*/\1/p' "$work/up.log" | head -n 1)
  [ -n "$url" ] || return 1
  curl -s --max-time 20 -H "Authorization: Bearer ${url#*\?token=}" "${url%%\?*}${1#/}"
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
