#!/usr/bin/env bash
# trl-lint where the process is limited: 64 KiB thread stacks (`ulimit -s`, which sets the helper
# threads' stacks too), a data limit (`ulimit -d`: the heap may not be reserved in large steps, see
# analyzer/util/memory.hpp) and an address-space limit. Each gives the findings of an unlimited run.
# Usage: limits_test.sh TRL_LINT FIXTURES
set -uo pipefail
bin=$(realpath "$1")
fixtures=$(realpath "$2")
fail() { echo "FAIL: $*"; exit 1; }
for project in example TRL101/yaml_packing_accel_yaml_cp; do
  dir=$fixtures/$project
  [ -d "$dir" ] || fail "no fixture $project"
  want=$(cd "$dir" && "$bin" --no-cache --output-format concise --threads 2 . 2>&1; echo "exit $?")
  grep -q "^exit [01]$" <<< "$want" || fail "$project: unlimited run: $want"
  for limit in "ulimit -s 64" "ulimit -d 60000" "ulimit -v 1000000"; do
    got=$(cd "$dir" && sh -c "$limit && exec \"\$0\" --no-cache --output-format concise --threads 2 ." "$bin" 2>&1; echo "exit $?")
    [ "$got" = "$want" ] || { diff <(echo "$want") <(echo "$got"); fail "$project under '$limit': not the findings of an unlimited run"; }
  done
done
echo "ok: the same findings under stack, data and address-space limits"
