#!/usr/bin/env bash
# Runs trl-lint over one fixture project in every output format (and --statistics) and compares
# each output with expected.<format> in the fixture folder. The SARIF source root, an absolute
# path of this machine, is replaced by file:///SRCROOT/.
# TRL_LINT_UPDATE_GOLDEN=1 rewrites the expected files instead (review the diff before committing).
set -u
# An activated environment would decide the installed versions (python_environment.hpp).
unset VIRTUAL_ENV CONDA_PREFIX
bin=$1
dir=$2
cd "$dir" || exit 2
args=()
[ -f ARGS ] && read -r -a args < ARGS
failed=0
check() {  # name, then the trl-lint options
  local name=$1
  shift
  local actual status err
  err=$(mktemp)
  actual=$("$bin" "$@" "${args[@]}" . 2>"$err")
  status=$?
  if [ "$status" -gt 1 ]; then
    echo "trl-lint $* exited with $status:"; echo "$actual"; cat "$err"; rm -f "$err"; failed=1; return
  fi
  # stderr holds the summary line alone (`Checked N files, N runs: ...`), whatever the format.
  # --quiet: nothing on stderr.
  if [[ " $* " == *" --quiet "* ]]; then
    if [ -s "$err" ]; then echo "trl-lint $*: stderr with --quiet:"; cat "$err"; failed=1; fi
  elif [ "$(wc -l < "$err")" -ne 1 ] || ! grep -qE '^Checked [0-9]+ files?(, [0-9]+ runs?)?: ' "$err"; then
    echo "trl-lint $*: stderr is not one summary line:"; cat "$err"; failed=1
  fi
  rm -f "$err"
  [ "$name" = sarif ] && actual=$(printf '%s\n' "$actual" | sed -E 's#"file://[^"]*/"#"file:///SRCROOT/"#')
  if [ -n "${TRL_LINT_UPDATE_GOLDEN:-}" ]; then
    printf '%s\n' "$actual" > "expected.$name"
    return
  fi
  if [ ! -f "expected.$name" ]; then echo "missing $dir/expected.$name"; failed=1; return; fi
  if [ "$actual" != "$(cat "expected.$name")" ]; then
    echo "golden mismatch: $dir/expected.$name"
    diff <(cat "expected.$name") <(printf '%s\n' "$actual")
    failed=1
  fi
}
check full --output-format full --color never
check json --output-format json
check jsonl --output-format json-lines
check github --output-format github
check sarif --output-format sarif
check statistics --statistics
check quiet --output-format full --quiet --color never
exit $failed
