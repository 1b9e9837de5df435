#!/usr/bin/env bash
# Runs Debian's real pre-commit against a temporary git repository, offline, with one of the
# hooks of .pre-commit-hooks.yaml:
# - `system` (default): the `trl-lint-system` hook (`language: system`), as a `repo: local` hook
#   pointing at the built binary.
# - `python`: the `trl-lint` hook (`language: python`) exactly as a user adds it (`repo:`, `rev:`,
#   `id: trl-lint`), the repository being a git copy of this checkout's tracked files. pre-commit
#   makes its virtualenv and `pip install`s the repository with PIP_NO_INDEX=1; the build backend
#   packages the binary under test (TRL_LINT_BINARY) instead of compiling it again. A commit that brings packing and context parallelism together is refused
# with the finding, even though only the accelerate YAML is staged; a clean commit passes.
# Usage: precommit_test.sh TRL_LINT_BINARY SOURCE_DIR [system|python]
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
mode=${3:-system}
command -v pre-commit >/dev/null || { echo "pre-commit is not installed (run make setup-test)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home PRE_COMMIT_HOME=$tmp/pre-commit-home GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.com
mkdir -p "$HOME"
repo=$tmp/repo
mkdir -p "$repo/recipes" "$repo/scripts"
cd "$repo"
git init -q -b main .

if [ "$mode" = python ]; then
  # The hook repository: this checkout's tracked files (as they are on disk), one commit.
  hooks=$tmp/trl-lint-repo
  mkdir -p "$hooks"
  (cd "$src" && git ls-files -z | xargs -0 cp -P --parents -t "$hooks" 2>/dev/null || true)
  [ -f "$hooks/pyproject.toml" ] && [ -f "$hooks/.pre-commit-hooks.yaml" ] || { echo "could not copy the checkout"; exit 1; }
  git -C "$hooks" init -q -b main . && git -C "$hooks" add -A && git -C "$hooks" commit -qm "trl-lint"
  cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $hooks
    rev: $(git -C "$hooks" rev-parse HEAD)
    hooks:
      - id: trl-lint
YAML
  export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_CONFIG_FILE=/dev/null TRL_LINT_BINARY=$bin
  # No trl-lint on the PATH: the hook must use the one installed in its environment.
  export PATH=/usr/local/bin:/usr/bin:/bin
  ! command -v trl-lint >/dev/null || { echo "trl-lint is on the PATH ($(command -v trl-lint)): the test needs it absent"; exit 1; }
else
  # The hook as the manifest defines it, with the entry pointing at the binary under test.
  {
    echo "repos:"
    echo "  - repo: local"
    echo "    hooks:"
    # The block of the trl-lint-system hook, from its `- id:` line to the next hook's.
    awk '/^- id: /{keep = ($3 == "trl-lint-system")} keep' "$src/.pre-commit-hooks.yaml" \
      | sed -e '/^ *#/d' -e "s|^\(  \)entry: trl-lint\$|  entry: $bin|" -e 's/^/      /'
  } > .pre-commit-config.yaml
  grep -q "language: system" .pre-commit-config.yaml && grep -q "entry: $bin" .pre-commit-config.yaml || { echo "could not point the hook at $bin"; cat .pre-commit-config.yaml; exit 1; }
fi

cat > launch.sh <<'SH'
#!/usr/bin/env bash
accelerate launch --config_file recipes/accelerate.yaml scripts/sft.py --config recipes/sft.yaml
SH
cat > recipes/accelerate.yaml <<'YAML'
distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
num_processes: 2
parallelism_config:
  parallelism_config_cp_size: 1
YAML
# This test is about the cross-file TRL101 finding; other rules' findings are out of its scope.
cat > .trl-lint.yaml <<'YAML'
select: [TRL101]
YAML
cat > recipes/sft.yaml <<'YAML'
model_name_or_path: Qwen/Qwen2.5-0.5B
max_length: 16384
packing: true
YAML
cat > scripts/sft.py <<'PY'
from trl import ModelConfig, ScriptArguments, SFTConfig, SFTTrainer, TrlParser

if __name__ == "__main__":
    parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))
    script_args, training_args, model_args = parser.parse_args_and_config()
    SFTTrainer(model=model_args.model_name_or_path, args=training_args).train()
PY
fail() { echo "FAIL: $1"; echo "--- hook output:"; cat "$tmp/out"; exit 1; }
pre-commit install >/dev/null
git add -A
git commit -qm "clean start" >"$tmp/out" 2>&1 || { echo "FAIL: the clean first commit was refused"; exit 1; }
if [ "$mode" = python ]; then
  # The hook ran from the virtualenv pre-commit made for it, with trl-lint installed there.
  ls "$PRE_COMMIT_HOME"/repo*/py_env-*/bin/trl-lint >/dev/null 2>&1 \
    || { echo "FAIL: no trl-lint in a py_env of $PRE_COMMIT_HOME"; cat "$tmp/out"; exit 1; }
fi
commits() { git rev-list --count HEAD; }
[ "$(commits)" = 1 ]



# 1. Bad: cp_size 2 staged alone; `packing: true` lives in a committed, unchanged file.
sed -i 's/parallelism_config_cp_size: 1/parallelism_config_cp_size: 2/' recipes/accelerate.yaml
git add recipes/accelerate.yaml
if git commit -m "enable context parallelism" > "$tmp/out" 2>&1; then fail "the bad commit was accepted"; fi
grep -q "TRL101" "$tmp/out" || fail "the refusal does not show TRL101"
grep -q "recipes/sft.yaml" "$tmp/out" || fail "the refusal does not point at recipes/sft.yaml"
grep -q "recipes/accelerate.yaml" "$tmp/out" || fail "the refusal does not show the staged file"
[ "$(commits)" = 1 ] || fail "a commit was created"

# 2. Good: turning packing off in the same commit passes.
sed -i 's/packing: true/packing: false/' recipes/sft.yaml
git add recipes/sft.yaml
git commit -m "context parallelism without packing" > "$tmp/out" 2>&1 || fail "the good commit was refused"
[ "$(commits)" = 2 ] || fail "the good commit was not created"

# 3. Good: a staged file unrelated to the finding-to-be passes while a bad change stays
#    unstaged (pre-commit stashes it; trl-lint sees what is committed).
sed -i 's/packing: false/packing: true/' recipes/sft.yaml
echo "# notes" > README.md
git add README.md
git commit -m "notes" > "$tmp/out" 2>&1 || fail "the commit of an unrelated file was refused"
[ "$(commits)" = 3 ] || fail "the unrelated commit was not created"

# 4. Bad again when the packing change itself is staged.
git add recipes/sft.yaml
if git commit -m "packing on" > "$tmp/out" 2>&1; then fail "staging packing: true was accepted"; fi
grep -q "TRL101" "$tmp/out" || fail "the second refusal does not show TRL101"
cat "$tmp/out"
echo "ok"
