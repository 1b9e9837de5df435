#!/usr/bin/env bash
# Style and static checks over our own C++ (analyzer/, rules/, tests/, bench/; never grammars/ or
# generated files).
#   scripts/lint.sh format              clang-format --dry-run -Werror (.clang-format)
#   scripts/lint.sh tidy BUILD [FILE..] clang-tidy (.clang-tidy) with BUILD/compile_commands.json,
#                                       over FILE.. or every .cpp of ours; headers through them
# JOBS (default 2) parallel clang-tidy processes.
set -euo pipefail
cd "$(dirname "$0")/.."

sources() {  # our C++ files matching the given extensions, sorted
  local pattern=$1
  find analyzer rules tests bench -type f -regextype posix-extended -regex ".*\.($pattern)" | LC_ALL=C sort
}

find_tool() {
  for t in "$@"; do command -v "$t" >/dev/null 2>&1 && { echo "$t"; return 0; }; done
  echo "lint: none of $* is installed (make setup-check installs them)" >&2
  exit 2
}

mode=${1:-}
case "$mode" in
  format)
    cf=$(find_tool clang-format-14 clang-format)
    mapfile -t files < <(sources 'cpp|hpp|h')
    "$cf" --dry-run -Werror "${files[@]}"
    echo "clang-format: ${#files[@]} files formatted"
    ;;
  tidy)
    build=${2:?usage: scripts/lint.sh tidy BUILD [FILE...]}
    shift 2
    [ -f "$build/compile_commands.json" ] || { echo "lint: $build/compile_commands.json missing (make build)" >&2; exit 2; }
    ct=$(find_tool clang-tidy-14 clang-tidy)
    if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(sources 'cpp'); fi
    jobs=${JOBS:-2}
    start=$(date +%s)
    # One clang-tidy per file, JOBS at a time; each prints its findings, the first failure is
    # remembered. --quiet hides the "N warnings generated" counts of system headers. A build
    # configured with GCC may pass flags clang does not know (-Wno-maybe-uninitialized in the
    # sanitizer build): those are not findings.
    printf '%s\n' "${files[@]}" |
      xargs -P "$jobs" -I{} sh -c "'$ct' -p '$build' --quiet --extra-arg=-Wno-unknown-warning-option '{}' 2>/dev/null || { echo 'clang-tidy: findings in {}'; exit 1; }"
    echo "clang-tidy: ${#files[@]} files clean in $(( $(date +%s) - start ))s"
    ;;
  *)
    echo "usage: scripts/lint.sh format | tidy BUILD [FILE...]" >&2
    exit 2
    ;;
esac
