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

stop_up() {
  if [ -n "$up_host_pid" ]; then
    kill "$up_host_pid" 2>/dev/null || true
    wait "$up_host_pid" 2>/dev/null || true
  fi
  up_host_pid=""
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
