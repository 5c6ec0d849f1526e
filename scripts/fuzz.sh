#!/bin/sh
# Builds a libFuzzer target and runs it: fuzz_engine (the liveupdate plugin ABI,
# corpus tests/fuzz/corpus) or fuzz_agent_frames (the lu-agent frame decoder,
# corpus tests/fuzz/corpus-agent).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET]   (default 60 fuzz_engine). Exits non-zero on a crash.
set -eu
seconds="${1:-60}"
target="${2:-fuzz_engine}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$repo/build-fuzz"
case "$target" in
  fuzz_engine) corpus="$repo/tests/fuzz/corpus" ;;
  fuzz_agent_frames) corpus="$repo/tests/fuzz/corpus-agent" ;;
  *) echo "fuzz.sh: unknown target '$target' (fuzz_engine, fuzz_agent_frames)" >&2; exit 2 ;;
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
