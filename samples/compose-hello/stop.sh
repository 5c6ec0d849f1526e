#!/usr/bin/env bash
# Removes the sample's container. The engine keeps running; `scripts/dockerd.sh
# stop` stops it if that script started it.
set -euo pipefail
export DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock}
project=${COMPOSE_HELLO_PROJECT:-compose-hello}
docker rm -f "${COMPOSE_HELLO_CONTAINER:-$project-web-1}" >/dev/null 2>&1 || true
