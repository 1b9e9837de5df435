#!/usr/bin/env bash
# Command-line behaviour users of ruff rely on: fixes stay in the files named (pre-commit), --diff
# obeys --exit-zero, --select/--ignore accumulate when repeated, an empty --select is a usage error, and --write-baseline with
# --baseline records every finding (updating a baseline in place), and --fail-on / `fail-on` choose
# which severities fail, and the ruff habits of section 6.
set -uo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
: "${TRL_LINT_FIXTURES:?the fixture projects: build/fixtures, which the build writes (ctest sets this)}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $1"; echo "--- output:"; cat "$tmp/out" 2>/dev/null; exit 1; }
p=$tmp/p
cp -a "$src/tests/integration/fix/trl501_rename_yaml/before" "$p"
mkdir -p "$p/.git"
cd "$p" || exit 2
cp recipes/config.yaml "$tmp/config.orig"

# 1. The TRL501 finding in recipes/config.yaml is reported for requirements.txt too (its pin is a
#    related location), but `--fix requirements.txt` must not edit recipes/config.yaml.
"$bin" -n --output-format concise requirements.txt > "$tmp/out" 2>&1
grep -q '^recipes/config.yaml:4:1: TRL501 ' "$tmp/out" || fail "the finding is not reported for the pin file"
"$bin" -n --fix requirements.txt > "$tmp/out" 2>&1
cmp -s recipes/config.yaml "$tmp/config.orig" || fail "--fix requirements.txt edited recipes/config.yaml"
"$bin" -n --diff requirements.txt > "$tmp/out" 2>&1; status=$?
[ $status -eq 0 ] || fail "--diff requirements.txt: exit $status, want 0 (nothing to change in the named file)"
[ -s "$tmp/out" ] && grep -q '^---' "$tmp/out" && fail "--diff requirements.txt shows another file's fix"
"$bin" -n --fix recipes/config.yaml > "$tmp/out" 2>&1
grep -q '^max_length: 4096$' recipes/config.yaml || fail "--fix recipes/config.yaml did not fix the named file"
cp "$tmp/config.orig" recipes/config.yaml
# --show-fixes: what --fix fixed, file by file.
"$bin" -n --fix --show-fixes . > "$tmp/out" 2>&1
grep -q '^Fixed 1 finding:$' "$tmp/out" || fail "--show-fixes: the heading"
grep -q '^- recipes/config.yaml:$' "$tmp/out" || fail "--show-fixes: the file"
grep -q '^    1 x TRL501 (renamed-argument)$' "$tmp/out" || fail "--show-fixes: the code"
cp "$tmp/config.orig" recipes/config.yaml

# 2. --diff exits 1 when there are changes, 0 with --exit-zero.
"$bin" -n --diff . > "$tmp/out" 2>&1; status=$?
[ $status -eq 1 ] || fail "--diff with changes: exit $status, want 1"
"$bin" -n --diff --exit-zero . > "$tmp/out" 2>&1; status=$?
[ $status -eq 0 ] || fail "--diff --exit-zero: exit $status, want 0"
cmp -s recipes/config.yaml "$tmp/config.orig" || fail "--diff changed a file"
# -q drops the "Would fix N findings" note on stderr (as it drops "Fixed N findings"); the diff stays.
"$bin" -n --diff -q . > "$tmp/out" 2> "$tmp/err"; status=$?
[ $status -eq 1 ] || fail "--diff -q: exit $status, want 1"
grep -q '^+max_length: 4096$' "$tmp/out" || fail "--diff -q: no diff on stdout"
[ -s "$tmp/err" ] && { cat "$tmp/err" >> "$tmp/out"; fail "--diff -q wrote to stderr"; }
"$bin" -n --diff . > /dev/null 2> "$tmp/err"
grep -q '^Would fix 1 finding\.$' "$tmp/err" || fail "--diff without -q: no 'Would fix' note"

# 3. Repeated selection options accumulate (a CLI11 usage error before).
all=$("$bin" -n --output-format concise . 2>/dev/null | cut -d' ' -f2 | sort -u | tr '\n' ' ')
[ "$(echo "$all" | wc -w)" -ge 1 ] || fail "no finding to select from"
first=$(echo "$all" | cut -d' ' -f1)
"$bin" -n --output-format concise --select TRL910 --select "$first" . > "$tmp/out" 2>&1; status=$?
[ $status -eq 1 ] || fail "repeated --select: exit $status"
grep -q " $first " "$tmp/out" || fail "repeated --select lost the second value"
"$bin" -n --output-format concise --ignore TRL910 --ignore "$first" . > "$tmp/out" 2>&1
grep -q " $first " "$tmp/out" && fail "repeated --ignore lost the second value"

# An empty selection (`--select "$UNSET"`) is a usage error, not a run that checks nothing.
"$bin" -n --output-format concise --select "" . > "$tmp/out" 2>&1; status=$?
[ $status -eq 2 ] || fail "--select '': exit $status, want 2"
grep -q "needs at least one rule code" "$tmp/out" || fail "--select '': no usage message"
for empty in "," " "; do
  "$bin" -n --output-format concise --select "$empty" . > "$tmp/out" 2>&1; status=$?
  [ $status -eq 2 ] || fail "--select '$empty': exit $status, want 2"
done

# 4. A baseline updated in place keeps what it had accepted.
"$bin" -n -q --write-baseline "$tmp/b.json" . > "$tmp/out" 2>&1 || fail "writing the baseline"
n=$(grep -c '"code"' "$tmp/b.json")
[ "$n" -ge 1 ] || fail "the baseline records nothing"
"$bin" -n -q --baseline "$tmp/b.json" --write-baseline "$tmp/b.json" . > "$tmp/out" 2>&1 || fail "updating the baseline"
[ "$(grep -c '"code"' "$tmp/b.json")" -eq "$n" ] || fail "updating the baseline in place dropped accepted findings"
"$bin" -n --output-format concise --baseline "$tmp/b.json" . > "$tmp/out" 2>&1; status=$?
[ $status -eq 0 ] || fail "findings came back after updating the baseline in place"

# 5. --fail-on (and `fail-on` in the configuration): the least severe finding that fails.
"$bin" -n -q --output-format concise . > "$tmp/out" 2>&1; status=$?
[ $status -eq 1 ] || fail "default: exit $status, want 1 (any finding fails)"
"$bin" -n -q --fail-on error . > "$tmp/out" 2>&1; status=$?
[ $status -eq 1 ] || fail "--fail-on error with errors: exit $status, want 1"
printf 'severity:\n  TRL: warning\n' > .trl-lint.yaml
"$bin" -n -q --fail-on error . > "$tmp/out" 2>&1; status=$?
[ $status -eq 0 ] || fail "--fail-on error with warnings only: exit $status, want 0"
grep -q ' TRL' "$tmp/out" || fail "--fail-on error hid the warnings"
"$bin" -n -q --fail-on warning . > "$tmp/out" 2>&1; status=$?
[ $status -eq 1 ] || fail "--fail-on warning with warnings: exit $status, want 1"
printf 'severity:\n  TRL: info\nfail-on: warning\n' > .trl-lint.yaml
"$bin" -n -q . > "$tmp/out" 2>&1; status=$?
[ $status -eq 0 ] || fail "fail-on: warning in the configuration, infos only: exit $status, want 0"
"$bin" -n -q --fail-on info . > "$tmp/out" 2>&1; status=$?
[ $status -eq 1 ] || fail "--fail-on info over the configuration's fail-on: exit $status, want 1"
"$bin" -n -q --fail-on bogus . > "$tmp/out" 2>&1; status=$?
[ $status -eq 2 ] || fail "--fail-on bogus: exit $status, want 2"
printf 'fail-on: sometimes\n' > .trl-lint.yaml
"$bin" -n -q . > "$tmp/out" 2>&1; status=$?
[ $status -eq 2 ] || fail "fail-on: sometimes: exit $status, want 2"
grep -q "fail-on" "$tmp/out" || fail "fail-on: sometimes: the error does not name the key"
rm .trl-lint.yaml

# 6. ruff habits: `check` as the command word, did-you-mean for options, --show-files,
# --show-settings, --exclude / --extend-exclude, NO_COLOR / FORCE_COLOR, the program's name.
"$bin" -n --output-format concise . > "$tmp/plain" 2>/dev/null
"$bin" check -n --output-format concise . > "$tmp/out" 2>/dev/null; status=$?
[ $status -eq 1 ] || fail "check: exit $status, want 1"
cmp -s "$tmp/plain" "$tmp/out" || fail "trl-lint check . differs from trl-lint ."
"$bin" -n --output-format concise check recipes/config.yaml > "$tmp/out" 2>/dev/null
grep -q '^recipes/' "$tmp/out" || fail "check with options before the word: no finding under recipes/"
"$bin" -n --selct TRL101 . > "$tmp/out" 2>&1; status=$?
[ $status -eq 2 ] || fail "--selct: exit $status, want 2"
grep -q 'did you mean `--select`' "$tmp/out" || fail "--selct: no did-you-mean"
"$bin" --bogus-option . > "$tmp/out" 2>&1
grep -q 'did you mean' "$tmp/out" && fail "--bogus-option: a suggestion for an option close to nothing"
"$bin" --help > "$tmp/out" 2>&1
grep -q '^Usage: trl-lint ' "$tmp/out" || fail "--help: the usage line does not say trl-lint"
"$bin" -n --show-files . > "$tmp/out" 2>&1 || fail "--show-files failed"
grep -q '^recipes/config.yaml  (yaml)$' "$tmp/out" || fail "--show-files: recipes/config.yaml missing"
grep -q '^scripts/sft.py  (python)$' "$tmp/out" || fail "--show-files: scripts/sft.py missing"
"$bin" -n --show-files --exclude scripts . > "$tmp/out" 2>&1
grep -q '^scripts/' "$tmp/out" && fail "--show-files --exclude scripts still lists scripts/"
"$bin" -n --show-settings . > "$tmp/out" 2>&1 || fail "--show-settings failed"
grep -q '^enabled-rules:' "$tmp/out" || fail "--show-settings: no enabled-rules line"
"$bin" -n --output-format concise --exclude recipes . > "$tmp/out" 2>&1
grep -q '^recipes/' "$tmp/out" && fail "--exclude recipes still reports recipes/"
printf 'exclude: [scripts]\n' > .trl-lint.yaml
"$bin" -n --show-files --extend-exclude configs . > "$tmp/out" 2>&1
grep -q '^scripts/\|^configs/' "$tmp/out" && fail "--extend-exclude dropped the configuration's exclude or its own"
"$bin" -n --show-files --exclude configs . > "$tmp/out" 2>&1
grep -q '^scripts/sft.py' "$tmp/out" || fail "--exclude did not replace the configuration's exclude"
# Several globs, repeated or comma-separated: each one applies.
for opts in "--exclude scripts --exclude recipes" "--exclude scripts,recipes" \
            "--extend-exclude scripts --extend-exclude recipes" "--extend-exclude scripts,recipes"; do
  # shellcheck disable=SC2086
  "$bin" -n --show-files $opts . > "$tmp/out" 2>&1
  grep -q '^scripts/\|^recipes/' "$tmp/out" && fail "$opts: a glob was not applied"
done
rm .trl-lint.yaml
FORCE_COLOR=1 "$bin" -n . > "$tmp/out" 2>&1
grep -q $'\033\\[' "$tmp/out" || fail "FORCE_COLOR=1: no colour on a pipe"
FORCE_COLOR=1 NO_COLOR=1 "$bin" -n . > "$tmp/out" 2>&1
grep -q $'\033\\[' "$tmp/out" && fail "NO_COLOR=1 with FORCE_COLOR=1: coloured"
"$bin" -n . > "$tmp/out" 2>&1
grep -q $'\033\\[' "$tmp/out" && fail "a pipe without FORCE_COLOR: coloured"

# The summary line: on stderr, after the findings, for every format; stdout keeps the findings alone.
"$bin" -n --output-format concise . > "$tmp/out" 2> "$tmp/err"
grep -q "^Checked [0-9]* files, 1 run: 1 error; \[\*\] 1 fixable with \`--fix\`$" "$tmp/err" || { cat "$tmp/err" >> "$tmp/out"; fail "summary line"; }
grep -q '^Checked' "$tmp/out" && fail "summary line on stdout"
"$bin" -n -q --output-format concise . > "$tmp/out" 2> "$tmp/err"
[ -s "$tmp/err" ] && { cat "$tmp/err" >> "$tmp/out"; fail "-q printed a summary"; }
# An empty folder, or one without a run, never reads as a pass.
mkdir -p "$tmp/empty/.git" "$tmp/norun/.git"
printf 'learning_rate: 1.0e-5\n' > "$tmp/norun/notes.yaml"
(cd "$tmp/empty" && "$bin" -n .) > "$tmp/out" 2>&1; status=$?
[ $status -eq 0 ] || fail "empty folder: exit $status"
[ "$(cat "$tmp/out")" = "Checked 0 files: no training run found" ] || fail "empty folder summary"
(cd "$tmp/norun" && "$bin" -n .) > "$tmp/out" 2>&1
grep -q '^Checked 1 file: no training run found$' "$tmp/out" || fail "no run summary"
grep -qi 'passed' "$tmp/out" && fail "a folder without a run reads as a pass"

# -v: the project roots and configuration files used, the cache's answer, the time taken, on
# stderr; stdout keeps the findings alone.
(cd "$p" && "$bin" -v --output-format concise --cache-dir "$tmp/vcache" . > "$tmp/out" 2> "$tmp/err")
grep -q "^trl-lint: project $p; configuration: none (defaults)$" "$tmp/err" || { cat "$tmp/err" >> "$tmp/out"; fail "-v: the project line"; }
grep -q '^trl-lint: cache miss ' "$tmp/err" || { cat "$tmp/err" >> "$tmp/out"; fail "-v: the cache line"; }
grep -q '^trl-lint: [0-9]* files, 1 run, analysed in [0-9]* ms$' "$tmp/err" || { cat "$tmp/err" >> "$tmp/out"; fail "-v: the timing line"; }
grep -q '^trl-lint: stages: walk and read [0-9]* ms, extract [0-9]* ms, build runs [0-9]* ms, rules [0-9]* ms$' "$tmp/err" ||
  { cat "$tmp/err" >> "$tmp/out"; fail "-v: the stages line of a cold run"; }
# Served by the cache, no stage ran: no stages line.
(cd "$p" && "$bin" -v --output-format concise --cache-dir "$tmp/vcache" . > "$tmp/out" 2> "$tmp/err")
grep -q '^trl-lint: cache hit ' "$tmp/err" || { cat "$tmp/err" >> "$tmp/out"; fail "-v: the second run is a hit"; }
grep -q '^trl-lint: stages:' "$tmp/err" && { cat "$tmp/err" >> "$tmp/out"; fail "-v: a stages line on a cache hit"; }
# After one file changed, the cache keeps the parts it can: the stage that builds and judges what
# changed is named as such, and no separate rules stage is given.
yaml_file=$(cd "$p" && find . -name '*.yaml' -path '*recipes*' | head -1)
[ -n "$yaml_file" ] || fail "-v: the fixture has no recipe YAML to change"
cp "$p/$yaml_file" "$tmp/yaml.orig"
printf '# changed\n' >> "$p/$yaml_file"
(cd "$p" && "$bin" -v --output-format concise --cache-dir "$tmp/vcache" . > "$tmp/out" 2> "$tmp/err")
cp "$tmp/yaml.orig" "$p/$yaml_file"
grep -q '^trl-lint: cache kept ' "$tmp/err" || { cat "$tmp/err" >> "$tmp/out"; fail "-v: the cache kept no part after one YAML changed"; }
grep -q '^trl-lint: stages: walk and read [0-9]* ms, extract [0-9]* ms, build and judge what changed [0-9]* ms$' "$tmp/err" ||
  { cat "$tmp/err" >> "$tmp/out"; fail "-v: the stages line when the cache kept parts"; }
grep -q '^trl-lint:' "$tmp/out" && fail "-v wrote to stdout"

# --add-noqa (ruff's): a `# noqa: CODE` on the first line of each finding, or the code added to a
# `noqa` already there; the next check is clean and reports no unused directive; a second run adds
# nothing; it cannot be combined with --fix.
a=$tmp/addnoqa
cp -a "$TRL_LINT_FIXTURES/TRL101/yaml_packing_accel_yaml_cp" "$a"
rm -f "$a/expected.txt"
cd "$a" || exit 2
sed -i 's/^pad_to_multiple_of: 4$/pad_to_multiple_of: 4  # noqa: E501/' recipes/qwen2.5-0.5b/sft_long.yaml
printf 'max_seq_length: 1024  # noqa: E501\n' >> recipes/qwen2.5-0.5b/sft_long.yaml
"$bin" -n --output-format concise . > "$tmp/out" 2>&1
[ "$(grep -c ': TRL' "$tmp/out")" -eq 2 ] || fail "--add-noqa: expected two findings before"
"$bin" -n --add-noqa . > "$tmp/out" 2>&1; status=$?
[ $status -eq 0 ] || fail "--add-noqa: exit $status, want 0"
grep -q '^Added 2 noqa directives\.$' "$tmp/out" || fail "--add-noqa: the count"
grep -q '^packing: true  # noqa: TRL101$' recipes/qwen2.5-0.5b/sft_long.yaml || fail "--add-noqa: the new comment"
grep -q '^max_seq_length: 1024  # noqa: E501, TRL501$' recipes/qwen2.5-0.5b/sft_long.yaml ||
  fail "--add-noqa: the code added to another tool's noqa"
"$bin" -n --output-format concise . > "$tmp/out" 2>&1; status=$?
[ $status -eq 0 ] || fail "--add-noqa: findings (or unused directives) after it"
"$bin" -n --add-noqa . > "$tmp/out" 2>&1
grep -q '^Added 0 noqa directives\.$' "$tmp/out" || fail "--add-noqa twice: something added"
"$bin" -n --add-noqa --fix . > "$tmp/out" 2>&1; status=$?
[ $status -eq 2 ] || fail "--add-noqa --fix: exit $status, want 2"
cd "$p" || exit 2

echo "cli contracts: all checks passed"
