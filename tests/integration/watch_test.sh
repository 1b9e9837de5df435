#!/usr/bin/env bash
# `trl-lint --watch`: the first check, a check after each change (an edit that adds a finding, one
# that removes it, a new file), one check for a burst of writes, nothing while files stay the
# same, and a clean exit on SIGINT. Refused with options that do not check the project.
# Usage: watch_test.sh TRL_LINT FIXTURE (a project with no findings: example/… or a clean fixture)
set -u
bin=$(realpath "$1")
fixture=$(realpath "$2")
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$work/out" 2>/dev/null; echo "--- stderr"; cat "$work/err" 2>/dev/null; exit 1; }
cp -R "$fixture" "$work/project"
cd "$work/project" || exit 2

# Waits (up to 20 s) until FILE has N lines matching PATTERN.
wait_for() {
  local file=$1 pattern=$2 n=$3
  for _ in $(seq 200); do
    [ "$(grep -c -- "$pattern" "$file" 2>/dev/null)" -ge "$n" ] && return 0
    sleep 0.1
  done
  return 1
}

"$bin" --watch --output-format concise . > "$work/out" 2> "$work/err" &
pid=$!
wait_for "$work/err" "Watching for file changes" 1 || fail "no first check"
grep -q "Checking in watch mode" "$work/err" || fail "the first check was not announced"
[ "$(grep -c TRL "$work/out")" -eq 0 ] || fail "the clean project has findings"

# An edit that makes a finding.
cat > conflict.py <<'PY'
from trl import SFTConfig

args = SFTConfig(output_dir="out", fp16=True, bf16=True)
PY
wait_for "$work/err" "Watching for file changes" 2 || fail "no check after a new file"
grep -q "File change detected" "$work/err" || fail "the change was not announced"
wait_for "$work/out" "conflict.py:.*TRL" 1 || fail "the new file's finding was not reported"

# An edit that removes it.
sed -i 's/, bf16=True//' conflict.py
wait_for "$work/err" "Watching for file changes" 3 || fail "no check after an edit"
checks=$(grep -c "Watching for file changes" "$work/err")

# Nothing changes: no check.
sleep 2
[ "$(grep -c "Watching for file changes" "$work/err")" -eq "$checks" ] || fail "a check without a change"

# A burst of writes: one check.
for i in 1 2 3 4 5; do echo "# $i" >> conflict.py; done
wait_for "$work/err" "Watching for file changes" $((checks + 1)) || fail "no check after a burst"
sleep 2
[ "$(grep -c "Watching for file changes" "$work/err")" -eq $((checks + 1)) ] || fail "a burst gave several checks"
# Only the check between the two edits reported conflict.py: the later ones found it clean.
[ "$(grep -c 'conflict.py:' "$work/out")" -eq 1 ] || fail "conflict.py reported by a check after the fix"

kill -INT "$pid"
wait "$pid"
status=$?
pid=
[ "$status" -eq 0 ] || fail "--watch ended with $status on SIGINT"

# Options that do not check the project are refused.
for extra in "--diff" "--add-noqa" "--write-baseline b.json" "runs"; do
  # shellcheck disable=SC2086
  "$bin" --watch $extra . > /dev/null 2> "$work/refused"
  status=$?
  [ "$status" -eq 2 ] || fail "--watch $extra exited with $status"
  grep -q "cannot be combined" "$work/refused" || fail "--watch $extra: $(cat "$work/refused")"
done
echo "watch: all cases passed"
