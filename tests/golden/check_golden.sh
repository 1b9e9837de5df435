#!/usr/bin/env bash
# Runs trl-lint over one fixture project and compares its concise output with expected.txt and,
# for a project with findings, the whole of each finding with expected-full.txt: the full output
# (message, labels, notes, help) and the fixes as a diff (`--diff`), so that a change in a help
# line, a note or a fix shows as well as one in a message.
# TRL_LINT_UPDATE_GOLDEN=1 rewrites both instead (review the diff before committing).
set -u
# An activated environment would decide the installed versions (python_environment.hpp).
unset VIRTUAL_ENV CONDA_PREFIX
bin=$1
dir=$2
cd "$dir" || exit 2
# Each fixture is a project of its own: without a root marker its project would be the checkout
# (the nearest `.git` above), and pins, installed versions and imports would be looked up there.
if ! [ -e .trl-lint.toml ] && ! [ -e .trl-lint.yaml ] && ! [ -e pyproject.toml ] && ! [ -e .git ]; then
  echo "fixture $dir has no project root marker: add an empty .trl-lint.toml"; exit 1
fi
args=()
[ -f ARGS ] && read -r -a args < ARGS
# stdout and stderr, without the summary line that ends every check on stderr.
actual=$("$bin" --output-format concise "${args[@]}" . 2>&1)
status=$?
actual=$(printf '%s\n' "$actual" | grep -vE '^Checked [0-9]+ files?(, [0-9]+ runs?)?: ')
if [ "$status" -gt 1 ]; then
  echo "trl-lint exited with $status:"; echo "$actual"; exit 1
fi
# The full snapshot, of a project with findings only.
snapshot() {
  local full fixes
  full=$("$bin" --output-format full --color never "${args[@]}" . 2>&1 | grep -vE '^Checked [0-9]+ files?(, [0-9]+ runs?)?: ')
  fixes=$("$bin" --diff --color never "${args[@]}" . 2>/dev/null)
  printf '%s\n' "$full"
  if [ -n "$fixes" ]; then printf '%s\n%s\n' '--- the fixes (trl-lint --diff) ---' "$fixes"; fi
}
if [ -n "${TRL_LINT_UPDATE_GOLDEN:-}" ]; then
  if [ -n "$actual" ]; then printf '%s\n' "$actual" > expected.txt; else : > expected.txt; fi
  if [ -n "$actual" ]; then snapshot > expected-full.txt; else rm -f expected-full.txt; fi
  exit 0
fi
expected=$(cat expected.txt)
if [ "$actual" != "$expected" ]; then
  echo "golden mismatch in $dir"
  diff <(printf '%s\n' "$expected") <(printf '%s\n' "$actual")
  exit 1
fi
if [ -n "$expected" ]; then
  if ! [ -f expected-full.txt ]; then
    echo "no expected-full.txt in $dir: TRL_LINT_UPDATE_GOLDEN=1 $0 $bin $dir writes it (review it)"; exit 1
  fi
  full=$(snapshot)
  if [ "$full" != "$(cat expected-full.txt)" ]; then
    echo "full-output mismatch in $dir (expected-full.txt)"
    diff expected-full.txt <(printf '%s\n' "$full")
    exit 1
  fi
elif [ -f expected-full.txt ]; then
  echo "expected-full.txt in $dir, a project without findings: remove it"; exit 1
fi
# The exit code must say whether there were findings.
if [ -n "$expected" ] && [ "$status" -ne 1 ]; then echo "expected exit 1, got $status"; exit 1; fi
if [ -z "$expected" ] && [ "$status" -ne 0 ]; then echo "expected exit 0, got $status"; exit 1; fi
exit 0
