#!/usr/bin/env bash
# --stdin-filename: the buffer on stdin stands for that file, the rest of the project comes from
# disk, and only findings located in (or related to) that file are reported.
set -u
bin=$1
src=$2
: "${TRL_LINT_FIXTURES:?the fixture projects: build/fixtures, which the build writes (ctest sets this)}"
. "$src/tests/integration/lib.sh"
dir=$(scratch_copy TRL101/packing_false)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
# The subject is TRL101; other rules' true findings on this fixture are out of scope.
printf 'select: [TRL101, TRL9]\n' > .trl-lint.yaml
recipe=recipes/sft_long.yaml
grep -q '^packing: false' "$recipe" || fail "fixture changed: $recipe has no 'packing: false'"

# 1. On disk packing is off: nothing. The unsaved buffer turns it on: reported at the buffer's path.
out=$("$bin" -q --output-format concise . 2>&1); status=$?
expect_eq "disk project is clean" "" "$out"; [ $status -eq 0 ] || fail "exit $status on a clean project"
line=$(grep -n '^packing: false' "$recipe" | cut -d: -f1)
out=$(sed 's/^packing: false/packing: true/' "$recipe" | "$bin" -q --output-format concise --stdin-filename "$recipe" . 2>&1)
status=$?
expect_eq "buffer with packing on" \
  "$recipe:$line:1: TRL101 \`packing\` with context parallelism (cp_size=2) breaks document isolation" "$out"
[ $status -eq 1 ] || fail "expected exit 1, got $status"
grep -q '^packing: false' "$recipe" || fail "--stdin-filename wrote to the file on disk"

# 2. The path may be given as ./path, and without PATH arguments the project is `.`.
out=$(sed 's/^packing: false/packing: true/' "$recipe" | "$bin" -q --output-format concise --stdin-filename "./$recipe" 2>&1)
expect_eq "./ path and default project" \
  "$recipe:$line:1: TRL101 \`packing\` with context parallelism (cp_size=2) breaks document isolation" "$out"

# 3. Linting another file of the run: the finding touches it through a related location (the
#    accelerate YAML) and is reported; a file the finding does not touch gets nothing.
sed -i 's/^packing: false/packing: true/' "$recipe"
accel=$(find recipes -name 'context_parallel_2gpu.yaml' | head -1)
out=$("$bin" -q --output-format concise --stdin-filename "$accel" . < "$accel" 2>&1)
expect_eq "finding related to the buffer" \
  "$recipe:$line:1: TRL101 \`packing\` with context parallelism (cp_size=2) breaks document isolation" "$out"
out=$("$bin" -q --output-format concise --stdin-filename scripts/sft.py . < scripts/sft.py 2>&1); status=$?
expect_eq "finding unrelated to the buffer" "" "$out"; [ $status -eq 0 ] || fail "exit $status"

# 4. The buffer turns context parallelism off: the finding disappears although the disk has it.
out=$(sed 's/parallelism_config_cp_size: 2/parallelism_config_cp_size: 1/' "$accel" |
  "$bin" -q --output-format concise --stdin-filename "$accel" . 2>&1)
expect_eq "buffer fixes the finding" "" "$out"

# 5. A buffer for a file that does not exist yet (a new launch script) takes part in the project.
mv launch.sh launch.sh.orig
out=$("$bin" -q --output-format concise . 2>&1)
expect_eq "no launch, no run with CP" "" "$out"
printf 'accelerate launch --config_file %s scripts/sft.py --config %s\n' "$accel" "$recipe" |
  "$bin" -q --output-format concise --stdin-filename new_launch.sh . > out.txt 2>&1
expect_eq "unsaved new launch script" \
  "$recipe:$line:1: TRL101 \`packing\` with context parallelism (cp_size=2) breaks document isolation" "$(cat out.txt)"

# 6. Suppressions in the buffer count (the comments come from the buffer, not the disk).
mv launch.sh.orig launch.sh
out=$(sed 's/^packing: true/packing: true  # noqa: TRL101/' "$recipe" |
  "$bin" -q --output-format concise --stdin-filename "$recipe" . 2>&1)
expect_eq "noqa in the buffer" "" "$out"
# 7. --fix with --stdin-filename (as ruff does): the fixed buffer goes to stdout, the findings
#    left to stderr, and no file is written, not even the one the buffer stands for. -q drops
#    the "Fixed N" note.
fixdir=$(mktemp -d)
trap 'rm -rf "$dir" "$fixdir"' EXIT
cp -r "$src/tests/integration/fix/trl501_rename_yaml/before/." "$fixdir/"
cd "$fixdir" || exit 2
before=$(cat recipes/config.yaml)
printf '%s\nlogging_steps: 10\n' "$before" > buffer.txt
"$bin" --output-format concise --fix --stdin-filename recipes/config.yaml . < buffer.txt > fixed.txt 2> err.txt
status=$?
expect_eq "disk file untouched by --fix on stdin" "$before" "$(cat recipes/config.yaml)"
grep -q '^max_length: 4096$' fixed.txt || fail "fixed buffer not on stdout: $(cat fixed.txt)"
grep -q '^max_seq_length' fixed.txt && fail "buffer not fixed: $(cat fixed.txt)"
grep -q '^logging_steps: 10$' fixed.txt || fail "buffer text lost: $(cat fixed.txt)"
expect_eq "stdout is the buffer alone" "$(sed 's/^max_seq_length:/max_length:/' buffer.txt)" "$(cat fixed.txt)"
grep -q '^Fixed 1 finding' err.txt || fail "no Fixed note on stderr: $(cat err.txt)"
grep -q 'TRL501' err.txt && fail "fixed finding still reported: $(cat err.txt)"
[ $status -eq 0 ] || fail "exit $status after every finding was fixed: $(cat err.txt)"
"$bin" --output-format concise -q --fix --stdin-filename recipes/config.yaml . < buffer.txt > fixed.txt 2> err.txt
expect_eq "-q: nothing on stderr" "" "$(cat err.txt)"
expect_eq "disk file still untouched" "$before" "$(cat recipes/config.yaml)"
# 7b. A buffer that starts with a UTF-8 byte order mark comes back with it, the rest fixed as
#     without it (the mark is not three spaces: Python would see an indented first line).
bomdir=$(mktemp -d)
cp -r "$TRL_LINT_FIXTURES/TRL501/python_tokenizer_deprecated/." "$bomdir/"
(cd "$bomdir" && "$bin" -n --stdin-filename train.py --fix --unsafe-fixes < train.py) > "$bomdir/plain.out" 2>/dev/null
{ printf '\xef\xbb\xbf'; cat "$bomdir/train.py"; } > "$bomdir/bom.in"
(cd "$bomdir" && "$bin" -n --stdin-filename train.py --fix --unsafe-fixes < bom.in) > "$bomdir/bom.out" 2>/dev/null
cmp -s "$bomdir/plain.out" "$bomdir/train.py" && fail "BOM case: the buffer was not fixed"
expect_eq "byte order mark kept on stdout" "$(printf '\xef\xbb\xbf'; cat "$bomdir/plain.out")" "$(cat "$bomdir/bom.out")"
rm -rf "$bomdir"
# 8. Without folder arguments, the project is the repository of the stdin file, wherever the tool
#    runs from: from the file's own folder (editors often do), the launch and requirements.txt
#    at the root still take part (the working folder alone had no run, so no finding).
mkdir -p .git
(cd recipes && "$bin" -q --output-format concise --stdin-filename config.yaml < config.yaml) > out.txt 2>&1
grep -q '^config.yaml:4:1: TRL501 ' out.txt || fail "run from the file's folder: $(cat out.txt)"
(cd / && "$bin" -q --output-format concise --stdin-filename "$fixdir/recipes/config.yaml" < "$fixdir/recipes/config.yaml") > out.txt 2>&1
grep -q 'recipes/config.yaml:4:1: TRL501 ' out.txt || fail "run from /: $(cat out.txt)"
echo "stdin-filename: all checks passed"
