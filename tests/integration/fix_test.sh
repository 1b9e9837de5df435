#!/usr/bin/env bash
# Runs one fix case (see tests/integration/fix/README.md): --diff, --fix, then idempotence.
set -euo pipefail
bin=$(realpath "$1")
case_dir=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=()
[ -f "$case_dir/ARGS" ] && read -r -a args < "$case_dir/ARGS"
fail() { echo "FAIL ($case_dir): $1"; exit 1; }

copy() { mkdir -p "$1"; cp -a "$case_dir/before/." "$1/"; mkdir -p "$1/.git"; }
copy "$tmp/work"
copy "$tmp/expected"
copy "$tmp/original"
expected_diff=$(cat "$case_dir/expected.diff")

# findings.txt (optional): the concise findings before fixing, so that a case whose fix is
# withheld (an empty expected.diff) still fails when its rule stops firing.
if [ -f "$case_dir/findings.txt" ]; then
  actual_findings=$(cd "$tmp/original" && "$bin" --no-cache --output-format concise "${args[@]}" . 2>/dev/null || true)
  [ "$actual_findings" = "$(cat "$case_dir/findings.txt")" ] ||
    { diff <(cat "$case_dir/findings.txt") <(echo "$actual_findings"); fail "findings before fixing differ"; }
fi

# --diff prints the expected diff, changes nothing, exits 1 exactly when there is a change.
set +e
actual_diff=$(cd "$tmp/work" && "$bin" --diff "${args[@]}" . 2>/dev/null)
status=$?
set -e
[ "$actual_diff" = "$expected_diff" ] || { diff <(echo "$expected_diff") <(echo "$actual_diff"); fail "--diff output differs"; }
if [ -n "$expected_diff" ]; then [ $status -eq 1 ] || fail "--diff exited $status, expected 1"; else
  [ $status -eq 0 ] || fail "--diff exited $status, expected 0"; fi
diff -r "$tmp/original" "$tmp/work" >/dev/null || fail "--diff changed files"

# --fix leaves exactly `before` + expected.diff.
if [ -n "$expected_diff" ]; then (cd "$tmp/expected" && git apply -p1 "$case_dir/expected.diff"); fi
set +e
(cd "$tmp/work" && "$bin" --fix --output-format concise "${args[@]}" . > "$tmp/fix.out" 2>&1)
status=$?
set -e
[ $status -le 1 ] || { cat "$tmp/fix.out"; fail "--fix exited $status"; }
diff -r "$tmp/expected" "$tmp/work" || fail "--fix result differs from before/ + expected.diff"
# No temporary files left behind.
[ -z "$(find "$tmp/work" -name '*.trl-lint-*')" ] || fail "temporary files left behind"

# Idempotence: nothing more to fix.
set +e
again=$(cd "$tmp/work" && "$bin" --diff "${args[@]}" . 2>/dev/null)
status=$?
set -e
[ -z "$again" ] && [ $status -eq 0 ] || fail "a second pass still changes: $again"
cp -a "$tmp/work" "$tmp/after-first"
(cd "$tmp/work" && "$bin" --fix "${args[@]}" . >/dev/null 2>&1) || true
diff -r "$tmp/after-first" "$tmp/work" >/dev/null || fail "a second --fix changed files"
echo "ok"
