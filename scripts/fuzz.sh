#!/bin/sh
# Builds a libFuzzer target and runs it from its seed corpus:
#   fuzz_engine          the liveupdate plugin ABI        tests/fuzz/corpus
#   fuzz_agent_frames    the lu-agent frame decoder       tests/fuzz/corpus-agent
#   fuzz_exec_frames     a pod's exec frames and Status   tests/fuzz/corpus-exec
#   fuzz_dotenv          a Compose project's .env         tests/fuzz/corpus-dotenv
#   fuzz_interpolation   Compose's ${VAR} interpolation   tests/fuzz/corpus-interpolation
#   fuzz_compose_file    a compose file through the reader tests/fuzz/corpus-compose
# Usage: scripts/fuzz.sh [SECONDS] [TARGET]   (default 60 fuzz_engine). Exits non-zero on a crash.
#        scripts/fuzz.sh --build TARGET...    only builds the targets, in one go
#        scripts/fuzz.sh --no-build SECONDS TARGET   only runs a target built before
# (scripts/test.sh builds all targets first, then runs two at a time: two
# runs may not configure and build the one build folder at once.)
set -eu
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$repo/build-fuzz"

# Line tables are all a crash's stack trace needs; full debug information
# would cost a fifth more compile time. The libraries are a unity build, as in
# the sanitizer trees (scripts/test.sh); Ninja builds all the targets asked
# for in one graph (a folder configured before keeps its generator).
configure_and_build() {
  CC=clang CXX=clang++ CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}" cmake -S "$repo" -B "$build" \
    -DLU_BUILD_FUZZ=ON -DLU_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
  cmake --build "$build" -j2 --target "$@"
}

case "${1:-}" in
  --build)
    shift
    configure_and_build "$@"
    exit 0
    ;;
  --no-build) shift; build_first=0 ;;
  *) build_first=1 ;;
esac
seconds="${1:-60}"
target="${2:-fuzz_engine}"
case "$target" in
  fuzz_engine) corpus="$repo/tests/fuzz/corpus" ;;
  fuzz_agent_frames) corpus="$repo/tests/fuzz/corpus-agent" ;;
  fuzz_exec_frames) corpus="$repo/tests/fuzz/corpus-exec" ;;
  fuzz_dotenv) corpus="$repo/tests/fuzz/corpus-dotenv" ;;
  fuzz_interpolation) corpus="$repo/tests/fuzz/corpus-interpolation" ;;
  fuzz_compose_file) corpus="$repo/tests/fuzz/corpus-compose" ;;
  *) echo "fuzz.sh: unknown target '$target' (see the head of $0)" >&2; exit 2 ;;
esac
if [ "$build_first" -eq 1 ]; then configure_and_build "$target"; fi
[ -x "$build/bin/$target" ] || { echo "fuzz.sh: $build/bin/$target is not built (run without --no-build)" >&2; exit 2; }
# New inputs go to a scratch folder so the committed seed corpus stays small.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A finding's input is printed compressed, so that a CI log (all a clean
# clone leaves) is enough to reproduce it: base64 -d | xz -d > input.
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
cd "$build"
status=0
ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
  "$build/bin/$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$artifacts/$target-" "$work" "$corpus" || status=$?
if [ "$status" -ne 0 ]; then
  for found in "$artifacts/$target"-*; do
    [ -f "$found" ] || continue
    echo "fuzz.sh: artifact $(basename "$found") (xz, base64): $(xz -9 -c "$found" | base64 -w0)"
  done
fi
exit "$status"
