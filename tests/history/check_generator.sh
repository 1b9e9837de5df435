#!/bin/sh
# Runs tools/knowledge_history.py (which reads each module through build/history_extract, or the
# binary $TRL_LINT_HISTORY_EXTRACT names) on the stored excerpts of three TRL releases (tests/history/trl,
# one folder per release) and compares its tables with tests/history/expected_trl.yaml; then on
# the excerpts of two releases around the trl/trainer -> trl/experimental shim of KTOTrainer
# (tests/history/trl_forward: its __init__ forwards *args/**kwargs from 0.26.0 on) against
# tests/history/expected_trl_forward.yaml; then on the excerpts of three transformers releases
# (tests/history/transformers: TrainingArguments, and the enums its __post_init__ converts fields
# to, the source of their accepted values) against tests/history/expected_transformers.yaml.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
python3 "$root/tools/knowledge_history.py" dir "$root/tests/history/trl" >"$out" 2>/dev/null
diff -u "$root/tests/history/expected_trl.yaml" "$out"
python3 "$root/tools/knowledge_history.py" dir "$root/tests/history/trl_forward" >"$out" 2>/dev/null
diff -u "$root/tests/history/expected_trl_forward.yaml" "$out"
python3 "$root/tools/knowledge_history.py" dir "$root/tests/history/transformers" transformers >"$out" 2>/dev/null
diff -u "$root/tests/history/expected_transformers.yaml" "$out"
