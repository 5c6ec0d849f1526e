#!/usr/bin/env bash
# Lints the C, C++ and shell files of the repository; exits non-zero on any finding.
#   scripts/lint.sh                 clang-tidy on the files changed against the
#                                   merge-base with origin/main (HEAD~1 without
#                                   origin/main, or on main itself), plus
#                                   uncommitted changes
#   scripts/lint.sh --base REV      clang-tidy on the files changed against REV
#   scripts/lint.sh --all           clang-tidy on every C and C++ file
# Whatever the option, three checks cover the whole tree (they take seconds):
#   - clang-format (.clang-format): every file as a whole fails the check;
#     the changed files get the full diagnostics, the others are named
#   - the layout rules for includes (README.md): host/ never includes plugin/
#     or updaters/; plugin/, updaters/, agent/ and common/ never include host/;
#     common/ includes no component (plugin/, updaters/, agent/, host/); sdk/
#     includes nothing of the repository but sdk/; no include climbs with ../
#   - shellcheck (.shellcheckrc) on every shell script: the *.sh files and
#     those whose first line names sh or bash
# clang-tidy reads build/compile_commands.json (configure build/ first); a
# file without an entry there (a header, a file of a disabled target) is
# checked through the files that include it, or not at all.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

base=""
all=0
build_dir=build
while [ $# -gt 0 ]; do
  case $1 in
    --all) all=1 ;;
    --base) base=${2:?--base needs a revision}; shift ;;
    --build-dir) build_dir=${2:?--build-dir needs a folder}; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "lint: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

for tool in clang-format clang-tidy shellcheck; do
  command -v "$tool" >/dev/null || { echo "lint: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
done

sources_regex='\.(c|cc|cpp|h|hpp)$'
# Data, not code: the fuzz corpora.
excluded_regex='^tests/fuzz/corpus'

mapfile -t tree < <(git ls-files | grep -E "$sources_regex" | grep -vE "$excluded_regex")
if [ "$all" -eq 1 ]; then
  files=("${tree[@]}")
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

findings=0

# Formatting, of the whole tree: the files clang-format would change.
echo "lint: clang-format on ${#tree[@]} file(s)"
# One clang-format for many files, its diagnostics read for their file names
# (in one stream: parallel runs would interleave their lines).
mapfile -t unformatted < <(comm -12 <(printf '%s\0' "${tree[@]}" | xargs -0 clang-format --dry-run 2>&1 |
  sed -nE 's/^([^ :]+):[0-9]+:[0-9]+: (warning|error): code should be clang-formatted.*/\1/p' | sort -u) \
  <(printf '%s\n' "${tree[@]}" | sort))
if [ ${#unformatted[@]} -gt 0 ]; then
  mapfile -t changed_unformatted < <(comm -12 <(printf '%s\n' "${unformatted[@]}") <(printf '%s\n' "${files[@]}" | sort -u))
  [ ${#changed_unformatted[@]} -gt 0 ] && clang-format --dry-run "${changed_unformatted[@]}"
  others=$((${#unformatted[@]} - ${#changed_unformatted[@]}))
  if [ "$others" -gt 0 ]; then
    echo "lint: $others file(s) not changed here differ from clang-format too:"
    comm -23 <(printf '%s\n' "${unformatted[@]}") <(printf '%s\n' "${files[@]}" | sort -u) | sed 's/^/  /' | head -n 20
    [ "$others" -gt 20 ] && echo "  ..."
  fi
  echo "lint: ${#unformatted[@]} file(s) differ from clang-format (apply: clang-format -i FILE...)"
  findings=$((findings + 1))
fi

# Layout: FOLDER, then the extended regex of the include prefixes it must not use.
layout_rules=(
  "host" "plugin|updaters"
  "plugin" "host"
  "updaters" "host"
  "agent" "host"
  "common" "plugin|updaters|agent|host"
  "sdk" "common|plugin|updaters|agent|host"
)
layout_log=$(mktemp)
for ((i = 0; i < ${#layout_rules[@]}; i += 2)); do
  folder=${layout_rules[i]}
  forbidden=${layout_rules[i + 1]}
  printf '%s\n' "${tree[@]}" | grep "^$folder/" | tr '\n' '\0' |
    xargs -0 -r grep -HnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($forbidden)/" |
    sed "s|\$|   ($folder/ never includes ${forbidden//|/\/, }/)|" >>"$layout_log"
done
printf '%s\0' "${tree[@]}" | xargs -0 grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\.?/' |
  sed 's|$|   (includes are spelled from the repository root)|' >>"$layout_log"
if [ -s "$layout_log" ]; then
  cat "$layout_log"
  echo "lint: $(wc -l <"$layout_log") include(s) break the layout rules (see --help)"
  findings=$((findings + 1))
fi
rm -f "$layout_log"

# Shell scripts, of the whole tree, by name or by their first line (git grep
# finds the few files with such a line anywhere; their first line decides).
shebang='^#!.*[/ ](ba)?sh$'
mapfile -t shell_scripts < <(git ls-files -- '*.sh'
  git grep -lIE "$shebang" -- ':!*.sh' | while read -r file; do
    head -n 1 "$file" | grep -qE "$shebang" && echo "$file"
  done)
echo "lint: shellcheck on ${#shell_scripts[@]} file(s)"
if ! shellcheck -f gcc "${shell_scripts[@]}"; then
  echo "lint: shellcheck findings (fix, or disable one inline saying why: # shellcheck disable=SCxxxx  # why)"
  findings=$((findings + 1))
fi

# Static analysis of the given files, those compile_commands.json knows;
# non-zero on a finding.
tidy() {
  local database compiled tidy_db tidy_log tidy_status
  database="$build_dir/compile_commands.json"
  if [ ! -f "$database" ]; then
    echo "lint: $database not found: configure $build_dir first (cmake -S . -B $build_dir)" >&2
    exit 2
  fi
  mapfile -t compiled < <(python3 - "$database" "$@" <<'EOF'
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
    return "$tidy_status"
  fi
  return 0
}

if [ ${#files[@]} -eq 0 ]; then
  echo "lint: no C or C++ file changed${base:+ since $base}: no clang-tidy"
else
  echo "lint: ${#files[@]} file(s)${base:+ changed since $(git rev-parse --short "$base")}"
  tidy "${files[@]}" || findings=$((findings + 1))
fi

if [ "$findings" -gt 0 ]; then
  echo "lint: findings (see above)"
  exit 1
fi
echo "lint: clean"
