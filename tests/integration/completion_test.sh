#!/usr/bin/env bash
# `lu-host completion bash|zsh`: the scripts load, and bash, driven as
# readline drives it (COMP_WORDS, COMP_CWORD), completes a subcommand, a
# flag, a fixed operand and the LiveUpdate names of a running `lu-host up`.
#   completion_test.sh LU_HOST
set -euo pipefail
lu_host=$(realpath "$1")
work=$(mktemp -d)
daemon=""
cleanup() {
  if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$lu_host" completion bash >"$work/lu-host.bash"
bash -n "$work/lu-host.bash" || fail "bash -n refuses the bash script"

# complete_words WORD...: what the script offers for the last word, one a line.
complete_words() {
  PATH="$(dirname "$lu_host"):$PATH" bash --norc --noprofile -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _lu_host
    printf "%s\n" "${COMPREPLY[@]}"' _ "$work/lu-host.bash" "$@"
}
expect() {
  local want=$1 got
  shift
  got=$(complete_words "$@" | tr '\n' ' ')
  [ "$got" = "$want " ] || fail "completing [$*]: want \"$want\", got \"$got\""
}

registered=$(bash --norc --noprofile -c 'source "$1"; complete -p lu-host' _ "$work/lu-host.bash")
[[ "$registered" == *"-F _lu_host"*" lu-host" ]] || fail "complete -p lu-host: $registered"

expect "trigger" lu-host tri
expect "crds completion" lu-host c
expect "replay" lu-host --log-level debug rep
expect "debug" lu-host --log-level de
expect "--dump" lu-host replay --du
expect "--delete-extra" lu-host verify --fix --del
expect "--no-verify-after-loss --no-web" lu-host up --no-
expect "liveupdate" lu-host verify ""
expect "install" lu-host webhook ins
expect "liveupdates" lu-host get liveu
expect "" lu-host get liveupdates ""

# LiveUpdate names from the running daemon, found as `lu-host get` finds it.
mkdir -p "$work/app/src" "$work/app/container"
cat >"$work/app/objects.json" <<'JSON'
{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "src"},
   "spec": {"watchedPaths": ["src"]}},
  {"apiVersion": "liveupdate.dev/v1alpha1", "kind": "LocalContainer", "metadata": {"name": "box"},
   "spec": {"root": "container"}},
  {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "web-frontend"},
   "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}], "selector": {"local": {"container": "box"}},
            "syncs": [{"localPath": "src", "containerPath": "/app"}]}},
  {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "web-backend"},
   "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}], "selector": {"local": {"container": "box"}},
            "syncs": [{"localPath": "src", "containerPath": "/api"}]}}
]}
JSON
export LU_HOST_CONTROL_SOCKET="$work/control.sock"
"$lu_host" up --no-web --state-dir "$work/state" "$work/app/objects.json" >"$work/up.log" 2>&1 &
daemon=$!
for _ in $(seq 100); do
  "$lu_host" completion liveupdates >/dev/null 2>&1 && break
  sleep 0.1
done
expect "web-backend web-frontend" lu-host trigger web-
expect "web-frontend" lu-host trigger web-backend web-f
expect "web-backend" lu-host describe liveupdate web-b
expect "web-frontend" lu-host verify liveupdate web-f
kill "$daemon" && wait "$daemon" 2>/dev/null || true
daemon=""
expect "" lu-host trigger web-

if command -v zsh >/dev/null; then
  "$lu_host" completion zsh >"$work/_lu-host"
  zsh -n "$work/_lu-host" || fail "zsh -n refuses the zsh script"
  bound=$(zsh -f -c 'autoload -U compinit && compinit -u -d "$2/zcompdump" && source "$1" && print -r -- $_comps[lu-host]' \
    _ "$work/_lu-host" "$work")
  [ "$bound" = "_lu_host" ] || fail "zsh: lu-host is completed by \"$bound\", not _lu_host"
else
  echo "zsh is not installed: its script is not checked"
fi

[ "$failures" -eq 0 ] || { cat "$work/up.log"; exit 1; }
echo "completion: all checks passed"
