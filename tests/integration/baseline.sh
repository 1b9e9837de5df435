#!/usr/bin/env bash
# Baselines: --write-baseline records the findings (keyed by path, code and the normalised line
# text); --baseline hides them even after lines move, and reports new ones.
set -u
bin=$1
src=$2
: "${TRL_LINT_FIXTURES:?the fixture projects: build/fixtures, which the build writes (ctest sets this)}"
. "$src/tests/integration/lib.sh"
dir=$(scratch_copy TRL101/yaml_packing_accel_yaml_cp)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
# The subject is TRL101; other rules' true findings on this fixture are out of scope.
printf 'select: [TRL101, TRL9]\n' > .trl-lint.yaml
recipe=recipes/qwen2.5-0.5b/sft_long.yaml

"$bin" --write-baseline .trl-lint-baseline.json . 2> err.txt; status=$?
[ $status -eq 0 ] || fail "--write-baseline exited $status"
expect_eq "write message" "trl-lint: recorded 1 finding in .trl-lint-baseline.json" "$(cat err.txt)"
expected='{
  "version": 1,
  "tool": "trl-lint",
  "findings": [
    {
      "path": "recipes/qwen2.5-0.5b/sft_long.yaml",
      "code": "TRL101",
      "line": "packing: true",
      "count": 1
    }
  ]
}'
expect_eq "baseline file" "$expected" "$(cat .trl-lint-baseline.json)"

# Same project: nothing new, exit 0.
out=$("$bin" -q --output-format concise --baseline .trl-lint-baseline.json . 2>&1); status=$?
expect_eq "unchanged project" "" "$out"; [ $status -eq 0 ] || fail "exit $status"

# Lines shift (a comment block above, extra blanks inside the line): still nothing.
{ printf '# Notes added later\n# about this recipe\n\n'; sed 's/^packing: true/packing:   true/' "$recipe"; } > tmp && mv tmp "$recipe"
out=$("$bin" -q --output-format concise --baseline .trl-lint-baseline.json . 2>&1); status=$?
expect_eq "shifted lines" "" "$out"; [ $status -eq 0 ] || fail "exit $status"
out=$("$bin" -q --output-format concise . 2>&1)
expect_eq "without the baseline the finding is there, on its new line" \
  "$recipe:18:1: TRL101 \`packing\` with context parallelism (cp_size=2) breaks document isolation" "$out"

# A new finding is reported; the recorded one stays hidden.
echo "eval_packing: true" >> "$recipe"
n=$(wc -l < "$recipe")
out=$("$bin" -q --output-format concise --baseline .trl-lint-baseline.json . 2>&1); status=$?
expect_eq "new finding" \
  "$recipe:$n:1: TRL101 \`eval_packing\` with context parallelism (cp_size=2) breaks document isolation" "$out"
[ $status -eq 1 ] || fail "expected exit 1, got $status"

# The baseline is found relative to its own folder, whatever the current directory.
mkdir -p ../elsewhere_$$ && cd "../elsewhere_$$" || exit 2
out=$("$bin" -q --output-format concise --baseline "$dir/.trl-lint-baseline.json" "$dir" 2>&1)
cd "$dir" && rm -rf "../elsewhere_$$"
case "$out" in *"eval_packing"*) ;; *) fail "from another folder: $out" ;; esac
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "from another folder, expected 1 finding: $out"

# A missing or malformed baseline is a usage error (exit 2), not "no findings".
"$bin" --baseline missing.json . > /dev/null 2>&1; [ $? -eq 2 ] || fail "missing baseline must exit 2"
echo '{"findings": 3}' > bad.json
"$bin" --baseline bad.json . > /dev/null 2>&1; [ $? -eq 2 ] || fail "malformed baseline must exit 2"
# A file whose name is not UTF-8: the baseline (JSON, UTF-8) holds the name with U+FFFD, and
# reading it back matches the finding all the same.
nu=$(mktemp -d)
cp "$TRL_LINT_FIXTURES/TRL501/python_tokenizer_deprecated/requirements.txt" "$nu/"
cp "$TRL_LINT_FIXTURES/TRL501/python_tokenizer_deprecated/train.py" "$nu/$(printf 'caf\351.py')"
(cd "$nu" && "$bin" -n -q --write-baseline bl.json .) || { rm -rf "$nu"; fail "writing a baseline with a non-UTF-8 name"; }
out=$(cd "$nu" && "$bin" -n -q --output-format concise --baseline bl.json . 2>&1); status=$?
rm -rf "$nu"
expect_eq "non-UTF-8 file name in the baseline" "" "$out"; [ $status -eq 0 ] || fail "non-UTF-8 name: exit $status"

echo "baseline: all checks passed"
