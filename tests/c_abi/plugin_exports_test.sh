#!/bin/sh
# Each plugin given as ENTRY=FILE exports ENTRY and nothing else
# (nm -D --defined-only): what it is built from stays inside it.
set -u
failed=0
for arg in "$@"; do
  [ -n "$arg" ] || continue  # a plugin this build does not make
  entry=${arg%%=*}
  file=${arg#*=}
  if ! symbols=$(nm -D --defined-only "$file" | awk '{ print $NF }'); then
    echo "FAIL: nm could not read $file"
    failed=1
    continue
  fi
  others=$(printf '%s\n' "$symbols" | grep -vx "$entry")
  if ! printf '%s\n' "$symbols" | grep -qx "$entry"; then
    echo "FAIL: $file does not export $entry"
    failed=1
  elif [ -n "$others" ]; then
    echo "FAIL: $file exports $(printf '%s\n' "$others" | wc -l) symbol(s) besides $entry, e.g.:"
    printf '%s\n' "$others" | head -n 5
    failed=1
  else
    echo "ok: $file exports $entry alone"
  fi
done
exit "$failed"
