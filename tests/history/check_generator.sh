#!/bin/sh
# Runs tools/knowledge_history.py on the stored excerpts of three TRL releases (tests/history/trl,
# one folder per release) and compares its tables with tests/history/expected_trl.yaml.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
python3 "$root/tools/knowledge_history.py" dir "$root/tests/history/trl" >"$out" 2>/dev/null
diff -u "$root/tests/history/expected_trl.yaml" "$out"
