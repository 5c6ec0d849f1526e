#!/usr/bin/env bash
# Lints the C and C++ files changed against a base with the repository's
# .clang-format and .clang-tidy; exits non-zero on any finding.
#   scripts/lint.sh                 changed against the merge-base with origin/main
#                                   (HEAD~1 without origin/main, or on main itself),
#                                   plus uncommitted changes
#   scripts/lint.sh --base REV      changed against REV
#   scripts/lint.sh --all           every C and C++ file of the repository
# Formatting is checked on the changed lines only (clang-format-diff), so that
# a change is not held to lines it did not touch; --all checks whole files.
# clang-tidy reads build/compile_commands.json (configure build/ first); a
# file without an entry there (a header, a file of a disabled target) is
# checked through the files that include it, or not at all.
set -uo pipefail
cd "$(dirname "$0")/.."

base=""
all=0
build_dir=build
while [ $# -gt 0 ]; do
  case $1 in
    --all) all=1 ;;
    --base) base=${2:?--base needs a revision}; shift ;;
    --build-dir) build_dir=${2:?--build-dir needs a folder}; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "lint: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

for tool in clang-format clang-format-diff clang-tidy; do
  command -v "$tool" >/dev/null || { echo "lint: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
done

sources_regex='\.(c|cc|cpp|h|hpp)$'
# Data, not code: the fuzz corpora.
excluded_regex='^tests/fuzz/corpus'

if [ "$all" -eq 1 ]; then
  mapfile -t files < <(git ls-files | grep -E "$sources_regex" | grep -vE "$excluded_regex")
else
  if [ -z "$base" ]; then
    if git rev-parse -q --verify origin/main >/dev/null; then
      base=$(git merge-base HEAD origin/main)
    fi
    # On main itself (a clone CI makes) the merge-base is HEAD: the last
    # commit is then the change to check.
    if [ -z "$base" ] || [ "$(git rev-parse "$base")" = "$(git rev-parse HEAD)" ]; then
      base=HEAD~1
    fi
  fi
  git rev-parse -q --verify "$base^{commit}" >/dev/null || { echo "lint: no revision $base" >&2; exit 2; }
  # Committed and uncommitted changes alike; deleted files have nothing to lint.
  mapfile -t files < <(git diff --name-only --diff-filter=d "$base" -- | grep -E "$sources_regex" | grep -vE "$excluded_regex")
fi

if [ ${#files[@]} -eq 0 ]; then
  echo "lint: no C or C++ file changed${base:+ since $base}"
  exit 0
fi
echo "lint: ${#files[@]} file(s)${base:+ changed since $(git rev-parse --short "$base")}"

findings=0

# Formatting.
if [ "$all" -eq 1 ]; then
  if ! clang-format --dry-run --Werror "${files[@]}"; then findings=$((findings + 1)); fi
else
  format_diff=$(git diff -U0 --no-color "$base" -- "${files[@]}" | clang-format-diff -p1 -regex '.*')
  if [ -n "$format_diff" ]; then
    echo "$format_diff"
    echo "lint: clang-format would change the lines above (apply: git diff -U0 $base | clang-format-diff -p1 -i)"
    findings=$((findings + 1))
  fi
fi

# Static analysis, on the files compile_commands.json knows.
database="$build_dir/compile_commands.json"
if [ ! -f "$database" ]; then
  echo "lint: $database not found: configure $build_dir first (cmake -S . -B $build_dir)" >&2
  exit 2
fi
mapfile -t compiled < <(python3 - "$database" "${files[@]}" <<'EOF'
import json, os, sys
known = {os.path.realpath(entry["file"]) for entry in json.load(open(sys.argv[1]))}
for name in sys.argv[2:]:
    if os.path.realpath(name) in known:
        print(name)
EOF
)
if [ ${#compiled[@]} -gt 0 ]; then
  echo "lint: clang-tidy on ${#compiled[@]} file(s)"
  # The build may be GCC's: clang-tidy reads the same commands without the
  # flags only GCC knows.
  tidy_db=$(mktemp -d)
  python3 - "$database" "$tidy_db/compile_commands.json" <<'EOF'
import json, sys
gcc_only = {"-fno-gnu-unique"}
entries = json.load(open(sys.argv[1]))
for entry in entries:
    entry["command"] = " ".join(word for word in entry["command"].split(" ") if word not in gcc_only)
json.dump(entries, open(sys.argv[2], "w"))
EOF
  tidy_log=$(mktemp)
  printf '%s\n' "${compiled[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$tidy_db" --quiet >"$tidy_log" 2>&1
  tidy_status=$?
  # clang-tidy prints "N warnings generated." for what it suppressed; only findings matter.
  grep -vE '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Use -system-headers' "$tidy_log"
  rm -rf "$tidy_log" "$tidy_db"
  [ "$tidy_status" -eq 0 ] || findings=$((findings + 1))
fi

if [ "$findings" -gt 0 ]; then
  echo "lint: findings (see above)"
  exit 1
fi
echo "lint: clean"
