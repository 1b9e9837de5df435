#!/usr/bin/env bash
# The configuration through the command line: errors with positions and exit 2, `config --show`,
# --config, --isolated, command-line selection over the files, and explicit files (pre-commit
# style: the whole project is analysed, findings touching the files are reported).
set -uo pipefail
bin=$(realpath "$1")
fixture=$(realpath "$2")  # a TRL101 project (tests/cases/config.md#per_file_ignores without its config)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $1"; echo "--- output:"; cat "$tmp/out"; exit 1; }
p=$tmp/project
mkdir -p "$p/.git"
cp -a "$fixture/launch.sh" "$fixture/recipes" "$fixture/scripts" "$p/"
cd "$p"
run() { "$bin" "$@" > "$tmp/out" 2>&1; echo $?; }

[ "$(run --output-format concise .)" = 1 ] || fail "no finding without configuration"

# An unknown key: exit 2, file:line:col, a suggestion.
printf 'select: [TRL1]\nignroe: [TRL101]\n' > .trl-lint.yaml
[ "$(run .)" = 2 ] || fail "an unknown key did not exit 2"
grep -q '^trl-lint: error: .trl-lint.yaml:2:1: unknown configuration key `ignroe`; did you mean `ignore`?' "$tmp/out" ||
  fail "the unknown key message"
# ... also from a subfolder's run and from `config --show`.
[ "$(run config --show)" = 2 ] || fail "config --show accepted an invalid file"

# An unknown selector on the command line.
rm .trl-lint.yaml
[ "$(run --select TRL1O1 .)" = 2 ] || fail "an unknown --select did not exit 2"
grep -q 'did you mean `TRL101`' "$tmp/out" || fail "no suggestion for --select TRL1O1"

# config --show prints the resolved settings, including the command line's.
# The list names two codes (TRL201 need not fire here); this test is about TRL101.
printf 'ignore: [TRL101, TRL201]\nseverity: {TRL901: error}\ntarget-versions: {trl: "0.19.1"}\n' > .trl-lint.yaml
[ "$(run config --show)" = 0 ] || fail "config --show failed"
grep -q '^  - .*/project/.trl-lint.yaml$' "$tmp/out" || fail "config --show does not name the file"
grep -q '^disabled-rules: \[TRL101, TRL201\]$' "$tmp/out" || fail "config --show: disabled rules"
grep -q '^  TRL901: error  # default warning$' "$tmp/out" || fail "config --show: severity"
grep -q '^  trl: "0.19.1"$' "$tmp/out" || fail "config --show: target versions"
# ... and the version each library is judged against, with the reason.
grep -q '^targets:' "$tmp/out" || fail "config --show: no targets"
grep -q '^  trl: "0.19.1"  # set in the trl-lint configuration (target-versions)$' "$tmp/out" || fail "config --show: the configured trl target"
grep -q '^  accelerate: "[0-9.]*"  # newest known release; no pin found$' "$tmp/out" || fail "config --show: the accelerate target"
[ "$(run --extend-select TRL101 config --show)" = 0 ] || fail "config --show with --extend-select"
grep -q '^disabled-rules: \[TRL201\]$' "$tmp/out" || fail "the command line does not override the file"
[ "$(run config --show scripts/sft.py)" = 0 ] || fail "config --show PATH"
[ "$(run config --show nowhere)" = 2 ] || fail "config --show of a missing path"

# The file ignores TRL101; --isolated and --extend-select bring it back; --config another file.
[ "$(run --output-format concise .)" = 0 ] || fail "ignore in the file"
[ "$(run --isolated --output-format concise .)" = 1 ] || fail "--isolated"
[ "$(run --extend-select TRL101 --output-format concise .)" = 1 ] || fail "--extend-select over the file"
printf 'select: [TRL9]\n' > "$tmp/other.yaml"
[ "$(run --config "$tmp/other.yaml" --extend-select TRL101 --output-format concise .)" = 1 ] || fail "--config"
[ "$(run --config "$tmp/other.yaml" --output-format concise .)" = 0 ] || fail "--config does not apply"
[ "$(run --config "$tmp/missing.yaml" .)" = 2 ] || fail "--config of a missing file"
[ "$(run --config "$tmp/other.yaml" --isolated .)" = 2 ] || fail "--config with --isolated"
rm .trl-lint.yaml

# TRL101 says what the target TRL does: raise at start-up (after v1.9.0) or train silently.
[ "$(run --select TRL101 --target-version trl=1.10.0 .)" = 1 ] || fail "TRL101 at trl 1.10.0"
grep -q 'judged against TRL 1.10.0 (set with --target-version), which raises ValueError at SFTTrainer init' "$tmp/out" ||
  fail "TRL101 does not say TRL 1.10.0 raises"
[ "$(run --select TRL101 --target-version trl=0.19.1 .)" = 1 ] || fail "TRL101 at trl 0.19.1"
grep -q 'judged against TRL 0.19.1 (set with --target-version), which trains silently' "$tmp/out" ||
  fail "TRL101 does not say TRL 0.19.1 trains silently"

# `extend` to something that is not a small regular file ends in a usage error, not a hang.
printf 'extend: /dev/zero
' > .trl-lint.yaml
[ "$(timeout 20 "$bin" . > "$tmp/out" 2>&1; echo $?)" = 2 ] || fail "extend: /dev/zero"
grep -q '/dev/zero' "$tmp/out" || fail "extend: /dev/zero message"
mkfifo "$tmp/fifo.yaml"
printf 'extend: %s\n' "$tmp/fifo.yaml" > .trl-lint.yaml
[ "$(timeout 20 "$bin" . > "$tmp/out" 2>&1; echo $?)" = 2 ] || fail "extend: a FIFO"
rm .trl-lint.yaml "$tmp/fifo.yaml"

# Explicit files: the project is analysed; a finding is kept when it touches a given file.
# (Only TRL101: other findings may touch the script, through the model's attention default.)
printf 'select: [TRL101]\n' > .trl-lint.yaml
[ "$(run --output-format concise recipes/accelerate_cp2.yaml)" = 1 ] || fail "a related file"
grep -q '^recipes/sft_long.yaml:5:1: TRL101' "$tmp/out" || fail "the finding of a related file"
[ "$(run --output-format concise scripts/sft.py)" = 0 ] || fail "a file the finding does not touch"
[ "$(run --output-format concise scripts/sft.py recipes/sft_long.yaml)" = 1 ] || fail "several files"
(cd recipes && [ "$("$bin" --output-format concise sft_long.yaml > "$tmp/out" 2>&1; echo $?)" = 1 ]) ||
  fail "explicit file from a subfolder"
grep -q '^sft_long.yaml:5:1: TRL101' "$tmp/out" || fail "paths are shown relative to the current folder"
# A trl-lint configuration marks a project, as `.git` and `pyproject.toml` do: with its own
# configuration, `recipes/` named alone is a project of its own, which holds no launch (and so no
# run); analysed from the root, the recipe is part of the root's project and its finding is there.
printf 'severity:\n  TRL201: error\n' > recipes/.trl-lint.yaml
[ "$(run --output-format concise recipes/sft_long.yaml)" = 0 ] || fail "a nested configuration marks a project"
grep -q 'no training run found' "$tmp/out" || fail "the nested project has no run"
[ "$(run --output-format concise .)" = 1 ] || fail "the root's project with a nested configuration"
grep -q '^recipes/sft_long.yaml:5:1: TRL101' "$tmp/out" || fail "the finding with a nested configuration"
rm recipes/.trl-lint.yaml

# `src`: folders where imports resolve, relative to the configuration's folder, shown absolute.
printf 'src: [libs/shared, "./tools/"]\n' > .trl-lint.yaml
[ "$(run config --show)" = 0 ] || fail "config --show with src"
grep -q "^  - \"$p/libs/shared\"$" "$tmp/out" || fail "config --show: src folder"
grep -q "^  - \"$p/tools\"$" "$tmp/out" || fail "config --show: src folder normalised"
printf 'src: [""]\n' > .trl-lint.yaml
[ "$(run .)" = 2 ] || fail "an empty src entry did not exit 2"
grep -q '`src` entries must not be empty' "$tmp/out" || fail "the empty src message"
rm .trl-lint.yaml
echo ok
