#!/usr/bin/env bash
# The result cache's facts pack changes no output: for every fixture project, an analysis whose
# files take their facts from the pack (the results entry and its parts removed, so it is a miss
# that judges everything; the pack kept) gives the same output as one that parses everything.
# Usage: facts_pack_test.sh TRL_LINT FIXTURES
set -uo pipefail
bin=$1
fixtures=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
count=0
served=0
for dir in "$fixtures"/*/ "$fixtures"/*/*/; do
  [ -d "$dir" ] || continue
  count=$((count + 1))
  cache=$work/c$count
  fresh=$(cd "$dir" && "$bin" --output-format concise --no-cache . 2> "$work/fresh.err")
  (cd "$dir" && "$bin" --output-format concise --cache-dir "$cache" . > /dev/null 2>&1)
  [ -f "$cache/facts.bin" ] && cp "$cache/facts.bin" "$work/pack.encoded"
  rm -f "$cache"/results-*.bin "$cache"/results-*.parts
  packed=$(cd "$dir" && TRL_LINT_CACHE_TRACE=1 "$bin" --output-format concise --cache-dir "$cache" . 2> "$work/err")
  # Standard output and the other messages of standard error, each compared on its own.
  fresh+=$'\n--- stderr\n'$(cat "$work/fresh.err")
  packed+=$'\n--- stderr\n'$(grep -v '^trl-lint: cache' "$work/err")
  if [ "$fresh" != "$packed" ]; then
    echo "FAIL: $dir differs when the facts come from the pack:"
    diff <(echo "$fresh") <(echo "$packed") | head -20
    status=1
  fi
  n=$(sed -nE 's/.*\(([0-9]+) files. facts from the cache\).*/\1/p' "$work/err")
  [ "${n:-0}" -gt 0 ] && served=$((served + 1))
  # The miss above wrote the pack again, the facts it took from the pack as they were read
  # (not encoded again): the pack the first analysis encoded, byte for byte (every file served,
  # each with its own facts), and a third analysis from it gives the same output again. The
  # second analysis decoded the facts on every core (by default), this one on one thread.
  if [ "${n:-0}" -gt 0 ]; then
    cp "$cache/facts.bin" "$work/pack.before"
    cmp -s "$work/pack.encoded" "$work/pack.before" || { echo "FAIL: $dir: the pack written from the pack differs from the encoded one"; status=1; }
    rm -f "$cache"/results-*.bin "$cache"/results-*.parts
    again=$(cd "$dir" && TRL_LINT_CACHE_TRACE=1 "$bin" --threads 1 --output-format concise --cache-dir "$cache" . 2> "$work/err")
    again+=$'\n--- stderr\n'$(grep -v '^trl-lint: cache' "$work/err")
    n2=$(sed -nE 's/.*\(([0-9]+) files. facts from the cache\).*/\1/p' "$work/err")
    if [ "$fresh" != "$again" ] || [ "${n2:-0}" != "$n" ] || ! cmp -s "$work/pack.before" "$cache/facts.bin"; then
      echo "FAIL: $dir: a pack written from facts taken from the pack changed (facts from it: $n, then ${n2:-0}):"
      diff <(echo "$fresh") <(echo "$again") | head -20
      status=1
    fi
  fi
done
[ "$count" -gt 0 ] || { echo "no fixture projects found under $fixtures"; exit 1; }
# Most fixtures are stored (an analysis that reads JSON named by Python code is not): the
# comparison above must have used the pack, or it proves nothing.
[ "$served" -gt $((count / 2)) ] || { echo "FAIL: only $served of $count fixture folders took facts from the pack"; status=1; }
echo "$count fixture folders compared, $served with facts from the pack"
exit $status
