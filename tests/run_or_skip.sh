#!/bin/sh
# Runs a test whose precondition may not hold on this machine; when it does
# not, says why and exits 77, which the test's SKIP_RETURN_CODE makes CTest
# (and scripts/test.sh) count as skipped, not passed.
#   run_or_skip.sh CONDITION WHY COMMAND [ARG...]   (CONDITION: a shell test)
condition=$1 why=$2
shift 2
if ! sh -c "$condition"; then
  echo "SKIPPED: $why"
  exit 77
fi
exec "$@"
