#!/usr/bin/env bash
# Starts the sample's one "Compose service" on the local Docker engine: a
# busybox container carrying the labels `docker compose up` would give it
# (project compose-hello, service web). No registry and no compose file are
# needed: the image is the one scripts/dockerd.sh imports.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock}
# An engine that already answers is used as it is.
docker version >/dev/null 2>&1 || "$here/../../scripts/dockerd.sh" start
project=${COMPOSE_HELLO_PROJECT:-compose-hello}
name=${COMPOSE_HELLO_CONTAINER:-$project-web-1}
docker rm -f "$name" >/dev/null 2>&1 || true
docker run -d --network none --name "$name" \
  --label com.docker.compose.project="$project" \
  --label com.docker.compose.service=web \
  --label com.docker.compose.oneoff=False \
  --label com.docker.compose.container-number=1 \
  lu-busybox:latest \
  sh -c 'mkdir -p /app; while true; do if [ -f /tmp/last-sync ]; then cat /tmp/last-sync; fi; sleep 5; done' >/dev/null
echo "started $name; now run: build/bin/lu-host up samples/compose-hello"
