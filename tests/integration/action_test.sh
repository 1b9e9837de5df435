#!/usr/bin/env bash
# The GitHub Action (action.yml): runs its shell steps (tools/action/*.sh) as the runner would,
# offline, on the example project: install (a venv, `pip install` of the wheel built from the
# binary under test), run (SARIF file, annotations, outputs) and result (fails on findings unless
# told not to; an error always fails). The SARIF file must be valid JSON of SARIF 2.1.0 holding
# the project's finding. The upload step is GitHub's own action and is not run here.
# Usage: action_test.sh TRL_LINT_BINARY SOURCE_DIR
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
. "$src/tests/integration/lib.sh"
python=${PYTHON:-python3}

tmp=$(mktemp -d)
project=
trap 'rm -rf "$tmp" ${project:+"$project"}' EXIT
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_CONFIG_FILE=/dev/null

# Every shell step of action.yml is one of the scripts run below.
steps=$(grep -E '^ +run: ' "$src/action.yml" | sed 's/^ *run: //')
expect_eq "the run: lines of action.yml" 'bash "$GITHUB_ACTION_PATH/tools/action/install.sh"
bash "$GITHUB_ACTION_PATH/tools/action/run.sh"
bash "$GITHUB_ACTION_PATH/tools/action/result.sh"' "$steps"
grep -q 'uses: github/codeql-action/upload-sarif@v3' "$src/action.yml" || fail "action.yml does not upload the SARIF file"

# The package the step installs: the wheel of the binary under test.
"$python" -m venv "$tmp/build-venv"
TRL_LINT_BINARY=$bin "$tmp/build-venv/bin/pip" wheel --no-index --no-deps -q -w "$tmp/dist" "$src" || fail "pip wheel"
wheel=$(ls "$tmp"/dist/trl_lint-*.whl)

export GITHUB_ACTION_PATH=$src RUNNER_TEMP=$tmp/runner GITHUB_PATH=$tmp/github_path GITHUB_OUTPUT=$tmp/github_output
mkdir -p "$RUNNER_TEMP"
: > "$GITHUB_PATH"
# Install: a virtualenv on the runner, trl-lint on the PATH of the later steps.
PATH=/usr/local/bin:/usr/bin:/bin TRL_LINT_PACKAGE=$wheel bash "$src/tools/action/install.sh" > "$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log"; fail "the install step failed"; }
expect_eq "GITHUB_PATH after the install step" "$RUNNER_TEMP/trl-lint-venv/bin" "$(cat "$GITHUB_PATH")"
step_path="$(cat "$GITHUB_PATH"):/usr/local/bin:/usr/bin:/bin"

project=$(scratch_copy example)
cd "$project"
run_step() {  # args, annotate -> exit code of the run step; its stdout in $tmp/run.out
  : > "$GITHUB_OUTPUT"
  set +e
  PATH=$step_path TRL_LINT_ARGS=$1 TRL_LINT_SARIF=trl-lint.sarif TRL_LINT_ANNOTATE=$2 TRL_LINT_CACHE_DIR=$tmp/cache \
    bash "$src/tools/action/run.sh" > "$tmp/run.out" 2> "$tmp/run.err"
  local st=$?
  set -e
  return $st
}
result_step() {  # exit code, fail-on-findings -> the result step's exit code
  set +e
  TRL_LINT_EXIT=$1 TRL_LINT_FAIL_ON_FINDINGS=$2 bash "$src/tools/action/result.sh" >/dev/null
  local st=$?
  set -e
  return $st
}

# 1. Findings: the step passes (the upload must run), the outputs say exit code 1 and the file.
run_step "." true || { cat "$tmp/run.err"; fail "the run step failed on findings"; }
expect_eq "outputs with findings" "exit-code=1
sarif-file=trl-lint.sarif" "$(cat "$GITHUB_OUTPUT")"
"$python" - trl-lint.sarif <<'PY' || fail "the SARIF file"
import json, sys
sarif = json.load(open(sys.argv[1]))
assert sarif["version"] == "2.1.0", sarif.get("version")
assert sarif["$schema"].endswith("sarif-2.1.0.json") or "sarif-schema-2.1.0" in sarif["$schema"], sarif.get("$schema")
run = sarif["runs"][0]
assert run["tool"]["driver"]["name"] == "trl-lint"
results = run["results"]
assert [r["ruleId"] for r in results] == ["TRL101"], [r["ruleId"] for r in results]
location = results[0]["locations"][0]["physicalLocation"]
assert location["artifactLocation"]["uri"] == "recipes/sft_qwen.yaml", location
assert location["region"]["startLine"] == 15, location
PY
grep -q '^::error file=recipes/sft_qwen.yaml,line=15' "$tmp/run.out" || { cat "$tmp/run.out"; fail "no annotation for the finding"; }
result_step 1 true && fail "the result step passed with findings and fail-on-findings: true"
result_step 1 false || fail "the result step failed with fail-on-findings: false"

# 2. No findings (the finding's rule ignored through args), no annotations asked for.
run_step ". --ignore TRL101" false || { cat "$tmp/run.err"; fail "the run step failed without findings"; }
expect_eq "outputs without findings" "exit-code=0
sarif-file=trl-lint.sarif" "$(cat "$GITHUB_OUTPUT")"
[ ! -s "$tmp/run.out" ] || { cat "$tmp/run.out"; fail "annotations printed with annotate: false"; }
result_step 0 true || fail "the result step failed without findings"

# 3. An error (an unknown option): the step fails with 2 and gives no SARIF file to upload.
if run_step ". --no-such-option" true; then fail "the run step passed on a usage error"; else st=$?; fi
expect_eq "the run step's exit code on an error" 2 "$st"
expect_eq "outputs on an error" "exit-code=2" "$(cat "$GITHUB_OUTPUT")"
result_step 2 false && fail "the result step passed on exit code 2"
echo "ok: action.yml's steps install $(basename "$wheel"), write a valid SARIF file and annotate"
