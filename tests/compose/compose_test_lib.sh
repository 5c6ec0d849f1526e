# shellcheck shell=bash
# Helpers of the Compose end-to-end tests, on top of
# tests/integration/up_e2e_lib.sh (sourced here): compose_e2e_start sets
# $project, $work and $shop.
# shellcheck source=../integration/up_e2e_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/up_e2e_lib.sh"

# compose_e2e_start [PROJECT [DOWN_OPTION...]]: the opening of every Compose
# e2e script. Sets $project (PROJECT; empty for a script without containers),
# $work (a temporary folder) and $shop (the project folder inside it, for the
# script to make), and an exit trap that stops `lu-host up`, takes PROJECT
# down (`docker-compose down -t 0 DOWN_OPTION...`) and removes $work; a crash
# of `lu-host up` at its stop fails the script.
compose_e2e_start() {
  project=${1:-}
  compose_down_options=("${@:2}")
  export DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock}
  work=$(mktemp -d)
  shop=$work/shop
  trap compose_e2e_cleanup EXIT
}

compose_e2e_cleanup() {
  local status=$?
  stop_up || status=1
  if [ -n "$project" ]; then
    compose_v1 down -t 0 "${compose_down_options[@]}" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit "$status"
}

# The compose file without develop:, x-develop: and name: (docker-compose 1.29
# refuses them).
without_develop() {
  awk '
    /^[^ #]/ { skip = 0 }
    /^name:/ { next }
    /^    (x-)?develop:/ { skip = 1; next }
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

wait_for_content() { wait_for_file_content "$2" "$3" docker exec "$1" cat; }

# absent_after_marker CONTAINER PATH LOCAL_DIR CONTAINER_DIR: PATH (a change
# that must not sync) is not in the container once a marker written after it
# into LOCAL_DIR (a synced folder whose *.txt files sync) has arrived in
# CONTAINER_DIR: what was written before the marker has been dealt with.
markers_written=0
absent_after_marker() {
  local container=$1 path=$2 local_dir=$3 container_dir=$4 marker
  markers_written=$((markers_written + 1))
  marker=absent-marker-$markers_written.txt
  echo "$marker" >"$local_dir/$marker"
  wait_for_content "$container" "$container_dir/$marker" "$marker"
  if docker exec "$container" test -e "$path"; then fail "$path should not be in ${container:0:12}"; fi
}

wait_for_log() {
  for _ in $(seq 1 150); do
    grep -q -- "$1" "$work/up.log" && return 0
    sleep 0.1
  done
  fail "the log never said: $1"
}
