#!/bin/sh
# Builds the libFuzzer target over the liveupdate plugin ABI and runs it.
# Usage: scripts/fuzz.sh [SECONDS]   (default 60). Exits non-zero on a crash.
set -eu
seconds="${1:-60}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="$repo/build-fuzz"
corpus="$repo/tests/fuzz/corpus"
CC=clang CXX=clang++ cmake -S "$repo" -B "$build" -DLU_BUILD_FUZZ=ON -DLU_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target fuzz_engine -j2
# New inputs go to a scratch folder so the committed seed corpus stays small.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$build"
ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
  "$build/bin/fuzz_engine" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
  -print_final_stats=1 "$work" "$corpus"
