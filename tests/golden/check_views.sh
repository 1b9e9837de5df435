#!/usr/bin/env bash
# Compares `trl-lint runs`, `graph` (dot and mermaid) and `show-run` over one fixture project with
# the expected-*.txt files the fixture holds: expected-runs.txt, expected-graph.dot,
# expected-graph.mmd, and expected-show-run.txt (the run named in the SHOW_RUN file).
# TRL_LINT_UPDATE_GOLDEN=1 rewrites them instead (review the diff before committing).
set -u
# An activated environment would decide the installed versions (python_environment.hpp).
unset VIRTUAL_ENV CONDA_PREFIX
bin=$1
dir=$2
cd "$dir" || exit 2
fail=0
check() {  # expected-file command...
  local file=$1; shift
  local actual status
  actual=$("$@" 2>&1); status=$?
  if [ "$status" -ne 0 ]; then echo "$* exited with $status:"; echo "$actual"; fail=1; return; fi
  if [ -n "${TRL_LINT_UPDATE_GOLDEN:-}" ]; then printf '%s\n' "$actual" > "$file"; return; fi
  if [ "$actual" != "$(cat "$file")" ]; then
    echo "golden mismatch: $dir/$file"
    diff <(cat "$file") <(printf '%s\n' "$actual")
    fail=1
  fi
}
[ -f expected-runs.txt ] && check expected-runs.txt "$bin" runs .
[ -f expected-graph.dot ] && check expected-graph.dot "$bin" graph --format dot .
[ -f expected-graph.mmd ] && check expected-graph.mmd "$bin" graph --format mermaid .
if [ -f SHOW_RUN ]; then
  read -r ref < SHOW_RUN
  check expected-show-run.txt "$bin" show-run "$ref" --path .
fi
exit $fail
