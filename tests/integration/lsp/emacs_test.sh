#!/usr/bin/env bash
# Emacs (batch) with eglot as the LSP client of `trl-lint server`, set up by
# editors/emacs/trl-lint.el as a user pastes it, on a cross-file fixture project.
# Usage: emacs_test.sh TRL_LINT SOURCE_DIR [FIXTURE]
#   FIXTURE (default tests/cases/TRL101.md#python_packing_accel_yaml_cp) must have TRL101 on
#   train.py's `packing=True` line.
set -euo pipefail
trl=$(realpath "$1")
src=$(realpath "$2")
: "${TRL_LINT_FIXTURES:?the fixture projects: build/fixtures, which the build writes (ctest sets this)}"
fixture=${3:-$TRL_LINT_FIXTURES/TRL101/python_packing_accel_yaml_cp}
command -v emacs >/dev/null || { echo "emacs is not installed: run make setup-check"; exit 1; }
command -v git >/dev/null || { echo "git is not installed: run make setup-check"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$fixture" "$work/project"
# A git repository, so that project.el finds the root without asking.
git -C "$work/project" init -q
line=$(grep -n 'packing=True' "$work/project/train.py" | head -1 | cut -d: -f1)
[ -n "$line" ] || { echo "emacs test: no packing=True in $fixture/train.py"; exit 1; }
export TRL_LINT=$trl TRL_SOURCE=$src TRL_PROJECT=$work/project TRL_LINE=$line
export HOME=$work XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
cd "$work/project"
limit=120  # seconds for the whole Emacs session (each wait inside: TRL_LSP_TIMEOUT, 20 s)
rc=0
timeout "$limit" emacs --batch -Q -l "$src/tests/integration/lsp/emacs_snippet_test.el" </dev/null || rc=$?
if [ "$rc" -eq 124 ]; then echo "emacs test FAILED: emacs did not finish within $limit s"; fi
exit "$rc"
