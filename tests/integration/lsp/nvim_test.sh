#!/usr/bin/env bash
# Neovim (headless) as the LSP client of `trl-lint server` on a cross-file fixture project.
# Usage: nvim_test.sh TRL_LINT SOURCE_DIR
set -euo pipefail
trl=$(realpath "$1")
src=$(realpath "$2")
: "${TRL_LINT_FIXTURES:?the fixture projects: build/fixtures, which the build writes (ctest sets this)}"
command -v nvim >/dev/null || { echo "nvim is not installed: run make setup-check"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$TRL_LINT_FIXTURES/TRL101/yaml_packing_accel_yaml_cp" "$work/project"
export TRL_LINT=$trl TRL_PROJECT=$work/project
export HOME=$work XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
export TRL_SOURCE=$src
timeout 120 nvim --headless -u NONE -i NONE -n -c "luafile $src/tests/integration/lsp/nvim_test.lua" </dev/null
# The ready-to-paste setup of editors/neovim, from the project folder (its root fallback).
cd "$work/project"
timeout 120 nvim --headless -u NONE -i NONE -n -c "luafile $src/tests/integration/lsp/nvim_snippet_test.lua" </dev/null
