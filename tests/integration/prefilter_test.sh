#!/usr/bin/env bash
# The pre-filter changes no output: every fixture project gives the same concise output with
# and without it (TRL_LINT_NO_PREFILTER=1 parses every file). Usage: prefilter_test.sh TRL_LINT FIXTURES
set -uo pipefail
bin=$1
fixtures=$2
status=0
count=0
for dir in "$fixtures"/*/ "$fixtures"/*/*/; do
  [ -d "$dir" ] || continue
  a=$(cd "$dir" && "$bin" --output-format concise -q . 2>&1)
  b=$(cd "$dir" && TRL_LINT_NO_PREFILTER=1 "$bin" --output-format concise -q . 2>&1)
  count=$((count + 1))
  if [ "$a" != "$b" ]; then
    echo "FAIL: $dir differs with the pre-filter:"
    diff <(echo "$b") <(echo "$a") | head -20
    status=1
  fi
done
[ "$count" -gt 0 ] || { echo "no fixture projects found under $fixtures"; exit 1; }
echo "$count fixture folders compared"
exit $status
