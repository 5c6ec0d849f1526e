# Helpers of the Compose end-to-end tests: $project, $shop, $work and
# $host_pid are set by the caller.

fail() {
  echo "FAIL: $*" >&2
  echo "--- lu-host log ---" >&2
  tail -60 "$work/up.log" >&2 || true
  exit 1
}

# The compose file without develop: and name: (docker-compose 1.29 refuses them).
without_develop() {
  awk '
    /^[^ #]/ { skip = 0 }
    /^name:/ { next }
    /^    develop:/ { skip = 1; next }
    skip && /^     / { next }
    { skip = 0; print }
  ' "$1"
}

compose_v1() {
  without_develop "$shop/compose.yaml" >"$work/compose.v1.yaml"
  docker-compose -p "$project" -f "$work/compose.v1.yaml" --project-directory "$shop" "$@"
}

# The running containers of a service, by the labels Compose sets.
service_containers() {
  docker ps -q --no-trunc --filter "label=com.docker.compose.project=$project" \
    --filter "label=com.docker.compose.service=$1" | sort
}

in_container() { local c=$1; shift; docker exec "$c" "$@"; }
started_at() { docker inspect -f '{{.State.StartedAt}}' "$1"; }

# wait_until WHAT CONDITION [TENTHS_OF_A_SECOND]
wait_until() {
  local what=$1 condition=$2 tries=${3:-300}
  for _ in $(seq 1 "$tries"); do
    eval "$condition" && return 0
    sleep 0.1
  done
  fail "timed out: $what"
}

wait_for_content() {
  local c=$1 path=$2 expected=$3
  for _ in $(seq 1 300); do
    [ "$(docker exec "$c" cat "$path" 2>/dev/null || true)" = "$expected" ] && return 0
    sleep 0.1
  done
  fail "$path in ${c:0:12} never became: $expected (is: $(docker exec "$c" cat "$path" 2>&1 || true))"
}

# Absent after a moment (a change that must not sync).
wait_absent() {
  sleep 0.5
  if docker exec "$1" test -e "$2"; then fail "$2 should not be in ${1:0:12}"; fi
}

wait_for_log() {
  for _ in $(seq 1 150); do
    grep -q -- "$1" "$work/up.log" && return 0
    sleep 0.1
  done
  fail "the log never said: $1"
}
