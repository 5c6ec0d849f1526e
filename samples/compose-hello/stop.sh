#!/usr/bin/env bash
# Removes the sample's container and lets scripts/dockerd.sh stop the engine
# if it started it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock}
docker rm -f "${COMPOSE_HELLO_CONTAINER:-compose-hello-web-1}" >/dev/null 2>&1 || true
"$here/../../scripts/dockerd.sh" stop
