#!/usr/bin/env bash
# The same input gives the same output, byte for byte, whatever the thread count: 20 runs each
# with --threads 1, 2 and 8 over every fixture plus a generated tree of many small projects.
set -uo pipefail
# Without the result cache: every run must compute its findings (the cache has its own test).
export TRL_LINT_NO_CACHE=1
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
: "${TRL_LINT_FIXTURES:?the fixture projects: build/fixtures, which the build writes (ctest sets this)}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$TRL_LINT_FIXTURES" "$work/fixtures"
# Many files with findings in many folders, so that threads finish in varying order.
for i in $(seq 1 15); do
  cp -r "$TRL_LINT_FIXTURES/TRL101/yaml_packing_accel_yaml_cp" "$work/fixtures/gen$i"
  rm -f "$work/fixtures/gen$i/expected.txt"
done
cd "$work" || exit 2
reference=""
# A sanitized build (make test-asan) runs 5 times each: it is there for the sanitizers to see the
# threaded paths; the normal suite does the 20 runs.
runs=20
[ -n "${TRL_LINT_SANITIZED:-}" ] && runs=5
for threads in 1 2 8; do
  for run in $(seq 1 "$runs"); do
    out=$(timeout 60 "$bin" --threads "$threads" --color never fixtures 2>&1; echo "exit=$?")
    if [ -z "$reference" ]; then
      reference=$out
      n=$(grep -c 'TRL101' <<< "$out")
      [ "$n" -ge 15 ] || { echo "expected findings, got: $out" | head -20; exit 1; }
    elif [ "$out" != "$reference" ]; then
      echo "output differs with --threads $threads (run $run):"
      diff <(printf '%s\n' "$reference") <(printf '%s\n' "$out") | head -20
      exit 1
    fi
  done
  # The other outputs, a few times per thread count.
  for mode in "--output-format concise" "runs"; do
    for run in 1 2 3; do
      # shellcheck disable=SC2086
      o=$(timeout 60 "$bin" --threads "$threads" $mode fixtures 2>&1)
      # shellcheck disable=SC2086
      [ "$run" = 1 ] && [ "$threads" = 1 ] && eval "ref_${mode//[^a-z]/_}=\$o"
      eval "r=\$ref_${mode//[^a-z]/_}"
      [ "$o" = "$r" ] || { echo "'$mode' output differs with --threads $threads"; exit 1; }
    done
  done
done
echo "ok: identical output over $((3 * runs)) runs (threads 1, 2, 8)"
