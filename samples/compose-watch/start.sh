#!/usr/bin/env bash
# Starts the sample's service on the local Docker engine: with Compose v2
# (`docker compose`) from compose.yaml itself; with docker-compose v1, which
# refuses `develop:` and `name:`, from a copy without them under the same
# project name. `lu-host up samples/compose-watch` then reads compose.yaml.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock}
docker version >/dev/null 2>&1 || "$here/../../scripts/dockerd.sh" start
if docker compose version >/dev/null 2>&1; then
  docker compose -f "$here/compose.yaml" up -d
else
  v1=$(mktemp)
  trap 'rm -f "$v1"' EXIT
  awk '/^[^ #]/ { skip = 0 } /^name:/ { next } /^    develop:/ { skip = 1; next }
       skip && /^     / { next } { skip = 0; print }' "$here/compose.yaml" >"$v1"
  docker-compose -p compose-watch -f "$v1" --project-directory "$here" up -d
fi
echo "started; now run: build/bin/lu-host up samples/compose-watch"
