#!/usr/bin/env bash
# The updaters take lu-agent from lu-host's own layout, never from the temp
# folder the daemon loads their private copies from: an lu-agent planted
# there (any local user can write /tmp) is not copied into containers. Runs
# compose_e2e.sh with such a temp folder and reads the daemon's log.
#   agent_place_e2e.sh LU_HOST DOCKER_UPDATER_SO REPO_ROOT
set -euo pipefail
planted=$(mktemp -d)
trap 'rm -rf "$planted"' EXIT
printf '#!/bin/sh\necho planted lu-agent ran >&2\nexit 3\n' >"$planted/lu-agent"
chmod +x "$planted/lu-agent"
TMPDIR=$planted LU_LOG_LEVEL=debug LU_E2E_KEEP_LOG="$planted/up.log" "$3/tests/docker/compose_e2e.sh" "$@"
if grep -q "planted lu-agent ran" "$planted/up.log"; then
  grep "lu-agent" "$planted/up.log" | head -5
  echo "FAIL: the lu-agent planted in the temp folder was copied into the container and run"
  exit 1
fi
grep -q "Started lu-agent" "$planted/up.log" || { tail -30 "$planted/up.log"; echo "FAIL: no lu-agent started"; exit 1; }
echo "agent place: the agent came from lu-host's layout"
