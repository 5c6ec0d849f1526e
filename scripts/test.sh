#!/usr/bin/env bash
# Runs every test from a clean checkout on Debian 12 (as root, or with sudo):
#   1. installs the packages (scripts/install-deps.sh)
#   2. builds build/ and runs the whole CTest suite: unit, host, scenario
#      (lu-host replay), integration (lu-host up), docker (a real dockerd,
#      started by scripts/dockerd.sh and stopped again if this run started it)
#      and k8s (the single-node cluster in ../shared/k8s, likewise started and
#      stopped; without that folder those tests are reported skipped)
#   3. lints: clang-format and the include layout rules on the whole tree,
#      clang-tidy on the C and C++ files changed since the merge-base with
#      origin/main (HEAD~1 without it) (scripts/lint.sh)
#   4. builds build-asan/ with AddressSanitizer + UndefinedBehaviorSanitizer and
#      runs the unit, host and scenario tests there; any report fails the run
#   5. builds build-tsan/ with ThreadSanitizer and runs the threaded suites
#      there (watchers, hot reload, lu-host up's units, update logs); any
#      report fails the run
#   6. builds the fuzz targets with clang (build-fuzz/), and there checks the
#      locks of the daemon, hot reload and the agent driver with clang's
#      -Wthread-safety (target lu_lock_analysis, cmake/LuLockAnalysis.cmake)
#   7. runs the libFuzzer targets: the plugin ABI for 60 s, the lu-agent frame
#      decoder for 30 s; a pod's exec frames, .env, interpolation and compose
#      files for 10 s each (scripts/fuzz.sh), two at a time (one per core)
# The sanitizer and fuzz trees (steps 4 to 6, step 6's lock analysis too) are
# built in the background, niced, while step 2's tests run; they make only
# the targets their tests need, the sanitizer and fuzz trees and the lock
# analysis as unity builds (CMAKE_UNITY_BUILD: a library's sources compiled
# up to eight to a file, which parses their shared headers and emits their
# templates once for the eight; the test and fuzz executables stay one file
# at a time). build/ is no unity build: there a missing include still fails,
# and its compile_commands.json names the files clang-tidy checks. Every
# build has line tables for debug information (-g1): all that sanitizer
# reports and backtraces read, and a fifth less compile time than full -g.
# The sanitizer and fuzz trees use Ninja, which builds all the targets asked
# for in one graph: make builds them one after another, each one-file test
# executable on one core while the other idles.
# Ends with one line "tests: N passed, M failed"; exit 0 only when all passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

jobs=$(nproc)
passed=0
failed=0
failures=()
skipped=()

log_dir=$(mktemp -d)

note() { printf '\n== %s ==\n' "$*"; }

line_tables=(-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
  -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_CXX_FLAGS_DEBUG=-g1)

# Keeps the end of a failed test's output for the end of the run: CI keeps
# only the last lines, and a failure without its output cannot be diagnosed.
failure_tails="$log_dir/failure-tails.txt"
keep_failure_output() {
  local out=$1 entry=$2 dir name
  dir=$(sed -E 's/^ctest-//; s/\.log$//' <<<"$(basename "$out")")
  name=$(sed -E 's/^[0-9]+ - ([^ ]+).*/\1/' <<<"$entry")
  {
    echo "---- output of $dir: $name (last 40 lines) ----"
    awk -v name="$name" '
      $0 ~ "^[0-9]+/[0-9]+ Testing: " { on = ($3 == name) }
      on' "$dir/Testing/Temporary/LastTest.log" 2>/dev/null | tail -n 40
  } >>"$failure_tails"
}

# Adds a ctest run's counts to the totals.
count_ctest() {
  local out=$1 line total fails
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$out" | tail -n 1)
  if [ -z "$line" ]; then
    failed=$((failed + 1))
    failures+=("$out: ctest printed no summary")
    return
  fi
  # The end of the log is all CI keeps; name the failures again there.
  while IFS= read -r name; do
    failures+=("$(basename "$out" .log): $name")
    keep_failure_output "$out" "$name"
  done < <(sed -n '/^The following tests FAILED:/,$p' "$out" | grep -E '^[[:space:]]+[0-9]+ - ' | sed -E 's/^[[:space:]]+//')
  fails=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
  total=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<<"$line")
  # ctest counts a skipped test (exit 77, e.g. no cluster) as passed: it is not.
  local skips=0
  while IFS= read -r name; do
    skipped+=("$(basename "$out" .log): $name")
    skips=$((skips + 1))
  done < <(sed -n '/^The following tests did not run:/,/^$/p' "$out" | grep -E '\(Skipped\)' | sed -E 's/^[[:space:]]+//')
  passed=$((passed + total - fails - skips))
  failed=$((failed + fails))
}

run_ctest() {
  local dir=$1; shift
  local out
  out="$log_dir/ctest-$(basename "$dir").log"
  ctest --test-dir "$dir" --output-on-failure --timeout 300 "$@" 2>&1 | tee "$out"
  count_ctest "$out"
}

# Runs one check that is not a CTest suite and counts it as one test.
run_check() {
  local name=$1; shift
  note "$name"
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "test: $name found problems (see above)"
    failed=$((failed + 1))
    failures+=("$name ($*)")
  fi
}

# Configures and builds a sanitizer tree with only the given targets, its
# libraries as a unity build (about half their compile time), with Ninja (a
# folder configured before keeps the generator it has).
#   build_sanitizer_tree DIR SANITIZE TARGET...
build_sanitizer_tree() {
  local dir=$1 sanitize=$2
  shift 2
  CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}" cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DLU_SANITIZE="$sanitize" \
    -DLU_BUILD_BENCH=OFF "${line_tables[@]}" -DCMAKE_UNITY_BUILD=ON \
    && cmake --build "$dir" -j"$jobs" --target "$@"
}

# Runs a CTest selection in a sanitizer tree the background builds made
# (their log is printed first); a failed build counts as one failure.
#   sanitizer_stage DIR SANITIZE CTEST_ARGS...
sanitizer_stage() {
  local dir=$1 sanitize=$2 start
  shift 2
  note "sanitizer $sanitize ($dir/)"
  start=$(date +%s)
  cat "$log_dir/build-$dir.log"
  if [ "$(cat "$log_dir/build-$dir.rc" 2>/dev/null)" = 0 ]; then
    run_ctest "$dir" -j2 "$@"
  else
    echo "test: the $sanitize sanitizer build failed"
    failed=$((failed + 1))
    failures+=("the $sanitize sanitizer build ($dir/)")
  fi
  echo "$dir stage took $(( $(date +%s) - start )) s"
}

note "install packages"
scripts/install-deps.sh || { echo "test: installing packages failed"; exit 1; }

note "build (build/)"
start=$(date +%s)
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "${line_tables[@]}" && cmake --build build -j"$jobs"; }; then
  echo "test: the build failed"
  echo "tests: 0 passed, 1 failed"
  exit 1
fi
echo "build took $(( $(date +%s) - start )) s"

# The executables (and the plugins and lu-host they run) of the tests labelled
# unit, host and scenario. A test added to those labels without its target
# here shows as "Not Run" in this stage: add the target.
asan_targets=(
  lu-host liveupdate updater_record lu_test_wrong_abi_plugin lu_test_by_container_updater step_v1_replay
  up_warm_up_tests up_log_tests
  liveupdate_unit_tests liveupdate_abi_tests host_unit_tests host_tests
  c_abi_headers c_abi_tests updater_helper_tests
  up_unit_tests up_watcher_tests up_save_patterns_tests
  reload_unit_tests reload_host_tests web_unit_tests
  test_docker_units test_compose_status test_kubeconfig compose_units_test yaml_objects_test
  agent_protocol_test lu_agent_test agent_file_writes_test request_pipeline_test agent_delta_test agent_driver_test agent_socket_test lu_agent_supervise_test lu_agent_watch_test agent_sync_back_client_test
  lu_agent_guard_test agent_guarded_update_test verify_unit_tests verify_digest_header_c11 verify_sync_targets_header_c11 verify_sync_back_header_c11
  subprocess_test yaml_load_test bounded_child_test pod_agents_test pod_state_test exec_gate_test line_splitter_test delta_test
  open_beneath_test
  tree_digest_test file_hash_test tar_reader_test sync_back_test local_sync_back_test sync_back_watches_test beneath_files_test
  came_back_test
  left_temporaries_test forward_guard_test left_alone_test agent_start_failure_test api_stream_test
  webhook_unit_tests
  webhook_host_tests operator_unit_tests
)
# The suites whose code runs on several threads: the file watchers, hot
# reload, lu-host up's debouncer and queues, updates logging from their own
# threads, one change's updates fanned out to the kept update threads, the
# forward guard called from an updater's threads, and sync back's held
# reports judged on a thread of their own.
# (up_watcher_machine_limits lowers machine-wide limits: not here.)
tsan_targets=(up_unit_tests up_watcher_tests up_save_patterns_tests reload_unit_tests reload_host_tests c_abi_tests forward_guard_test local_sync_back_test
  host_tests)
tsan_tests='^(up_unit_tests|up_watcher_tests|up_save_patterns|reload_unit_tests|reload_host_tests|c_abi_tests|host_tests|forward_guard|local_sync_back)$'
# Seconds, target, what it fuzzes.
fuzz_runs=(
  "60 fuzz_engine the plugin ABI"
  "30 fuzz_agent_frames the lu-agent frame decoder"
  "10 fuzz_exec_frames a pod's exec frames"
  "10 fuzz_dotenv the .env parser"
  "10 fuzz_interpolation Compose interpolation"
  "10 fuzz_compose_file compose files"
)
fuzz_targets=()
for run in "${fuzz_runs[@]}"; do read -r _ target _ <<<"$run"; fuzz_targets+=("$target"); done

# The sanitizer and fuzz trees are built while the tests below run, at the
# lowest priority: the tests mostly wait on containers and the cluster, and
# what they leave of the two cores builds these (about ten minutes of a
# 45-minute run). Each build's output and exit code are kept for its stage.
note "sanitizer and fuzz builds (in the background, niced, while the tests run)"
(
  renice -n 19 -p "$BASHPID" >/dev/null
  start=$(date +%s)
  build_sanitizer_tree build-asan ON "${asan_targets[@]}" >"$log_dir/build-build-asan.log" 2>&1
  echo $? >"$log_dir/build-build-asan.rc"
  build_sanitizer_tree build-tsan thread "${tsan_targets[@]}" >"$log_dir/build-build-tsan.log" 2>&1
  echo $? >"$log_dir/build-build-tsan.rc"
  scripts/fuzz.sh --build "${fuzz_targets[@]}" >"$log_dir/build-build-fuzz.log" 2>&1 \
    || echo "test: building the fuzz targets failed" >>"$log_dir/build-build-fuzz.log"
  cmake --build build-fuzz -j"$jobs" --target lu_lock_analysis >"$log_dir/lock-analysis.log" 2>&1
  echo $? >"$log_dir/lock-analysis.rc"
  echo "background builds took $(( $(date +%s) - start )) s" >>"$log_dir/build-build-fuzz.log"
) &
background_builds=$!

note "docker engine"
docker_started=0
if scripts/dockerd.sh start; then
  docker_started=1
else
  echo "test: could not start a Docker engine; the docker tests will fail"
fi

note "kubernetes cluster"
k8s_dir="$(cd .. && pwd)/shared/k8s"
k8s_started=0
if [ ! -x "$k8s_dir/cluster.sh" ]; then
  echo "SKIPPED: no cluster: $k8s_dir not found; the k8s tests report themselves skipped"
elif "$k8s_dir/cluster.sh" status >/dev/null 2>&1; then
  echo "the cluster runs already; it is left running"
elif "$k8s_dir/cluster.sh" start >/dev/null; then
  k8s_started=1
else
  echo "test: could not start the Kubernetes cluster; the k8s tests will fail"
fi

note "tests (build/)"
start=$(date +%s)
run_ctest build -j2
echo "tests took $(( $(date +%s) - start )) s"

[ "$docker_started" -eq 1 ] && scripts/dockerd.sh stop
[ "$k8s_started" -eq 1 ] && "$k8s_dir/cluster.sh" stop

run_check "lint" scripts/lint.sh

note "waiting for the background builds"
start=$(date +%s)
wait "$background_builds"
echo "waited $(( $(date +%s) - start )) s"

# A report exits with a code no test expects (several expect lu-host's 1).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87
# (plugin_exports reads every shipped plugin: build/ made them all, this tree a few.
# lu_agent_watch_storm rewrites 50,000 files: the sanitized lu-agent takes
# minutes over it, past its patience; it runs in build/.)
sanitizer_stage build-asan ON -L 'unit|host|scenario' -E '^(plugin_exports|lu_agent_watch_storm)$'

export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:exitcode=88
sanitizer_stage build-tsan thread -R "$tsan_tests"

note "fuzz targets (build-fuzz/)"
# A failed build shows again in each run below, which then fails.
cat "$log_dir/build-build-fuzz.log"
# What the locks say they guard, proved by clang in the folder fuzz.sh
# configured (built with the background builds: its output and exit code).
lock_analysis() { cat "$log_dir/lock-analysis.log"; [ "$(cat "$log_dir/lock-analysis.rc" 2>/dev/null)" = 0 ]; }
run_check "clang thread-safety analysis (build-fuzz/)" lock_analysis

# Each run keeps its full duration, corpus and scratch folder; its output is
# printed when it ends (two at once would interleave), and counts as one test.
declare -A fuzz_name_of fuzz_log_of
fuzz_running=0
end_one_fuzz_run() {
  local pid rc
  wait -n -p pid
  rc=$?
  fuzz_running=$((fuzz_running - 1))
  note "${fuzz_name_of[$pid]}"
  cat "${fuzz_log_of[$pid]}"
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
  else
    echo "test: ${fuzz_name_of[$pid]} found problems (see above)"
    failed=$((failed + 1))
    failures+=("${fuzz_name_of[$pid]} (exit $rc, see above)")
    # What found it and the input that did, where CI's tail keeps them.
    {
      echo "--- ${fuzz_name_of[$pid]}: the report and its input"
      grep -E -A12 '==ERROR|invariant broken|runtime error|deadly signal|out-of-memory|Test unit written|fuzz.sh: artifact' \
        "${fuzz_log_of[$pid]}" | grep -v -E '^#[0-9]+[[:space:]]' | head -n 60
    } >>"$failure_tails"
  fi
}
start=$(date +%s)
for run in "${fuzz_runs[@]}"; do
  read -r seconds target what <<<"$run"
  [ "$fuzz_running" -ge 2 ] && end_one_fuzz_run
  scripts/fuzz.sh --no-build "$seconds" "$target" >"$log_dir/$target.log" 2>&1 &
  fuzz_name_of[$!]="fuzzing $what ($seconds s)"
  fuzz_log_of[$!]="$log_dir/$target.log"
  fuzz_running=$((fuzz_running + 1))
done
while [ "$fuzz_running" -gt 0 ]; do end_one_fuzz_run; done
echo "fuzz runs took $(( $(date +%s) - start )) s"

echo
[ -f "$failure_tails" ] && cat "$failure_tails"
rm -rf "$log_dir"
for f in "${skipped[@]}"; do echo "skipped (not counted as passed): $f"; done
for f in "${failures[@]}"; do echo "failed: $f"; done
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
