#!/bin/sh
# Builds a libFuzzer target and runs it from its seed corpus:
#   fuzz_engine          the liveupdate plugin ABI        tests/fuzz/corpus
#   fuzz_agent_frames    the lu-agent frame decoder       tests/fuzz/corpus-agent
#   fuzz_exec_frames     a pod's exec frames and Status   tests/fuzz/corpus-exec
#   fuzz_dotenv          a Compose project's .env         tests/fuzz/corpus-dotenv
#   fuzz_interpolation   Compose's ${VAR} interpolation   tests/fuzz/corpus-interpolation
#   fuzz_compose_file    a compose file through the reader tests/fuzz/corpus-compose
# Usage: scripts/fuzz.sh [SECONDS] [TARGET]   (default 60 fuzz_engine). Exits non-zero on a crash.
set -eu
seconds="${1:-60}"
target="${2:-fuzz_engine}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$repo/build-fuzz"
case "$target" in
  fuzz_engine) corpus="$repo/tests/fuzz/corpus" ;;
  fuzz_agent_frames) corpus="$repo/tests/fuzz/corpus-agent" ;;
  fuzz_exec_frames) corpus="$repo/tests/fuzz/corpus-exec" ;;
  fuzz_dotenv) corpus="$repo/tests/fuzz/corpus-dotenv" ;;
  fuzz_interpolation) corpus="$repo/tests/fuzz/corpus-interpolation" ;;
  fuzz_compose_file) corpus="$repo/tests/fuzz/corpus-compose" ;;
  *) echo "fuzz.sh: unknown target '$target' (see the head of $0)" >&2; exit 2 ;;
esac
CC=clang CXX=clang++ cmake -S "$repo" -B "$build" -DLU_BUILD_FUZZ=ON -DLU_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target "$target" -j2
# New inputs go to a scratch folder so the committed seed corpus stays small.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$build"
ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
  "$build/bin/$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
  -print_final_stats=1 "$work" "$corpus"
