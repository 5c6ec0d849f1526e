#!/usr/bin/env bash
# `lu-host up -f compose.yaml` with an alias bomb (1 KiB of nested anchors,
# ${NOPE} scalars) as its compose file: the file is refused with a clear
# error, the daemon keeps answering, picks up the fixed file, refuses the
# bomb again when it comes back, and SIGTERM during the read of a large file
# stops it with exit code 0 without waiting for the read.
# No container is involved: the project has no develop.watch.
# Usage: compose_alias_bomb_e2e.sh LU_HOST
set -euo pipefail
lu_host=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=compose_test_lib.sh
. "$here/compose_test_lib.sh"
compose_e2e_start ""  # no project to take down: no container runs
mkdir -p "$shop"

write_bomb() {
  {
    printf 'x-a0: &a0 ["${NOPE}", "${NOPE}", "${NOPE}", "${NOPE}", "${NOPE}", "${NOPE}", "${NOPE}", "${NOPE}", "${NOPE}"]\n'
    for level in 1 2 3 4 5 6 7 8; do
      prev="*a$((level - 1))"
      printf 'x-a%d: &a%d [%s, %s, %s, %s, %s, %s, %s, %s, %s]\n' "$level" "$level" \
        "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev"
    done
    printf 'services:\n  web:\n    image: lu-busybox\n'
  } >"$shop/compose.yaml.new"
  mv "$shop/compose.yaml.new" "$shop/compose.yaml"
}
write_good() {
  printf 'services:\n  web:\n    image: lu-busybox\n' >"$shop/compose.yaml.new"
  mv "$shop/compose.yaml.new" "$shop/compose.yaml"
}
count_in_log() { grep -c -- "$1" "$work/up.log" || true; }
wait_for_count() {  # wait_for_count PATTERN N
  pattern=$1 count=$2
  wait_until "$count log line(s) saying: $pattern" '[ "$(count_in_log "$pattern")" -ge "$count" ]'
}
answers() { "$lu_host" get liveupdates --control-socket "$work/control.sock" >/dev/null; }

write_bomb
start_up "$lu_host" -p lubomb$$ -f "$shop/compose.yaml" --control-socket "$work/control.sock" --debounce 20
refused="compose.yaml:7:[0-9]*: too many aliases (the document expands to more than 1000000 nodes)"
wait_for_count "$refused" 1
wait_until "the control socket answers" answers
echo "ok: the bomb is refused and the daemon answers"

write_good
wait_for_count "Compose project lubomb$$, 0 object(s)" 1
echo "ok: the fixed file is picked up"

write_bomb
wait_for_count "$refused" 2
answers || fail "the control socket stopped answering"
echo "ok: the bomb is refused again"

# A large file (14 MB, seconds to read) being read when SIGTERM comes: the
# read is abandoned, not waited for.
{
  printf 'x-data:\n'
  awk 'BEGIN { for (i = 0; i < 990000; i++) print "  - \"${NOPE}\"" }'
  printf 'services:\n  web:\n    image: lu-busybox\n'
} >"$shop/compose.yaml.new"
mv "$shop/compose.yaml.new" "$shop/compose.yaml"
wait_for_count "changed, reloading the Compose project" 3
kill -TERM "$up_host_pid"
status=0
wait "$up_host_pid" || status=$?
up_host_pid=""
[ "$status" -eq 0 ] || fail "lu-host up exited with $status after SIGTERM"
grep -q "up: stopped" "$work/up.log" || fail "lu-host up did not stop cleanly"
# With a position when the read in this process was cut; without one when the
# parse was still in its bounded child (common/bounded_child), killed then.
grep -qE "compose.yaml:([0-9]+:[0-9]+:)? reading abandoned: the process is stopping" "$work/up.log" ||
  fail "the large file was read to its end before stopping"
echo "ok: SIGTERM during a long read stops it with exit code 0"
